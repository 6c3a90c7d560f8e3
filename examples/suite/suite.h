/* suite.h: what the benchmark applications of examples/suite/ share.
 *
 * `suite KERNEL|all [-o FILE] [-r REPS] [--small] [--graph]` runs one kernel
 * of kernels/ (or each in turn), built once with its default macro values,
 * the way an application would: realistic sizes, fixed-seed inputs, one
 * untimed first launch (the one tune mode tunes), then REPS launches timed
 * with CUDA events, then a check of the answer against a CPU reference (on a
 * sample of the output where the reference would take the CPU minutes).
 * --small shrinks the problem for quick tests.
 *
 * --graph runs what is repeated as a CUDA graph, as a serving stack does:
 * one repetition is captured from a stream into a graph, which is
 * instantiated and replayed SUITE_GRAPH_WARMUP times untimed (tune mode
 * tunes a kernel seen only in graphs at a graph's second launch and then
 * checks its winner on the replays), then REPS times timed.  Nothing is
 * launched outside the graph.  Coulomb's repetitions differ from one to the
 * next, so it has no graph mode.
 *
 * On stdout, besides common.h's `result` line and, without --graph, its
 * `expect` lines (launches made through the launch calls):
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

enum { SUITE_GRAPH_WARMUP = 100 };

struct suite {
    struct ex e;
    const char *kernel;    /* the kernel running */
    int reps;              /* timed repetitions */
    int small;             /* --small: a reduced problem */
    int graph;             /* --graph */
    cudaStream_t stream;   /* what the kernels are launched on: the legacy stream, or one to capture */
    cudaGraphExec_t exec;  /* --graph: the repetition, instantiated */
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
    CK(cudaEventRecord(s->start, s->stream));
}

/* The repetitions, as `for (int r = 0; suite_rep(s, r); r++) BODY`: BODY
 * runs once untimed and then REPS times timed (the timing starts here).
 * With --graph, BODY is captured once into a graph instead, and here the
 * graph is replayed SUITE_GRAPH_WARMUP times untimed, then REPS times timed. */
static inline int suite_rep(struct suite *s, int r)
{
    if (!s->graph) {
        if (r == 1)
            suite_time_start(s);
        return r <= s->reps;
    }
    if (r == 0) {
        CK(cudaDeviceSynchronize());
        CK(cudaStreamBeginCapture(s->stream, cudaStreamCaptureModeGlobal));
        return 1;
    }
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s->stream, &g));
    CK(cudaGraphInstantiate(&s->exec, g, 0));
    CK(cudaGraphDestroy(g));
    for (int i = 0; i < SUITE_GRAPH_WARMUP; i++)
        CK(cudaGraphLaunch(s->exec, s->stream));
    suite_time_start(s);
    for (int i = 0; i < s->reps; i++)
        CK(cudaGraphLaunch(s->exec, s->stream));
    return 0;
}

/* How many times BODY ran in all. */
static inline unsigned long suite_bodies(const struct suite *s)
{
    return (unsigned long)(s->graph ? SUITE_GRAPH_WARMUP : 1) + (unsigned long)s->reps;
}

/* Ends the timed launches (of which there were `launches`): prints their
 * mean and one launch's work. */
static inline void suite_time_stop(struct suite *s, int launches, double bytes, double flops)
{
    float ms = 0;
    LAUNCHED();
    CK(cudaEventRecord(s->stop, s->stream));
    CK(cudaEventSynchronize(s->stop));
    CK(cudaEventElapsedTime(&ms, s->start, s->stop));
    if (s->exec) {
        CK(cudaGraphExecDestroy(s->exec));
        s->exec = NULL;
    }
    printf("time %s %.3f\n", s->kernel, launches > 0 ? 1e3 * ms / launches : 0.0);
    printf("work %s %.0f %.0f\n", s->kernel, bytes, flops);
}

/* common.h's `expect` line, for launches made through the launch calls:
 * none with --graph. */
static inline void suite_expect(const struct suite *s, const char *prefix, unsigned long launches)
{
    if (!s->graph)
        ex_expect(prefix, launches);
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
