/* peak: what the device reaches on plain work, measured in the same run as
 * the kernels it is compared with (bench/kernels).
 *
 *   peak copy BYTES      device-to-device cudaMemcpy of BYTES: GB/s counting
 *                        the bytes read and written (2 x BYTES per copy)
 *   peak sgemm M N K     cuBLAS SGEMM (default math: no TF32), TFLOP/s at
 *                        2 M N K per call
 *
 * Each prints one line, `copy BYTES GBPS` or `sgemm M N K TFLOPS`, the best
 * of 20 timed repetitions after 3 warm-ups. */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "peak"
#include "check.h"

#define CB(call)                                                                         \
    do {                                                                                 \
        cublasStatus_t s_ = (call);                                                      \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                               \
            fprintf(stderr, "peak: %s failed: status %d\n", #call, (int)s_);             \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

enum { WARMUP = 3, REPS = 20 };

typedef void (*work_fn)(void *arg);

/* The shortest of REPS timed calls, in milliseconds. */
static double best_ms(work_fn fn, void *arg)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < WARMUP; i++)
        fn(arg);
    double best = 1e30;
    for (int i = 0; i < REPS; i++) {
        float ms;
        CK(cudaEventRecord(a, 0));
        fn(arg);
        CK(cudaEventRecord(b, 0));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms, a, b));
        best = ms < best ? ms : best;
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return best;
}

struct copy {
    void *dst, *src;
    size_t bytes;
};

static void do_copy(void *arg)
{
    struct copy *c = (struct copy *)arg;
    CK(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, 0));
}

struct gemm {
    cublasHandle_t h;
    int m, n, k;
    float *a, *b, *c;
};

/* Row-major C = A B is column-major C^T = B^T A^T. */
static void do_sgemm(void *arg)
{
    struct gemm *g = (struct gemm *)arg;
    const float one = 1, zero = 0;
    CB(cublasSgemm(g->h, CUBLAS_OP_N, CUBLAS_OP_N, g->n, g->m, g->k, &one, g->b, g->n, g->a, g->k, &zero, g->c,
                   g->n));
}

static long long number(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*end || v <= 0) {
        fprintf(stderr, "peak: '%s' is not a positive integer\n", s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "copy") == 0) {
        struct copy c = {NULL, NULL, (size_t)number(argv[2])};
        CK(cudaMalloc(&c.dst, c.bytes));
        CK(cudaMalloc(&c.src, c.bytes));
        CK(cudaMemset(c.src, 1, c.bytes));
        double ms = best_ms(do_copy, &c);
        printf("copy %zu %.1f\n", c.bytes, 2.0 * c.bytes / (ms * 1e-3) / 1e9);
        return 0;
    }
    if (argc == 5 && strcmp(argv[1], "sgemm") == 0) {
        struct gemm g;
        g.m = (int)number(argv[2]), g.n = (int)number(argv[3]), g.k = (int)number(argv[4]);
        CB(cublasCreate(&g.h));
        CB(cublasSetMathMode(g.h, CUBLAS_DEFAULT_MATH));
        CK(cudaMalloc(&g.a, sizeof(float) * g.m * g.k));
        CK(cudaMalloc(&g.b, sizeof(float) * g.k * g.n));
        CK(cudaMalloc(&g.c, sizeof(float) * g.m * g.n));
        CK(cudaMemset(g.a, 0, sizeof(float) * g.m * g.k));
        CK(cudaMemset(g.b, 0, sizeof(float) * g.k * g.n));
        double ms = best_ms(do_sgemm, &g);
        printf("sgemm %d %d %d %.2f\n", g.m, g.n, g.k, 2.0 * g.m * g.n * g.k / (ms * 1e-3) / 1e12);
        return 0;
    }
    fprintf(stderr, "usage: peak copy BYTES | peak sgemm M N K\n");
    return 2;
}
