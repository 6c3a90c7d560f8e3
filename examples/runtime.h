/* runtime.h: what the examples written against the CUDA runtime API share
 * (besides common.h): a call that must succeed, and the check after launches. */
#ifndef EX_RUNTIME_H
#define EX_RUNTIME_H

#include "common.h"

#include <cuda_runtime.h>

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess)                                                       \
            ex_die("%s failed: %s", #call, cudaGetErrorString(err_));                  \
    } while (0)

/* Launch errors surface at the next call; ask right after each batch. */
#define LAUNCHED() CK(cudaGetLastError())

#endif
