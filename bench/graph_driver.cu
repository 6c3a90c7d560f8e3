/* graph_driver: what the driver does with CUDA graphs that decides how the
 * shim puts variants into them (shim/launch/graphs.c, apply.c).
 *
 *   graph_driver
 *
 * 1. Updates.  A chain of N kernel nodes (N = 24, about 85 us a replay on
 *    an H200, and N = 4) replayed as instantiated, and after each kind of
 *    update the shim makes: cuGraphExecUpdate from an identical clone; to a
 *    clone whose nodes run other functions and back (online mode's turns,
 *    the guard's alternation); cuGraphExecKernelNodeSetParams away and back;
 *    and a graph instantiated fresh from the clone.  Each row is the median
 *    time a replay over rounds of 100 replays, all kinds interleaved, and its
 *    ratio to the graph as instantiated.
 * 2. A function's cache preference and carve-out.  A kernel of 13 KB of
 *    static shared memory, 8 of the 24 nodes: its graph replayed with
 *    PREFER_L1 (or a carve-out of 0) set on the function after the capture,
 *    and captured with it set before, each against the graph captured
 *    without; then whether a launch's carve-out attribute stays on the
 *    function for its later launches, and whether the driver takes
 *    cudaFuncSetCacheConfig while a stream captures, in each capture mode. */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>

#define BENCH_NAME "graph_driver"
#include "check.h"

enum { ROUNDS = 30, REPLAYS = 100, ROWS = 256, COLS = 256, TILE = 3264 };

/* Each kernel twice: the second is the "other function" a node is updated to. */
#define KERNELS(S)                                                                                  \
    __global__ void one_block##S(float *y) { y[threadIdx.x] = y[threadIdx.x] * 0.5f + 1.0f; }       \
    __global__ void row_sum##S(float *y)                                                            \
    {                                                                                               \
        float *r = y + blockIdx.x * COLS, s = 0;                                                    \
        for (int i = threadIdx.x; i < COLS; i += 32)                                                \
            s += r[i];                                                                              \
        for (int o = 16; o; o >>= 1)                                                                \
            s += __shfl_xor_sync(~0u, s, o);                                                        \
        for (int i = threadIdx.x; i < COLS; i += 32)                                                \
            r[i] = r[i] * 0.999f + s * 1e-6f;                                                       \
    }                                                                                               \
    __global__ void shared_tile##S(const float *a, float *c)                                        \
    {                                                                                               \
        __shared__ float t[TILE];                                                                   \
        int b = blockIdx.y * gridDim.x + blockIdx.x;                                                \
        float s = 0;                                                                                \
        for (int i = threadIdx.x; i < TILE; i += blockDim.x)                                        \
            t[i] = a[(b * 64 + i) % (ROWS * COLS)];                                                 \
        __syncthreads();                                                                            \
        for (int i = 0; i < 64; i++)                                                                \
            s += t[(threadIdx.x * 7 + i) % TILE] * t[(i * 13) % TILE];                              \
        c[b * blockDim.x + threadIdx.x] = s;                                                        \
    }
KERNELS(_a)
KERNELS(_b)

static float *buf, *in, *out;
static cudaStream_t st;

/* Node i of the chain: one block, a row sum or the shared-memory tile, in a fixed pattern. */
static void launch_node(int i, int twin)
{
    static const int pattern[] = {0, 1, 2, 1, 2, 0, 1, 2, 2, 1, 0, 2};
    switch (pattern[i % 12]) {
    case 0:
        (twin ? one_block_b : one_block_a)<<<1, 128, 0, st>>>(buf);
        break;
    case 1:
        (twin ? row_sum_b : row_sum_a)<<<ROWS, 32, 0, st>>>(buf);
        break;
    default:
        (twin ? shared_tile_b : shared_tile_a)<<<dim3(16, 12), 128, 0, st>>>(in, out);
    }
}

static cudaGraph_t capture(int nodes, int twin)
{
    cudaGraph_t g;
    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < nodes; i++)
        launch_node(i, twin);
    CK(cudaStreamEndCapture(st, &g));
    return g;
}

static cudaGraphExec_t instantiate(cudaGraph_t g)
{
    cudaGraphExec_t e;
    CK(cudaGraphInstantiate(&e, g, 0));
    return e;
}

static void update(cudaGraphExec_t e, cudaGraph_t g)
{
    cudaGraphExecUpdateResultInfo info;
    CK(cudaGraphExecUpdate(e, g, &info));
}

/* The time of one of REPLAYS back-to-back calls of issue(arg) on the stream, between two events. */
static double each_us(void (*issue)(const void *), const void *arg)
{
    cudaEvent_t a, b;
    float ms;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a, st));
    for (int i = 0; i < REPLAYS; i++)
        issue(arg);
    CK(cudaEventRecord(b, st));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return ms * 1e3 / REPLAYS;
}

static void replay(const void *exec)
{
    CK(cudaGraphLaunch((cudaGraphExec_t)exec, st));
}

static double replay_us(cudaGraphExec_t e)
{
    return each_us(replay, e);
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* Medians over ROUNDS of each executable graph's replay time, the graphs taking turns in a rotating order. */
static void medians(cudaGraphExec_t *e, int n, double *med)
{
    static double t[16][ROUNDS];
    for (int k = 0; k < n; k++)
        replay_us(e[k]);
    for (int r = 0; r < ROUNDS; r++)
        for (int j = 0; j < n; j++)
            t[(j + r) % n][r] = replay_us(e[(j + r) % n]);
    for (int k = 0; k < n; k++) {
        qsort(t[k], ROUNDS, sizeof t[k][0], by_value);
        med[k] = t[k][ROUNDS / 2];
    }
}

/* Each kernel node of exec (instantiated from g) set to the params of twin's node, replayed once, and set back. */
static void set_params_away_and_back(cudaGraphExec_t exec, cudaGraph_t g, cudaGraph_t twin)
{
    size_t n = 0, m = 0;
    CK(cudaGraphGetNodes(g, NULL, &n));
    CK(cudaGraphGetNodes(twin, NULL, &m));
    cudaGraphNode_t *v = (cudaGraphNode_t *)calloc(n, sizeof *v), *w = (cudaGraphNode_t *)calloc(m, sizeof *w);
    CK(cudaGraphGetNodes(g, v, &n));
    CK(cudaGraphGetNodes(twin, w, &m));
    for (size_t i = 0; i < n && i < m; i++) {
        cudaKernelNodeParams own, other;
        CK(cudaGraphKernelNodeGetParams(v[i], &own));
        CK(cudaGraphKernelNodeGetParams(w[i], &other));
        CK(cudaGraphExecKernelNodeSetParams(exec, v[i], &other));
        CK(cudaGraphLaunch(exec, st));
        CK(cudaGraphExecKernelNodeSetParams(exec, v[i], &own));
    }
    free(v);
    free(w);
}

static void updates(int nodes)
{
    enum { FRESH, SAME, AWAY_BACK, SET_PARAMS, FROM_CLONE, KINDS };
    static const char *what[KINDS] = {
        "as instantiated", "updated from an identical clone", "updated to other functions and back",
        "exec node params set away and back", "instantiated from the clone"};
    cudaGraph_t g = capture(nodes, 0), twin = capture(nodes, 1), clone;
    CK(cudaGraphClone(&clone, g));
    cudaGraphExec_t e[KINDS];
    for (int k = 0; k < KINDS; k++)
        e[k] = instantiate(k == FROM_CLONE ? clone : g);
    update(e[SAME], clone);
    update(e[AWAY_BACK], twin);
    CK(cudaGraphLaunch(e[AWAY_BACK], st));
    update(e[AWAY_BACK], clone);
    set_params_away_and_back(e[SET_PARAMS], g, twin);
    CK(cudaStreamSynchronize(st));
    double med[KINDS];
    medians(e, KINDS, med);
    printf("\n%d kernel nodes:\n", nodes);
    for (int k = 0; k < KINDS; k++)
        printf("  %-40s %8.3f us a replay  %.4fx\n", what[k], med[k], med[k] / med[FRESH]);
    for (int k = 0; k < KINDS; k++)
        CK(cudaGraphExecDestroy(e[k]));
    CK(cudaGraphDestroy(g));
    CK(cudaGraphDestroy(twin));
    CK(cudaGraphDestroy(clone));
}

/* PREFER_L1 (carveout < 0) or the carve-out on the shared-memory kernel, or its defaults back. */
static void set_tile(int on, int carveout)
{
    if (carveout < 0)
        CK(cudaFuncSetCacheConfig(shared_tile_a, on ? cudaFuncCachePreferL1 : cudaFuncCachePreferNone));
    else
        CK(cudaFuncSetAttribute(shared_tile_a, cudaFuncAttributePreferredSharedMemoryCarveout, on ? carveout : -1));
}

static void preference(int carveout)
{
    cudaGraph_t g = capture(24, 0);
    cudaGraphExec_t e[2];
    e[0] = instantiate(g);
    set_tile(1, carveout);
    cudaGraph_t with = capture(24, 0);
    e[1] = instantiate(with);
    double after[2], before[2];
    medians(e, 2, after); /* the first graph now runs with the setting made after its capture */
    set_tile(0, carveout);
    medians(e, 2, before);
    const char *what = carveout < 0 ? "PREFER_L1" : "a carve-out of 0";
    printf("  %s set on the function after the capture: %.4fx; set before it: %.4fx\n", what,
           after[0] / before[0], before[1] / before[0]);
    for (int k = 0; k < 2; k++)
        CK(cudaGraphExecDestroy(e[k]));
    CK(cudaGraphDestroy(g));
    CK(cudaGraphDestroy(with));
}

static void launch_tile(const void *cfg)
{
    CK(cudaLaunchKernelEx((const cudaLaunchConfig_t *)cfg, shared_tile_a, (const float *)in, out));
}

/* The shared-memory kernel's time a launch, with a carve-out attribute on each launch (none: < 0). */
static double tile_launches_us(int carveout)
{
    cudaLaunchAttribute at;
    at.id = cudaLaunchAttributePreferredSharedMemoryCarveout;
    at.val.sharedMemCarveout = (unsigned)carveout;
    cudaLaunchConfig_t cfg = {dim3(16, 12), dim3(128), 0, st, &at, carveout >= 0 ? 1u : 0u};
    return each_us(launch_tile, &cfg);
}

static void sticky_carveout(void)
{
    double plain = tile_launches_us(-1), with = tile_launches_us(0), after = tile_launches_us(-1);
    printf("  launches with a carve-out attribute of 0: %.4fx; plain launches after them: %.4fx\n", with / plain,
           after / plain);
}

static void set_during_capture(void)
{
    static const cudaStreamCaptureMode modes[] = {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal,
                                                  cudaStreamCaptureModeRelaxed};
    static const char *names[] = {"global", "thread-local", "relaxed"};
    printf("  cudaFuncSetCacheConfig while a stream captures:");
    for (int m = 0; m < 3; m++) {
        cudaGraph_t g;
        CK(cudaStreamBeginCapture(st, modes[m]));
        launch_node(0, 0);
        cudaError_t set = cudaFuncSetCacheConfig(one_block_a, cudaFuncCachePreferNone);
        launch_node(0, 0);
        cudaError_t end = cudaStreamEndCapture(st, &g);
        printf(" %s: %s (capture %s)", names[m], cudaGetErrorString(set), cudaGetErrorString(end));
        if (end == cudaSuccess)
            CK(cudaGraphDestroy(g));
        cudaGetLastError();
    }
    printf("\n");
}

int main(void)
{
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        printf("SKIP graph_driver: no usable CUDA device\n");
        return 0;
    }
    int version = 0;
    CK(cudaDriverGetVersion(&version));
    printf("graph_driver on %s (driver API %d)\n", prop.name, version);
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CK(cudaMalloc(&buf, ROWS * COLS * sizeof(float)));
    CK(cudaMalloc(&in, (ROWS * COLS + 4096) * sizeof(float)));
    CK(cudaMalloc(&out, 192 * 128 * sizeof(float)));
    CK(cudaMemset(buf, 0, ROWS * COLS * sizeof(float)));
    CK(cudaMemset(in, 0, (ROWS * COLS + 4096) * sizeof(float)));
    updates(24);
    updates(4);
    printf("\nthe shared-memory kernel's settings, 24 nodes:\n");
    preference(-1);
    preference(0);
    sticky_carveout();
    set_during_capture();
    return 0;
}
