/* suite.h: what the benchmark applications of examples/suite/ share.
 *
 * `suite KERNEL [-o FILE] [-r REPS] [--small]` runs one kernel of kernels/,
 * built once with its default macro values, the way an application would:
 * realistic sizes, fixed-seed inputs, one untimed first launch (the one tune
 * mode tunes), then REPS launches timed with CUDA events, then a check of
 * the answer against a CPU reference (on a sample of the output where the
 * reference would take the CPU minutes).  --small shrinks the problem for
 * quick tests.  On stdout, besides common.h's `expect` and `result` lines:
 *
 *   time KERNEL US          mean time of one timed launch, in microseconds
 *   work KERNEL BYTES FLOPS what one launch must move and compute, for the
 *                           achieved bandwidth and FLOP/s (bench/kernels)
 *
 * Each kernel's host code lives in examples/suite/KERNEL.cu, which includes
 * kernels/KERNEL.cu: one translation unit per kernel, so that the kernels'
 * macros never meet. */
#ifndef SUITE_H
#define SUITE_H

#include "../runtime.h"

struct suite {
    struct ex e;
    const char *kernel; /* as named on the command line */
    int reps;           /* timed launches */
    int small;          /* --small: a reduced problem */
    cudaEvent_t start, stop;
};

static inline void *suite_dev(size_t bytes)
{
    void *p = NULL;
    CK(cudaMalloc(&p, bytes));
    return p;
}

static inline void suite_up(void *dev, const void *host, size_t bytes)
{
    CK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
}

static inline void suite_down(void *host, const void *dev, size_t bytes)
{
    CK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
}

static inline void suite_time_start(struct suite *s)
{
    LAUNCHED();
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(s->start, 0));
}

/* Ends the timed launches: prints their mean and one launch's work. */
static inline void suite_time_stop(struct suite *s, int launches, double bytes, double flops)
{
    float ms = 0;
    LAUNCHED();
    CK(cudaEventRecord(s->stop, 0));
    CK(cudaEventSynchronize(s->stop));
    CK(cudaEventElapsedTime(&ms, s->start, s->stop));
    printf("time %s %.3f\n", s->kernel, launches > 0 ? 1e3 * ms / launches : 0.0);
    printf("work %s %.0f %.0f\n", s->kernel, bytes, flops);
}

/* Indices of a fixed-seed sample of n outputs out of total, for checks
 * whose reference is too slow to compute everywhere. */
static inline size_t suite_sample(uint64_t *seed, size_t total)
{
    return (size_t)(((uint64_t)ex_rand(seed) << 32 | ex_rand(seed)) % total);
}

void suite_transpose(struct suite *s);
void suite_gemm(struct suite *s);
void suite_reduce(struct suite *s);
void suite_conv2d(struct suite *s);
void suite_nbody(struct suite *s);
void suite_coulomb(struct suite *s);
void suite_stencil(struct suite *s);

#endif
