/* check.h: what a benchmark program of bench/ does when a CUDA runtime call
 * fails: it names the call and the error, after BENCH_NAME (the program's
 * name, defined before this header), and exits 1. */
#ifndef BENCH_CHECK_H
#define BENCH_CHECK_H

#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>

#define CK(call)                                                                                 \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s: %s failed: %s\n", BENCH_NAME, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

#endif
