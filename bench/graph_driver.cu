/* graph_driver: what the driver does with CUDA graphs that decides how the
 * shim puts variants into them (shim/launch/graphs.c, apply.c).
 *
 *   graph_driver
 *
 * 1. Updates.  A chain of N kernel nodes (N = 24, about 80 us a replay on
 *    an H200, and N = 4) replayed as instantiated, and after each kind of
 *    update the shim makes: cuGraphExecUpdate from an identical clone; to a
 *    clone whose nodes run other functions and back (online mode's turns,
 *    the guard's alternation), once and 1000 times; cuGraphExecKernelNodeSetParams
 *    away and back; and a graph instantiated fresh from the clone.  Then
 *    each node of 24 updated to a copy of its kernel in a module of its own
 *    (built by NVRTC: what the shim's copies of an image are) and back, the
 *    copy kept, its functions preferring L1, or unloaded after.  Each row is
 *    the median time a replay over rounds of 100 replays, all kinds
 *    interleaved, and its ratio to the graph as instantiated.
 * 2. A function's cache preference and carve-out.  A kernel of 13 KB of
 *    static shared memory, 8 of the 24 nodes: its graph replayed with
 *    PREFER_L1 (or a carve-out of 0) set on the function after the capture,
 *    and captured with it set before, each against the graph captured
 *    without; executable graphs updated to a twin chain captured with the
 *    setting and back, in each way the shim updates them (does the setting
 *    leave with the twin's functions?); nodes set again while the setting is
 *    on the function, then taken back: in a clone that the executable graph
 *    is updated to, in a clone instantiated, and in the executable graph
 *    itself (where does a node take a function's setting?); whether the
 *    executable graph's nodes can be set through a clone's once the graph it
 *    was instantiated from is destroyed; whether a launch's carve-out
 *    attribute stays on the function for its later launches, and whether
 *    the driver takes cudaFuncSetCacheConfig while a stream captures, in
 *    each capture mode. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* NVRTC's and the driver's calls, checked as CK checks the runtime's.  The driver's come through the
 * runtime (cudaGetDriverEntryPointByVersion), so that the program starts, and skips, without one. */
#define CKD(call)                                                                                  \
    do {                                                                                           \
        int e_ = (int)(call);                                                                      \
        if (e_) {                                                                                  \
            fprintf(stderr, "%s: %s failed: error %d\n", BENCH_NAME, #call, e_);                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
static struct {
    CUresult (*load)(CUmodule *, const void *);
    CUresult (*function)(CUfunction *, CUmodule, const char *);
    CUresult (*prefer)(CUfunction, CUfunc_cache);
    CUresult (*set_node)(CUgraphNode, const CUDA_KERNEL_NODE_PARAMS *);
    CUresult (*unload)(CUmodule);
} drv;

static void *entry(const char *name)
{
    void *fn = NULL;
    cudaDriverEntryPointQueryResult found;
    CK(cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found));
    if (!fn) {
        fprintf(stderr, "%s: the driver has no %s\n", BENCH_NAME, name);
        exit(1);
    }
    return fn;
}

static void driver_entries(void)
{
    drv.load = (decltype(drv.load))entry("cuModuleLoadData");
    drv.function = (decltype(drv.function))entry("cuModuleGetFunction");
    drv.prefer = (decltype(drv.prefer))entry("cuFuncSetCacheConfig");
    drv.set_node = (decltype(drv.set_node))entry("cuGraphKernelNodeSetParams");
    drv.unload = (decltype(drv.unload))entry("cuModuleUnload");
}
#define TEXT_(...) #__VA_ARGS__
#define TEXT(...) TEXT_(__VA_ARGS__)

/* The chain's kernels again, built by NVRTC and loaded as a module of their own: what the shim's
 * copies of an image are to the application's functions. */
static const char copy_source[] = "enum { ROWS = 256, COLS = 256, TILE = 3264 };\n" TEXT(KERNELS(_c));
static const char *const copy_names[3] = {"&one_block_c", "&row_sum_c", "&shared_tile_c"};

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

/* The nodes of g (a chain: every one a kernel node), in a new array of *n. */
static cudaGraphNode_t *nodes_of(cudaGraph_t g, size_t *n)
{
    *n = 0;
    CK(cudaGraphGetNodes(g, NULL, n));
    cudaGraphNode_t *v = (cudaGraphNode_t *)calloc(*n ? *n : 1, sizeof *v);
    CK(cudaGraphGetNodes(g, v, n));
    return v;
}

/* Each kernel node of exec (instantiated from g) set to the params of twin's node, replayed once, and set back. */
static void set_params_away_and_back(cudaGraphExec_t exec, cudaGraph_t g, cudaGraph_t twin)
{
    size_t n, m;
    cudaGraphNode_t *v = nodes_of(g, &n), *w = nodes_of(twin, &m);
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
    enum { FRESH, SAME, AWAY_BACK, MANY, SET_PARAMS, FROM_CLONE, KINDS };
    static const char *what[KINDS] = {
        "as instantiated", "updated from an identical clone", "updated to other functions and back",
        "the same, 1000 times", "exec node params set away and back", "instantiated from the clone"};
    cudaGraph_t g = capture(nodes, 0), twin = capture(nodes, 1), clone;
    CK(cudaGraphClone(&clone, g));
    cudaGraphExec_t e[KINDS];
    for (int k = 0; k < KINDS; k++)
        e[k] = instantiate(k == FROM_CLONE ? clone : g);
    update(e[SAME], clone);
    update(e[AWAY_BACK], twin);
    CK(cudaGraphLaunch(e[AWAY_BACK], st));
    update(e[AWAY_BACK], clone);
    for (int i = 0; i < 1000; i++) {
        update(e[MANY], twin);
        CK(cudaGraphLaunch(e[MANY], st));
        update(e[MANY], clone);
        CK(cudaGraphLaunch(e[MANY], st));
    }
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

/* PREFER_L1 (carveout < 0) or the carve-out on a shared-memory kernel, or its defaults back. */
static void set_tile(const void *fn, int on, int carveout)
{
    if (carveout < 0)
        CK(cudaFuncSetCacheConfig(fn, on ? cudaFuncCachePreferL1 : cudaFuncCachePreferNone));
    else
        CK(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, on ? carveout : -1));
}

static void preference(int carveout)
{
    cudaGraph_t g = capture(24, 0);
    cudaGraphExec_t e[2];
    e[0] = instantiate(g);
    set_tile((const void *)shared_tile_a, 1, carveout);
    cudaGraph_t with = capture(24, 0);
    e[1] = instantiate(with);
    double after[2], before[2];
    medians(e, 2, after); /* the first graph now runs with the setting made after its capture */
    set_tile((const void *)shared_tile_a, 0, carveout);
    medians(e, 2, before);
    const char *what = carveout < 0 ? "PREFER_L1" : "a carve-out of 0";
    printf("  %s set on the function after the capture: %.4fx; set before it: %.4fx\n", what,
           after[0] / before[0], before[1] / before[0]);
    for (int k = 0; k < 2; k++)
        CK(cudaGraphExecDestroy(e[k]));
    CK(cudaGraphDestroy(g));
    CK(cudaGraphDestroy(with));
}

/* How a turn sets node i of a clone away from its own params: to_twin, to_copy. */
typedef void (*away_fn)(cudaGraphNode_t node, size_t i, const cudaKernelNodeParams *own, const void *arg);

/* Each kernel node of a clone of g set away, exec updated to the clone and replayed, then the node set
 * back to g's and exec updated again: online mode's turns on a graph's replays. */
static void clone_nodes_away_and_back(cudaGraphExec_t exec, cudaGraph_t g, away_fn away, const void *arg)
{
    cudaGraph_t c;
    CK(cudaGraphClone(&c, g));
    size_t n, m;
    cudaGraphNode_t *v = nodes_of(c, &n), *o = nodes_of(g, &m);
    for (size_t i = 0; i < n && i < m; i++) {
        cudaKernelNodeParams own;
        CK(cudaGraphKernelNodeGetParams(o[i], &own));
        away(v[i], i, &own, arg);
        update(exec, c);
        CK(cudaGraphLaunch(exec, st));
        CK(cudaGraphKernelNodeSetParams(v[i], &own));
        update(exec, c);
    }
    free(v);
    free(o);
    CK(cudaGraphDestroy(c));
}

/* Away to the params of the twin's node i (arg: the twin's nodes). */
static void to_twin(cudaGraphNode_t node, size_t i, const cudaKernelNodeParams *own, const void *arg)
{
    (void)own;
    cudaKernelNodeParams other;
    CK(cudaGraphKernelNodeGetParams(((const cudaGraphNode_t *)arg)[i], &other));
    CK(cudaGraphKernelNodeSetParams(node, &other));
}

/* The twin chain captured with PREFER_L1 (or a carve-out of 0) on its shared-memory kernel: executable
 * graphs of the chain as captured without it, updated to the twin and back in each way the shim does. */
static void preference_through_updates(int carveout)
{
    enum { FRESH, AT_TWIN, AWAY_BACK, SET_PARAMS, CLONE_NODES, KINDS };
    static const char *what[KINDS] = {"as instantiated", "updated to the twin", "updated to the twin and back",
                                      "exec node params set to the twin's and back",
                                      "a clone's nodes set to the twin's and back"};
    cudaGraph_t g = capture(24, 0);
    set_tile((const void *)shared_tile_b, 1, carveout);
    cudaGraph_t twin = capture(24, 1);
    cudaGraphExec_t e[KINDS];
    for (int k = 0; k < KINDS; k++)
        e[k] = instantiate(g);
    update(e[AT_TWIN], twin);
    update(e[AWAY_BACK], twin);
    CK(cudaGraphLaunch(e[AWAY_BACK], st));
    update(e[AWAY_BACK], g);
    set_params_away_and_back(e[SET_PARAMS], g, twin);
    size_t m;
    cudaGraphNode_t *w = nodes_of(twin, &m);
    clone_nodes_away_and_back(e[CLONE_NODES], g, to_twin, w);
    free(w);
    CK(cudaStreamSynchronize(st));
    set_tile((const void *)shared_tile_b, 0, carveout);
    double med[KINDS];
    medians(e, KINDS, med);
    printf("  %s set on the twin before its capture:\n", carveout < 0 ? "PREFER_L1" : "a carve-out of 0");
    for (int k = 0; k < KINDS; k++) {
        printf("    %-46s %8.3f us a replay  %.4fx\n", what[k], med[k], med[k] / med[FRESH]);
        CK(cudaGraphExecDestroy(e[k]));
    }
    CK(cudaGraphDestroy(g));
    CK(cudaGraphDestroy(twin));
}

/* Each kernel node of g set again to its own params, in a clone of g (clone) or in exec (exec), while the
 * shared-memory kernel has PREFER_L1 (or a carve-out of 0) set on it, then the setting taken back. */
static void set_nodes_while(cudaGraph_t g, cudaGraph_t clone, cudaGraphExec_t exec, int carveout)
{
    size_t n, m = 0;
    cudaGraphNode_t *v = nodes_of(g, &n), *w = clone ? nodes_of(clone, &m) : NULL;
    set_tile((const void *)shared_tile_a, 1, carveout);
    for (size_t i = 0; i < n; i++) {
        cudaKernelNodeParams own;
        CK(cudaGraphKernelNodeGetParams(v[i], &own));
        if (clone)
            CK(cudaGraphKernelNodeSetParams(w[i], &own));
        else
            CK(cudaGraphExecKernelNodeSetParams(exec, v[i], &own));
    }
    set_tile((const void *)shared_tile_a, 0, carveout);
    free(v);
    free(w);
}

/* Whether a node takes the function's setting when it is set, as a capture does, and keeps it after the
 * function's is taken back: how a graph node gets launch-time knobs on the application's own function. */
static void preference_at_node_set(int carveout)
{
    enum { FRESH, CLONE_UPDATE, CLONE_INSTANTIATED, EXEC_SET, KINDS };
    static const char *what[KINDS] = {"as instantiated", "a clone's nodes set, exec updated to it",
                                      "the clone instantiated", "exec's nodes set"};
    cudaGraph_t g = capture(24, 0), c;
    CK(cudaGraphClone(&c, g));
    cudaGraphExec_t e[KINDS];
    e[FRESH] = instantiate(g);
    e[EXEC_SET] = instantiate(g);
    set_nodes_while(g, c, NULL, carveout);
    e[CLONE_UPDATE] = instantiate(g);
    update(e[CLONE_UPDATE], c);
    e[CLONE_INSTANTIATED] = instantiate(c);
    set_nodes_while(g, NULL, e[EXEC_SET], carveout);
    double med[KINDS];
    medians(e, KINDS, med);
    printf("  %s set on the function while nodes are set, then taken back:\n",
           carveout < 0 ? "PREFER_L1" : "a carve-out of 0");
    for (int k = 0; k < KINDS; k++) {
        printf("    %-46s %8.3f us a replay  %.4fx\n", what[k], med[k], med[k] / med[FRESH]);
        CK(cudaGraphExecDestroy(e[k]));
    }
    CK(cudaGraphDestroy(g));
    CK(cudaGraphDestroy(c));
}

/* The nodes of a clone given to cudaGraphExecKernelNodeSetParams once the graph the executable graph was
 * instantiated from is destroyed (as PyTorch destroys its own), PREFER_L1 set on the function meanwhile. */
static void set_through_clone(void)
{
    cudaGraph_t g = capture(24, 0), c;
    CK(cudaGraphClone(&c, g));
    cudaGraphExec_t e[2] = {instantiate(g), instantiate(g)};
    CK(cudaGraphDestroy(g));
    size_t n;
    cudaGraphNode_t *v = nodes_of(c, &n);
    cudaError_t first = cudaSuccess;
    set_tile((const void *)shared_tile_a, 1, -1);
    for (size_t i = 0; i < n; i++) {
        cudaKernelNodeParams own;
        CK(cudaGraphKernelNodeGetParams(v[i], &own));
        cudaError_t r = cudaGraphExecKernelNodeSetParams(e[1], v[i], &own);
        if (first == cudaSuccess)
            first = r;
    }
    set_tile((const void *)shared_tile_a, 0, -1);
    cudaGetLastError();
    double med[2];
    medians(e, 2, med);
    printf("  exec node params set through a clone's nodes, its own graph destroyed: %s, %.4fx\n",
           cudaGetErrorString(first), med[1] / med[0]);
    free(v);
    CK(cudaGraphExecDestroy(e[0]));
    CK(cudaGraphExecDestroy(e[1]));
    CK(cudaGraphDestroy(c));
}

/* The chain's kernels built again and loaded as a module: fn[0..2] one_block, row_sum, shared_tile. */
static CUmodule load_copy(CUfunction fn[3])
{
    nvrtcProgram prog;
    CKD(nvrtcCreateProgram(&prog, copy_source, "copy.cu", 0, NULL, NULL));
    for (int k = 0; k < 3; k++)
        CKD(nvrtcAddNameExpression(prog, copy_names[k]));
    const char *opts[] = {"-arch=sm_90"};
    CKD(nvrtcCompileProgram(prog, 1, opts));
    size_t size = 0;
    CKD(nvrtcGetCUBINSize(prog, &size));
    char *cubin = (char *)malloc(size);
    CKD(nvrtcGetCUBIN(prog, cubin));
    CUmodule m;
    CKD(drv.load(&m, cubin));
    for (int k = 0; k < 3; k++) {
        const char *lowered;
        CKD(nvrtcGetLoweredName(prog, copy_names[k], &lowered));
        CKD(drv.function(&fn[k], m, lowered));
    }
    free(cubin);
    CKD(nvrtcDestroyProgram(&prog));
    return m;
}

/* Away to the copy's function of the node's kernel (arg: the copy's functions, as load_copy gives them). */
static void to_copy(cudaGraphNode_t node, size_t i, const cudaKernelNodeParams *own, const void *arg)
{
    (void)i;
    const CUfunction *fn = (const CUfunction *)arg;
    const void *kernels[3] = {(const void *)one_block_a, (const void *)row_sum_a, (const void *)shared_tile_a};
    CUDA_KERNEL_NODE_PARAMS q;
    memset(&q, 0, sizeof q);
    q.func = fn[own->func == kernels[0] ? 0 : own->func == kernels[1] ? 1 : 2];
    q.gridDimX = own->gridDim.x, q.gridDimY = own->gridDim.y, q.gridDimZ = own->gridDim.z;
    q.blockDimX = own->blockDim.x, q.blockDimY = own->blockDim.y, q.blockDimZ = own->blockDim.z;
    q.sharedMemBytes = own->sharedMemBytes;
    q.kernelParams = own->kernelParams;
    CKD(drv.set_node((CUgraphNode)node, &q));
}

/* Executable graphs of the chain whose nodes each took turns with a copy of the kernels in a module of
 * their own, as online mode's turns do: the copy kept, the copy's functions preferring L1, and the copy
 * unloaded once the replays are done, each against a graph never updated. */
static void module_copies(void)
{
    enum { FRESH, KEPT, PREFERRING, UNLOADED, KINDS };
    static const char *what[KINDS] = {"as instantiated", "a copy's functions and back, the copy kept",
                                      "the same, the copy preferring L1", "the same, the copy unloaded"};
    cudaGraph_t g = capture(24, 0);
    cudaGraphExec_t e[KINDS];
    CUfunction fn[KINDS][3];
    CUmodule m[KINDS];
    for (int k = 0; k < KINDS; k++) {
        e[k] = instantiate(g);
        if (k == FRESH)
            continue;
        m[k] = load_copy(fn[k]);
        for (int f = 0; k == PREFERRING && f < 3; f++)
            CKD(drv.prefer(fn[k][f], CU_FUNC_CACHE_PREFER_L1));
        clone_nodes_away_and_back(e[k], g, to_copy, fn[k]);
    }
    CK(cudaStreamSynchronize(st));
    CKD(drv.unload(m[UNLOADED]));
    double med[KINDS];
    medians(e, KINDS, med);
    printf("\n24 kernel nodes, each updated to a copy of its kernel in a module of its own and back:\n");
    for (int k = 0; k < KINDS; k++) {
        printf("  %-46s %8.3f us a replay  %.4fx\n", what[k], med[k], med[k] / med[FRESH]);
        CK(cudaGraphExecDestroy(e[k]));
    }
    CKD(drv.unload(m[KEPT]));
    CKD(drv.unload(m[PREFERRING]));
    CK(cudaGraphDestroy(g));
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
    driver_entries();
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CK(cudaMalloc(&buf, ROWS * COLS * sizeof(float)));
    CK(cudaMalloc(&in, (ROWS * COLS + 4096) * sizeof(float)));
    CK(cudaMalloc(&out, 192 * 128 * sizeof(float)));
    CK(cudaMemset(buf, 0, ROWS * COLS * sizeof(float)));
    CK(cudaMemset(in, 0, (ROWS * COLS + 4096) * sizeof(float)));
    updates(24);
    updates(4);
    module_copies();
    printf("\nthe shared-memory kernel's settings, 24 nodes:\n");
    preference(-1);
    preference(0);
    preference_through_updates(-1);
    preference_through_updates(0);
    preference_at_node_set(-1);
    preference_at_node_set(0);
    set_through_clone();
    sticky_carveout();
    set_during_capture();
    return 0;
}
