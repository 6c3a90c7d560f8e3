/* minirt: a miniature CUDA runtime, to test the interposition without a GPU.
 *
 * It reaches the driver exactly as the CUDA runtime does: dlopen of
 * libcuda.so.1, dlsym of cuGetProcAddress_v2, every other entry point
 * through that (with the per-thread-stream flag under --ptsz), a fatbin
 * wrapper loaded with cuLibraryLoadData, CUkernel handles launched directly.
 * Run against tests/helpers/fakecuda.c, it prints what the shim must report:
 *
 *   minirt [--ptsz] [--threads N]   launch the fixed workload below
 *   minirt --copy                   launch copy(n, a, x, y) once, then check
 *                                   that y holds what the application left in
 *                                   it (the stand-in driver computes nothing)
 *   minirt --driver NAME            load the driver under another name (a
 *                                   missing one: a machine with no driver)
 *   minirt --load LIB ...           dlopen LIB first, as an application that
 *                                   loads its own NVRTC does (in the order
 *                                   given), then the fixed workload
 *   minirt --probe                  tell which symbols dlsym(RTLD_DEFAULT) finds
 *   minirt --nodes                  the fixed workload, then a graph built by
 *                                   hand: a kernel node of scale, added and
 *                                   set again
 *   minirt --graph                  capture copy(n, a, x, y) at grid 8 into a
 *                                   graph (never launched directly), instantiate
 *                                   it, destroy the graph (as PyTorch does) and
 *                                   launch the executable graph 40 times
 *                                   (N times with --copies N, MS
 *                                   milliseconds apart with --pace MS;
 *                                   with --two-nodes, copy at grid 16
 *                                   after it too: two signatures; with
 *                                   --eager K, each launched K times
 *                                   directly first, as a framework's
 *                                   warm-up before its capture; with
 *                                   --two-streams, launched on the
 *                                   default stream and one of its own by
 *                                   turns; with --app-update K, the
 *                                   graph kept and the executable graph
 *                                   updated to it before the K-th launch;
 *                                   with --reset, the device's primary
 *                                   context reset after the launches,
 *                                   before the executable graph is
 *                                   destroyed)
 *   minirt --spread G N             launch saxpy at grids 1..G in turn, N
 *                                   rounds, and print the nanoseconds a
 *                                   launch took (the launch path of a
 *                                   framework's steady state, whose
 *                                   kernels come in many geometries)
 *   minirt --spread G N --thrash KB the same, KB kilobytes of memory written
 *                                   between launches, as a framework's own
 *                                   work between its launches evicts the
 *                                   shim's data from the CPU's caches
 *   minirt --copies N               launch copy(n, a, x, y) at grid 8 N times,
 *                                   x holding 1, 2, 3, ...
 *   minirt --copies N --pace MS     the same, MS milliseconds apart, as an
 *                                   application whose launches come while
 *                                   the shim's builds run on its threads
 *   minirt --copies N --reset       the same, the device's primary context reset
 *                                   right after the launches, without waiting for them
 *   minirt --copies N --release     the same, the device's primary context
 *                                   retained before the launches and released
 *                                   right after them, without waiting for them,
 *                                   as a program that holds it itself ends
 *   minirt --copies N --late M      the same, then M launches at grid 16, as a
 *                                   kernel that meets a new geometry late
 *   minirt --copies N --reset --after M
 *                                   the same, then M launches more, as the same
 *                                   kernel's after a reload (the stand-in's
 *                                   handles outlive a reset)
 *   minirt --copies N --two-contexts
 *                                   the same, the launches alternating between
 *                                   the primary context and one more (the
 *                                   stand-in's memory serves both)
 *   minirt --copies N --suspend-every K
 *                                   the same, the shim suspended (gputune_suspend)
 *                                   for every second block of K launches: the
 *                                   2nd, the 4th, ...; each launch sets the
 *                                   state first and checks that the call
 *                                   returns the one before (--graph takes it too)
 *   minirt --cubin FILE             load FILE's bytes with cuModuleLoadData, as
 *                                   Triton loads a kernel, and launch its
 *                                   scale(n, a, x, y) three times
 *   minirt --cubin-path FILE        the same, FILE loaded by its path with
 *                                   cuModuleLoad, as TorchInductor loads the
 *                                   cubins in Triton's cache
 *   minirt --mix                    saxpy at grid 8 once a round for 4 rounds,
 *                                   then at grid 16 five times a round and at
 *                                   grid 8 once, for 4 rounds: grid 16 is the
 *                                   hotter though measured later
 *   minirt --where                  say which library cuLaunchKernel came from
 *                                   (the shim's or the driver's), then as
 *                                   without it
 *   minirt --threads N --forks M    while N threads launch kernels of ever new
 *                                   signatures, fork M children: every other one
 *                                   launches, allocates and exits, the rest only
 *                                   exit; a child not done 30 s after the last
 *                                   fork counts as hung and is killed
 */
#define CUDA_ENABLE_DEPRECATED
#include <cuda.h>
#include <cudaTypedefs.h>
#undef cuGetProcAddress

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* scale() takes no parameters (its launches pass none); copy(n, a, x, y)
 * reads x and only writes y, in the stand-in driver's default layout. */
#define PTX                                                                                      \
    ".version 8.0\n.target sm_75\n.address_size 64\n\n.visible .entry scale()\n{\n\tret;\n}\n\n" \
    ".visible .entry copy(.param .u32 n, .param .f32 a, .param .u64 x, .param .u64 y)\n{\n"      \
    "\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<6>;\n\t.reg .f32 %f<2>;\n"                              \
    "\tld.param.u64 %rd1, [x];\n\tld.param.u64 %rd2, [y];\n\tmov.u32 %r1, %tid.x;\n"             \
    "\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd1, %rd3;\n\tadd.s64 %rd5, %rd2, %rd3;\n"   \
    "\tld.global.f32 %f1, [%rd4];\n\tst.global.f32 [%rd5], %f1;\n\tret;\n}\n"
#define PTX_PADDED ((sizeof PTX + 7) & ~(size_t)7)

struct fatbin_entry {
    uint16_t kind, unknown;
    uint32_t header_size;
    uint64_t size;
    uint32_t compressed, unknown2;
    uint16_t minor, major;
    uint32_t arch, name_offset, name_size;
    uint64_t flags, zero, uncompressed;
};

/* One uncompressed PTX entry for compute_75, as nvcc lays it out. */
static const struct {
    uint32_t magic;
    uint16_t version, header_size;
    uint64_t size;
    struct fatbin_entry entry;
    char text[PTX_PADDED];
} fatbin __attribute__((aligned(8))) = {
    0xBA55ED50u, 1, 16, sizeof(struct fatbin_entry) + PTX_PADDED,
    {1, 0x101, 64, PTX_PADDED, 0, 0, 0, 8, 75, 0, 0, 0x11, 0, 0},
    PTX,
};

static const struct {
    uint32_t magic, version;
    const void *data, *unused;
} wrapper = {0x466243B1u, 1, &fatbin, NULL};

static struct {
    PFN_cuGetProcAddress_v12000 getProcAddress;
    PFN_cuInit_v2000 init;
    PFN_cuLibraryLoadData_v12000 libraryLoadData;
    PFN_cuLibraryUnload_v12000 libraryUnload;
    PFN_cuLibraryGetKernel_v12000 libraryGetKernel;
    PFN_cuLibraryGetModule_v12000 libraryGetModule;
    PFN_cuKernelGetFunction_v12000 kernelGetFunction;
    PFN_cuKernelSetAttribute_v12000 kernelSetAttribute;
    PFN_cuFuncSetCacheConfig_v3000 funcSetCacheConfig;
    PFN_cuLaunchKernel_v4000 launchKernel;
    PFN_cuLaunchKernelEx_v11060 launchKernelEx;
    PFN_cuLaunchCooperativeKernel_v9000 launchCooperativeKernel;
    PFN_cuMemAlloc_v3020 memAlloc;
    PFN_cuMemFree_v3020 memFree;
    PFN_cuMemAllocAsync_v11020 memAllocAsync;
    PFN_cuMemFreeAsync_v11020 memFreeAsync;
    PFN_cuStreamCreate_v2000 streamCreate;
    PFN_cuStreamBeginCapture_v10010 streamBeginCapture;
    PFN_cuStreamEndCapture_v10000 streamEndCapture;
    PFN_cuCtxSynchronize_v2000 ctxSynchronize;
    PFN_cuDevicePrimaryCtxReset_v11000 primaryCtxReset;
    PFN_cuDevicePrimaryCtxRetain_v7000 primaryCtxRetain;
    PFN_cuDevicePrimaryCtxRelease_v11000 primaryCtxRelease;
    PFN_cuCtxGetCurrent_v4000 ctxGetCurrent;
    PFN_cuCtxCreate_v3020 ctxCreate;
    PFN_cuCtxSetCurrent_v4000 ctxSetCurrent;
    PFN_cuGraphCreate_v10000 graphCreate;
    PFN_cuGraphDestroy_v10000 graphDestroy;
    PFN_cuGraphAddKernelNode_v12000 graphAddKernelNode;
    PFN_cuGraphKernelNodeSetParams_v12000 graphKernelNodeSetParams;
    PFN_cuGraphInstantiateWithFlags_v11040 graphInstantiate;
    PFN_cuGraphLaunch_v10000 graphLaunch;
    PFN_cuGraphExecDestroy_v10000 graphExecDestroy;
    PFN_cuGraphExecUpdate_v12000 graphExecUpdate;
    PFN_cuModuleLoadData_v2000 moduleLoadData;
    PFN_cuModuleLoad_v2000 moduleLoad;
    PFN_cuModuleGetFunction_v2000 moduleGetFunction;
} cu;

static CUkernel saxpy, scale, fill, copy;

static void check(const char *what, CUresult r)
{
    if (r != CUDA_SUCCESS) {
        printf("minirt: %s -> %d\n", what, (int)r);
        exit(4);
    }
}

static void resolve(void **slot, const char *name, cuuint64_t flags)
{
    CUdriverProcAddressQueryResult st;
    check(name, cu.getProcAddress(name, slot, 12000, flags, &st));
}

static void launch(CUkernel k, unsigned grid, unsigned block)
{
    check("cuLaunchKernel", cu.launchKernel((CUfunction)k, grid, 1, 1, block, 1, 1, 0, NULL, NULL, NULL));
}

static atomic_int forking; /* --forks: threads launch until the last child is forked */
static CUdeviceptr copy_x, copy_y;

/* copy(n, a, x, y) over the first n floats of x and y. */
static void launch_copy(unsigned grid)
{
    int n = (int)grid * 256;
    float a = 1;
    void *args[] = {&n, &a, &copy_x, &copy_y};
    check("cuLaunchKernel", cu.launchKernel((CUfunction)copy, grid, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
}

static void *thread_main(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++)
        launch(saxpy, 4, 256);
    /* Under --forks, new signatures keep tune mode's sessions (and their
     * builds) going while children are forked. */
    for (unsigned i = 0; atomic_load(&forking); i++) {
        launch(saxpy, 1 + i % 64, 128);
        launch_copy(1 + i % 64);
    }
    return NULL;
}

/* A forked child: calls the driver through the pointers its parent
 * resolved, or only exits; exit() runs every exit handler either way. */
static void child(int calls)
{
    if (calls) {
        CUdeviceptr p;
        for (int i = 0; i < 10; i++)
            launch(saxpy, 4, 256);
        check("cuMemAlloc", cu.memAlloc(&p, 4096));
        check("cuMemFree", cu.memFree(p));
        check("cuCtxSynchronize", cu.ctxSynchronize());
    }
    exit(0);
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Forks n children, then waits for them all; says how many hung or failed. */
static int run_forks(int n)
{
    enum { MAX = 1000 };
    pid_t pids[MAX];
    int hung = 0, failed = 0, left = 0;
    for (int i = 0; i < n && i < MAX; i++) {
        pids[i] = fork();
        if (pids[i] == 0)
            child(i % 2 == 0);
        left += pids[i] > 0;
        failed += pids[i] < 0;
        nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL); /* spread over the sessions */
    }
    for (double deadline = seconds() + 30; left > 0 && seconds() < deadline;) {
        for (int i = 0; i < n && i < MAX; i++) {
            int st;
            if (pids[i] > 0 && waitpid(pids[i], &st, WNOHANG) == pids[i]) {
                failed += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
                pids[i] = 0;
                left--;
            }
        }
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    for (int i = 0; i < n && i < MAX; i++) {
        if (pids[i] > 0) {
            kill(pids[i], SIGKILL);
            waitpid(pids[i], NULL, 0);
            hung++;
        }
    }
    printf("minirt: %d children: %d hung, %d failed\n", n, hung, failed);
    return hung || failed ? 7 : 0;
}

/* copy(n, a, x, y) over a megabyte; y must keep the bytes the application
 * wrote (through the stand-in driver's memory, which is the host's). */
static int run_copy(CUdeviceptr x, CUdeviceptr y)
{
    enum { BYTES = 1 << 20 };
    int n = BYTES / 4;
    float a = 2;
    void *args[] = {&n, &a, &x, &y};
    memset((void *)(uintptr_t)y, 0x5a, BYTES);
    check("cuLaunchKernel", cu.launchKernel((CUfunction)copy, n / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    check("cuCtxSynchronize", cu.ctxSynchronize());
    const unsigned char *got = (const unsigned char *)(uintptr_t)y;
    for (int i = 0; i < BYTES; i++) {
        if (got[i] != 0x5a) {
            printf("minirt: copy left byte %d of y 0x%02x, not 0x5a\n", i, got[i]);
            return 6;
        }
    }
    return 0;
}

static int probe(void)
{
    static const char *const names[] = {"cuInit", "cuLaunchKernel", "nvrtcGetPTX", "gputune_version"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        printf("%s %s\n", names[i], dlsym(RTLD_DEFAULT, names[i]) ? "found" : "absent");
    return 0;
}

/* Returns 0 in the child; the parent waits for it and exits as it did. */
static int in_child(void)
{
    int st;
    pid_t pid = fork();
    if (pid == 0)
        return 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    exit(WEXITSTATUS(st));
}

/* --suspend-every: gputune_suspend(on), checked to return the state before
 * (was); exits when the shim does not export it or it returns another. */
static void suspend(int on, int was)
{
    static int (*set)(int);
    if (!set && !(set = (int (*)(int))dlsym(RTLD_DEFAULT, "gputune_suspend"))) {
        printf("minirt: no gputune_suspend\n");
        exit(3);
    }
    int got = set(on);
    if (got != was) {
        printf("minirt: gputune_suspend(%d) returned %d, not %d\n", on, got, was);
        exit(9);
    }
}

/* --suspend-every: before the i-th launch, the shim suspended for every
 * second block of `every` launches (none when every is 0); counts those
 * suspended in *n. */
static void suspend_turn(int i, int every, int *n)
{
    if (every <= 0)
        return;
    int on = i / every % 2;
    suspend(on, i == 0 ? 0 : (i - 1) / every % 2);
    *n += on;
}

/* Says how many launches were suspended, if any could be. */
static void say_suspended(int every, int n)
{
    if (every > 0)
        printf("minirt: %d launches suspended\n", n);
}

/* One byte of each cache line of kb kilobytes written. */
static void thrash(int kb)
{
    static volatile unsigned char *mem;
    if (kb <= 0 || (!mem && !(mem = calloc((size_t)kb, 1024))))
        return;
    for (size_t i = 0; i < (size_t)kb * 1024; i += 64)
        mem[i]++;
}

/* --spread: saxpy at grids 1..g in turn, n rounds, timed. */
static int run_spread(int g, int n, int thrash_kb)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < n; i++)
        for (int k = 1; k <= g; k++) {
            thrash(thrash_kb);
            launch(saxpy, (unsigned)k, 128);
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / ((double)g * n);
    check("cuCtxSynchronize", cu.ctxSynchronize());
    printf("minirt: %d launches, %.1f ns a launch\n", g * n, ns);
    printf("minirt: done\n");
    return 0;
}

/* --copies and what goes with it. */
struct copies {
    int n, pace_ms, suspend_every, reset, release, after, late, two_contexts, two_nodes, eager, two_streams, app_update;
};

/* --copies: copy(n, a, x, y) at grid 8 n times, x holding 1, 2, 3, ...;
 * with suspend_every, every second block of that many with the shim suspended. */
static int run_copies(const struct copies *o, CUdeviceptr x, CUdeviceptr y)
{
    int suspended = 0;
    CUcontext ctx[2] = {NULL, NULL};
    if (o->release)
        check("cuDevicePrimaryCtxRetain", cu.primaryCtxRetain(&ctx[0], 0));
    if (o->two_contexts) {
        check("cuCtxGetCurrent", cu.ctxGetCurrent(&ctx[0]));
        check("cuCtxCreate", cu.ctxCreate(&ctx[1], 0, 0));
    }
    copy_x = x;
    copy_y = y;
    float *xs = (float *)(uintptr_t)copy_x; /* the stand-in driver's memory is the host's */
    for (int i = 0; i < 8 * 256; i++)
        xs[i] = 1.0f + (float)i;
    for (int i = 0; i < o->n; i++) {
        suspend_turn(i, o->suspend_every, &suspended);
        if (o->two_contexts)
            check("cuCtxSetCurrent", cu.ctxSetCurrent(ctx[i & 1]));
        launch_copy(8);
        if (o->pace_ms > 0)
            nanosleep(&(struct timespec){.tv_sec = o->pace_ms / 1000, .tv_nsec = o->pace_ms % 1000 * 1000000L},
                      NULL);
    }
    if (o->reset)
        check("cuDevicePrimaryCtxReset", cu.primaryCtxReset(0));
    if (o->release)
        check("cuDevicePrimaryCtxRelease", cu.primaryCtxRelease(0));
    for (int i = 0; i < o->after; i++)
        launch_copy(8);
    for (int i = 0; i < o->late; i++)
        launch_copy(16);
    if (!(o->reset || o->release) || o->after)
        check("cuCtxSynchronize", cu.ctxSynchronize());
    say_suspended(o->suspend_every, suspended);
    printf("minirt: done\n");
    return 0;
}

/* --graph: copy captured into a graph, which alone runs it; with
 * suspend_every, as --copies. */
static int run_graph(const struct copies *o, CUdeviceptr x, CUdeviceptr y)
{
    CUgraph g;
    CUgraphExec e;
    int suspended = 0;
    copy_x = x;
    copy_y = y;
    for (int i = 0; i < o->eager; i++) {
        launch_copy(8);
        if (o->two_nodes)
            launch_copy(16);
    }
    check("cuStreamBeginCapture", cu.streamBeginCapture(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL));
    launch_copy(8);
    if (o->two_nodes)
        launch_copy(16);
    check("cuStreamEndCapture", cu.streamEndCapture(NULL, &g));
    check("cuGraphInstantiate", cu.graphInstantiate(&e, g, 0));
    if (!o->app_update)
        check("cuGraphDestroy", cu.graphDestroy(g));
    CUstream other = NULL;
    if (o->two_streams)
        check("cuStreamCreate", cu.streamCreate(&other, 0));
    for (int i = 0; i < (o->n ? o->n : 40); i++) {
        suspend_turn(i, o->suspend_every, &suspended);
        if (o->app_update && i + 1 == o->app_update) {
            CUgraphExecUpdateResultInfo info;
            check("cuGraphExecUpdate", cu.graphExecUpdate(e, g, &info));
        }
        check("cuGraphLaunch", cu.graphLaunch(e, i % 2 ? other : NULL));
        if (o->pace_ms > 0)
            nanosleep(&(struct timespec){.tv_sec = o->pace_ms / 1000, .tv_nsec = o->pace_ms % 1000 * 1000000L},
                      NULL);
    }
    if (o->reset)
        check("cuDevicePrimaryCtxReset", cu.primaryCtxReset(0));
    else
        check("cuCtxSynchronize", cu.ctxSynchronize());
    check("cuGraphExecDestroy", cu.graphExecDestroy(e));
    if (o->app_update)
        check("cuGraphDestroy", cu.graphDestroy(g));
    say_suspended(o->suspend_every, suspended);
    printf("minirt: done\n");
    return 0;
}

/* --cubin: FILE's bytes loaded as a module (by its path: by_path), its
 * scale launched three times. */
static int run_cubin(const char *path, int by_path, CUdeviceptr x, CUdeviceptr y)
{
    static char bytes[1 << 22];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(bytes, 1, sizeof bytes, f) : 0;
    if (f)
        fclose(f);
    if (!n) {
        printf("minirt: cannot read %s\n", path);
        return 3;
    }
    CUmodule m;
    CUfunction fn;
    if (by_path)
        check("cuModuleLoad", cu.moduleLoad(&m, path));
    else
        check("cuModuleLoadData", cu.moduleLoadData(&m, bytes));
    check("cuModuleGetFunction", cu.moduleGetFunction(&fn, m, "scale"));
    unsigned count = 256;
    float a = 2;
    void *args[] = {&count, &a, &x, &y};
    for (int i = 0; i < 3; i++)
        check("cuLaunchKernel", cu.launchKernel(fn, 1, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    check("cuCtxSynchronize", cu.ctxSynchronize());
    printf("minirt: done\n");
    return 0;
}

int main(int argc, char **argv)
{
    cuuint64_t flags = CU_GET_PROC_ADDRESS_DEFAULT;
    int nthreads = 0, copy_only = 0, nforks = -1, mix = 0, nodes = 0, graph_only = 0;
    struct copies cp = {0};
    const char *cubin = NULL;
    int by_path = 0, spread_g = 0, spread_n = 0, thrash_kb = 0, where = 0;
    const char *driver = "libcuda.so.1";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--probe") == 0)
            return probe();
        if (strcmp(argv[i], "--copy") == 0)
            copy_only = 1;
        if (strcmp(argv[i], "--mix") == 0)
            mix = 1;
        if (strcmp(argv[i], "--where") == 0)
            where = 1;
        if (strcmp(argv[i], "--nodes") == 0)
            nodes = 1;
        if (strcmp(argv[i], "--graph") == 0)
            graph_only = 1;
        if (strcmp(argv[i], "--copies") == 0 && i + 1 < argc)
            cp.n = atoi(argv[++i]);
        if (strcmp(argv[i], "--spread") == 0 && i + 2 < argc) {
            spread_g = atoi(argv[++i]);
            spread_n = atoi(argv[++i]);
        }
        if (strcmp(argv[i], "--thrash") == 0 && i + 1 < argc)
            thrash_kb = atoi(argv[++i]);
        if (strcmp(argv[i], "--reset") == 0)
            cp.reset = 1;
        if (strcmp(argv[i], "--release") == 0)
            cp.release = 1;
        if (strcmp(argv[i], "--after") == 0 && i + 1 < argc)
            cp.after = atoi(argv[++i]);
        if (strcmp(argv[i], "--late") == 0 && i + 1 < argc)
            cp.late = atoi(argv[++i]);
        if (strcmp(argv[i], "--eager") == 0 && i + 1 < argc)
            cp.eager = atoi(argv[++i]);
        if (strcmp(argv[i], "--two-nodes") == 0)
            cp.two_nodes = 1;
        if (strcmp(argv[i], "--two-streams") == 0)
            cp.two_streams = 1;
        if (strcmp(argv[i], "--app-update") == 0 && i + 1 < argc)
            cp.app_update = atoi(argv[++i]);
        if (strcmp(argv[i], "--two-contexts") == 0)
            cp.two_contexts = 1;
        if (strcmp(argv[i], "--pace") == 0 && i + 1 < argc)
            cp.pace_ms = atoi(argv[++i]);
        if (strcmp(argv[i], "--suspend-every") == 0 && i + 1 < argc)
            cp.suspend_every = atoi(argv[++i]);
        if ((strcmp(argv[i], "--cubin") == 0 || strcmp(argv[i], "--cubin-path") == 0) && i + 1 < argc) {
            by_path = strcmp(argv[i], "--cubin-path") == 0;
            cubin = argv[++i];
        }
        if (strcmp(argv[i], "--ptsz") == 0)
            flags = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            nthreads = atoi(argv[++i]);
        if (strcmp(argv[i], "--in-child") == 0 && in_child() != 0)
            return 8;
        if (strcmp(argv[i], "--forks") == 0 && i + 1 < argc)
            nforks = atoi(argv[++i]);
        if (strcmp(argv[i], "--driver") == 0 && i + 1 < argc)
            driver = argv[++i];
        if (strcmp(argv[i], "--load") == 0 && i + 1 < argc && !dlopen(argv[++i], RTLD_NOW | RTLD_LOCAL)) {
            printf("minirt: cannot load %s: %s\n", argv[i], dlerror());
            return 3;
        }
    }
    void *h = dlopen(driver, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("minirt: no driver: %s\n", dlerror());
        return 3;
    }
    PFN_cuGetProcAddress_v12000 bootstrap = (PFN_cuGetProcAddress_v12000)dlsym(h, "cuGetProcAddress_v2");
    if (!bootstrap) {
        printf("minirt: no cuGetProcAddress_v2\n");
        return 3;
    }
    cu.getProcAddress = bootstrap;
    resolve((void **)&cu.getProcAddress, "cuGetProcAddress", flags);
#define R(field, name) resolve((void **)&cu.field, name, flags)
    R(init, "cuInit");
    R(libraryLoadData, "cuLibraryLoadData");
    R(libraryUnload, "cuLibraryUnload");
    R(libraryGetKernel, "cuLibraryGetKernel");
    R(libraryGetModule, "cuLibraryGetModule");
    R(kernelGetFunction, "cuKernelGetFunction");
    R(kernelSetAttribute, "cuKernelSetAttribute");
    R(funcSetCacheConfig, "cuFuncSetCacheConfig");
    R(launchKernel, "cuLaunchKernel");
    R(launchKernelEx, "cuLaunchKernelEx");
    R(launchCooperativeKernel, "cuLaunchCooperativeKernel");
    R(memAlloc, "cuMemAlloc");
    R(memFree, "cuMemFree");
    R(memAllocAsync, "cuMemAllocAsync");
    R(memFreeAsync, "cuMemFreeAsync");
    R(streamCreate, "cuStreamCreate");
    R(streamBeginCapture, "cuStreamBeginCapture");
    R(streamEndCapture, "cuStreamEndCapture");
    R(ctxSynchronize, "cuCtxSynchronize");
    R(primaryCtxReset, "cuDevicePrimaryCtxReset");
    R(primaryCtxRetain, "cuDevicePrimaryCtxRetain");
    R(primaryCtxRelease, "cuDevicePrimaryCtxRelease");
    R(ctxGetCurrent, "cuCtxGetCurrent");
    R(ctxCreate, "cuCtxCreate");
    R(ctxSetCurrent, "cuCtxSetCurrent");
    R(graphCreate, "cuGraphCreate");
    R(graphDestroy, "cuGraphDestroy");
    R(graphAddKernelNode, "cuGraphAddKernelNode");
    R(graphKernelNodeSetParams, "cuGraphKernelNodeSetParams");
    R(graphInstantiate, "cuGraphInstantiate");
    R(graphLaunch, "cuGraphLaunch");
    R(graphExecDestroy, "cuGraphExecDestroy");
    R(graphExecUpdate, "cuGraphExecUpdate");
    R(moduleLoadData, "cuModuleLoadData");
    R(moduleLoad, "cuModuleLoad");
    R(moduleGetFunction, "cuModuleGetFunction");
#undef R
    Dl_info from;
    if (where && dladdr((void *)cu.launchKernel, &from) && from.dli_fname)
        printf("minirt: cuLaunchKernel from %s\n", strrchr(from.dli_fname, '/') ? strrchr(from.dli_fname, '/') + 1
                                                                                : from.dli_fname);
    if ((void *)cu.ctxSynchronize != dlsym(h, "cuCtxSynchronize")) {
        printf("minirt: cuCtxSynchronize was replaced\n");
        return 5;
    }
    check("cuInit", cu.init(0));

    CUlibrary lib;
    CUmodule mod;
    CUfunction fill_fn;
    check("cuLibraryLoadData", cu.libraryLoadData(&lib, &wrapper, NULL, NULL, 0, NULL, NULL, 0));
    check("cuLibraryGetKernel", cu.libraryGetKernel(&saxpy, lib, "_Z5saxpyifPKfPf"));
    check("cuLibraryGetKernel", cu.libraryGetKernel(&scale, lib, "scale"));
    check("cuLibraryGetKernel", cu.libraryGetKernel(&fill, lib, "_Z4fillIfEvPT_S0_i"));
    check("cuLibraryGetKernel", cu.libraryGetKernel(&copy, lib, "copy"));
    check("cuLibraryGetModule", cu.libraryGetModule(&mod, lib));
    check("cuKernelGetFunction", cu.kernelGetFunction(&fill_fn, fill));
    check("cuKernelSetAttribute",
          cu.kernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 65536, saxpy, 0));
    check("cuFuncSetCacheConfig", cu.funcSetCacheConfig(fill_fn, CU_FUNC_CACHE_PREFER_L1));

    CUdeviceptr buf[3], abuf;
    for (int i = 0; i < 3; i++)
        check("cuMemAlloc", cu.memAlloc(&buf[i], 1 << 20));
    check("cuMemAllocAsync", cu.memAllocAsync(&abuf, 2 << 20, NULL));
    if (copy_only) {
        int rc = run_copy(buf[1], buf[2]);
        if (rc == 0)
            printf("minirt: done\n");
        return rc;
    }

    if (cubin)
        return run_cubin(cubin, by_path, buf[1], buf[2]);
    if (graph_only)
        return run_graph(&cp, buf[1], buf[2]);
    if (spread_g > 0 && spread_n > 0)
        return run_spread(spread_g, spread_n, thrash_kb);
    if (cp.n)
        return run_copies(&cp, buf[1], buf[2]);
    if (mix) {
        for (int round = 0; round < 8; round++) {
            for (int i = 0; round >= 4 && i < 5; i++)
                launch(saxpy, 16, 128);
            launch(saxpy, 8, 128);
        }
        check("cuCtxSynchronize", cu.ctxSynchronize());
        printf("minirt: done\n");
        return 0;
    }

    /* saxpy: 120 launches in 3 geometries; scale: 7 + 1 cooperative + 2
     * captured in 1 geometry; fill: 5 through its CUfunction + 1 through
     * cuLaunchKernelEx, 2 geometries. */
    for (unsigned n = 1; n <= 3; n++)
        for (int i = 0; i < 40; i++)
            launch(saxpy, n * 8, 128);
    for (int i = 0; i < 7; i++)
        launch(scale, 16, 256);
    check("cuLaunchCooperativeKernel",
          cu.launchCooperativeKernel((CUfunction)scale, 16, 1, 1, 256, 1, 1, 0, NULL, NULL));
    for (int i = 0; i < 5; i++)
        check("cuLaunchKernel", cu.launchKernel(fill_fn, 2, 2, 1, 64, 1, 1, 128, NULL, NULL, NULL));
    CUlaunchConfig cfg = {.gridDimX = 3, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 32, .blockDimY = 1, .blockDimZ = 1};
    check("cuLaunchKernelEx", cu.launchKernelEx(&cfg, (CUfunction)fill, NULL, NULL));
    CUgraph graph;
    check("cuStreamBeginCapture", cu.streamBeginCapture(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL));
    launch(scale, 16, 256);
    launch(scale, 16, 256);
    check("cuStreamEndCapture", cu.streamEndCapture(NULL, &graph));
    if (nodes) {
        CUgraph g;
        CUgraphNode node;
        CUDA_KERNEL_NODE_PARAMS np = {.gridDimX = 16, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 256, .blockDimY = 1,
                                      .blockDimZ = 1, .kern = scale};
        check("cuGraphCreate", cu.graphCreate(&g, 0));
        check("cuGraphAddKernelNode", cu.graphAddKernelNode(&node, g, NULL, 0, &np));
        check("cuGraphKernelNodeSetParams", cu.graphKernelNodeSetParams(node, &np));
        check("cuGraphDestroy", cu.graphDestroy(g));
    }
    /* A launch the driver refuses must not be counted. */
    if (cu.launchKernel((CUfunction)saxpy, 1, 1, 1, 4096, 1, 1, 0, NULL, NULL, NULL) == CUDA_SUCCESS) {
        printf("minirt: an invalid launch succeeded\n");
        return 5;
    }

    pthread_t t[64];
    int forks_rc = 0;
    copy_x = buf[1];
    copy_y = buf[2];
    atomic_store(&forking, nforks >= 0);
    for (int i = 0; i < nthreads && i < 64; i++)
        pthread_create(&t[i], NULL, thread_main, NULL);
    if (nforks >= 0) {
        forks_rc = run_forks(nforks);
        atomic_store(&forking, 0);
    }
    for (int i = 0; i < nthreads && i < 64; i++)
        pthread_join(t[i], NULL);
    if (forks_rc)
        return forks_rc;

    check("cuMemFree", cu.memFree(buf[0]));
    check("cuMemFreeAsync", cu.memFreeAsync(abuf, NULL));
    check("cuCtxSynchronize", cu.ctxSynchronize());
    check("cuLibraryUnload", cu.libraryUnload(lib));
    printf("minirt: done\n");
    return 0;
}
