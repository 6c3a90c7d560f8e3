/* fakecuda.c: a stand-in libcuda.so.1 for testing the interposition without a GPU.
 *
 * It implements just enough of the driver for tests/helpers/minirt, which
 * uses it the way the CUDA runtime uses the real one: dlopen, dlsym of
 * cuGetProcAddress_v2, then every entry point through that, some in their
 * _ptsz form.  Handles are pointers to small structs; launches run nothing.
 * Faults: FAKECUDA_FAIL=name,name... makes those entry points fail, and
 * FAKECUDA_FAIL_AFTER=N the N-th call of any entry point (counting from 1,
 * every thread), each with the error that fits the call (out of memory for
 * what allocates, launch failed for what runs or waits, invalid value for the
 * rest).  FAKECUDA_COUNT=FILE writes at exit how many calls there were and
 * which one failed.
 * FAKECUDA_NODES=FILE appends, for each kernel node added or set, its
 * function's name, where it came from (kernel, function, module) and its
 * grid and block width; FAKECUDA_LAUNCHES=FILE, for each launch run, its
 * function's name, where it came from (`checked`: a module with the
 * watchdog's checks) and its cache preference (a graph's node: the one
 * its function had when the node was set, as the real driver keeps it).
 * FAKECUDA_PARAMS="offset:size,..." sets the parameter layout every kernel
 * reports (default: an int, a float and two pointers).  Two events time
 * 0.25 ms, or, when the last launch before the second ran a function set to
 * prefer L1, FAKECUDA_L1_TRIAL_MS on a stream of the shim's own and
 * FAKECUDA_L1_APP_MS on the default stream: a way to make that knob look
 * faster or slower in trials and in the application; FAKECUDA_MODULE_MS
 * (and FAKECUDA_MODULE_APP_MS on the default stream, if set) likewise when
 * it ran a function of a module loaded by cuModuleLoadData (a variant the
 * shim built), and FAKECUDA_BOTH_APP_MS on the default stream when that
 * function also prefers L1; FAKECUDA_JITTER spreads the default stream's
 * times (jitter), FAKECUDA_PLACES varies them by the launch's place
 * (place); FAKECUDA_GRID_MS="G:MS" times MS where nothing above set a time
 * and the launch's grid was G wide; FAKECUDA_SWITCH_MS adds that much to a
 * time on the default stream for each cache preference a function changed
 * to between its two events (a host ahead of nothing: the host's time
 * between the records is the GPU's too).  FAKECUDA_NOISE makes copy
 * compute (noisy_copy), and
 * FAKECUDA_COMPARE the shim's comparisons (compare).  FAKECUDA_ADJACENT
 * places allocations end to end (mem_alloc).  Graphs
 * record the launches captured into them and kernel
 * nodes, and their launches run those (FAKECUDA_GRAPH_DELTA_MS times a
 * replay by which of its nodes run variants: graph_launch; an
 * event-record node records its event as the kernel node it follows
 * ends, so times a node alone); executable
 * graphs are numbered from 1 as they are instantiated, and
 * FAKECUDA_EXEC_UPDATES=FILE appends the number of each one updated in
 * place (cuGraphExecUpdate, cuGraphExecKernelNodeSetParams);
 * FAKECUDA_WAITS=FILE appends a line for each cuStreamWaitEvent.
 * The device is a "Fake GPU" of compute capability 9.0; FAKECUDA_DEVICE=NAME
 * and FAKECUDA_ARCH=NN (80: 8.0) make it another, as a cache file tuned on
 * one machine meets another.  cuCtxCreate makes another context of it:
 * a module's functions and an event launch and record only in their own
 * (a kernel of a library, in any), and stderr says when one did not.
 * A module whose image holds the watchdog's variable (a build with its
 * checks) has it, and the shim's gt_arm sets it: such a build's launch runs
 * FAKECUDA_WATCHED_MS (else as another variant) and, past its budget,
 * stops there and marks itself stopped, its events reading the budget.
 * With FAKECUPTI_US set, the launches run are kept for the stand-in CUPTI
 * (fakeran.h), which makes its kernel records of them.
 * FAKECUDA_VERSION=12040 is the CUDA version cuDriverGetVersion reports
 * (default 13000), and FAKECUDA_HIDE=cuEventElapsedTime_v2 hides that entry
 * point (cuEventElapsedTime too), as an older driver lacks it.
 * FAKECUDA_STREAMS_BUSY=1 makes every stream hold earlier work when
 * queried (cuStreamQuery), as where the host runs ahead of the GPU. */
#define CUDA_ENABLE_DEPRECATED
#include <cuda.h>
#undef cuGetProcAddress

#include "fakeran.h"
#include "watchdog.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_MAGIC 0xfa4ec0deu

struct fake_func {
    unsigned magic;
    int is_kernel;
    int from_module; /* got from cuModuleGetFunction: a module the application (or the shim) loaded */
    CUcontext ctx;   /* its module's context; NULL for a kernel, which every context may launch */
    CUfunc_cache cache;
    const void *module; /* the module it was got from (compared, never read: it may be unloaded) */
    char name[128];
    struct fake_func *as_function; /* a kernel's function in the context, made once */
    struct fake_func *next;
};

static struct fake_func *funcs;

/* The calling thread's context: the primary one until cuCtxCreate or
 * cuCtxSetCurrent names another.  Modules and events belong to the
 * context current when they were made; launching a module's function or
 * recording an event in another fails, and says so on stderr. */
static char primary_ctx;
static _Thread_local CUcontext current_ctx = (CUcontext)&primary_ctx;

static int other_context(CUcontext of, const char *what)
{
    if (!of || of == current_ctx)
        return 0;
    fprintf(stderr, "fakecuda: %s of another context\n", what);
    return 1;
}

/* Whether the comma-separated list in the environment variable `var` has `name`. */
static int listed(const char *var, const char *name)
{
    const char *list = getenv(var);
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

static int named(const char *name)
{
    return listed("FAKECUDA_FAIL", name);
}

static int hidden(const char *name)
{
    return listed("FAKECUDA_HIDE", name);
}

static atomic_long ncalls;
static const char *_Atomic failed_call;

/* Counts a call of entry point `name`; true when it must fail. */
static int fails(const char *name)
{
    long n = atomic_fetch_add(&ncalls, 1) + 1;
    const char *after = getenv("FAKECUDA_FAIL_AFTER");
    if (!named(name) && !(after && atol(after) == n))
        return 0;
    atomic_store(&failed_call, name);
    return 1;
}

__attribute__((destructor)) static void write_count(void)
{
    const char *path = getenv("FAKECUDA_COUNT");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f) {
        fprintf(f, "%ld %s\n", atomic_load(&ncalls), atomic_load(&failed_call) ? atomic_load(&failed_call) : "-");
        fclose(f);
    }
}

/* The first line of every entry point. */
#define CALL(error)        \
    do {                   \
        if (fails(__func__)) \
            return error;  \
    } while (0)
#define ALLOCATES CUDA_ERROR_OUT_OF_MEMORY
#define RUNS CUDA_ERROR_LAUNCH_FAILED
#define OTHER CUDA_ERROR_INVALID_VALUE

static struct fake_func *make_func(const char *name, int is_kernel)
{
    struct fake_func *f = calloc(1, sizeof *f);
    f->magic = FAKE_MAGIC;
    f->is_kernel = is_kernel;
    snprintf(f->name, sizeof f->name, "%s", name);
    f->next = funcs;
    funcs = f;
    return f;
}

static int valid(const void *h)
{
    return h && ((const struct fake_func *)h)->magic == FAKE_MAGIC;
}

static const char *origin(const struct fake_func *f)
{
    return f->from_module ? "module" : f->is_kernel ? "kernel" : "function";
}

CUresult cuInit(unsigned flags) { CALL(OTHER); (void)flags; return CUDA_SUCCESS; }
CUresult cuDriverGetVersion(int *v)
{
    CALL(OTHER);
    const char *version = getenv("FAKECUDA_VERSION");
    *v = version ? atoi(version) : 13000;
    return CUDA_SUCCESS;
}
static atomic_long syncs;
static atomic_long switches; /* cache preferences changed (FAKECUDA_SWITCH_MS) */
CUresult cuCtxSynchronize(void) { CALL(RUNS); atomic_fetch_add(&syncs, 1); return CUDA_SUCCESS; }

/* NVRTC asks a loaded libcuda for its private tables; there are none here. */
CUresult cuGetExportTable(const void **table, const CUuuid *id)
{
    CALL(OTHER);
    (void)id;
    *table = NULL;
    return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuGetErrorName(CUresult r, const char **s)
{
    CALL(OTHER);
    *s = r == CUDA_ERROR_OUT_OF_MEMORY   ? "CUDA_ERROR_OUT_OF_MEMORY"
         : r == CUDA_ERROR_LAUNCH_FAILED ? "CUDA_ERROR_LAUNCH_FAILED"
         : r == CUDA_ERROR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE"
                                         : "CUDA_ERROR_FAKE";
    return CUDA_SUCCESS;
}

CUresult cuLibraryLoadData(CUlibrary *lib, const void *code, CUjit_option *o, void **v, unsigned n,
                           CUlibraryOption *lo, void **lv, unsigned ln)
{
    CALL(ALLOCATES);
    (void)o; (void)v; (void)n; (void)lo; (void)lv; (void)ln;
    if (!code)
        return CUDA_ERROR_INVALID_VALUE;
    *lib = (CUlibrary)malloc(16);
    return CUDA_SUCCESS;
}

CUresult cuLibraryUnload(CUlibrary lib) { CALL(OTHER); free(lib); return CUDA_SUCCESS; }

/* A loaded module: the context it was loaded in (a library's module,
 * which is not one of these, belongs to none). */
struct fake_module {
    CUcontext ctx;
    int watched; /* a build with the watchdog's checks: it has their variable */
    unsigned long long watchdog[3]; /* that variable, its words as watchdog.h lays them out */
    struct fake_module *next;
};
static struct fake_module *modules;
static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;

static CUmodule new_module(int watched)
{
    struct fake_module *m = calloc(1, sizeof *m);
    m->ctx = current_ctx;
    m->watched = watched;
    pthread_mutex_lock(&modules_lock);
    m->next = modules;
    modules = m;
    pthread_mutex_unlock(&modules_lock);
    return (CUmodule)m;
}

/* The watchdog's variable of module h, if it has one. */
static unsigned long long *watchdog_of(const void *h)
{
    unsigned long long *wd = NULL;
    pthread_mutex_lock(&modules_lock);
    for (struct fake_module *m = modules; m; m = m->next)
        if ((const void *)m == h && m->watched)
            wd = m->watchdog;
    pthread_mutex_unlock(&modules_lock);
    return wd;
}

static CUcontext module_context(CUmodule h)
{
    CUcontext ctx = NULL;
    pthread_mutex_lock(&modules_lock);
    for (struct fake_module *m = modules; m && !ctx; m = m->next)
        if ((CUmodule)m == h)
            ctx = m->ctx;
    pthread_mutex_unlock(&modules_lock);
    return ctx;
}

/* How long the image at p is: an ELF file up to its section headers (where
 * nvJitLink puts them, last), else a NUL-terminated text. */
static size_t image_size(const unsigned char *p)
{
    if (memcmp(p, "\177ELF", 4) != 0 || p[4] != 2)
        return strlen((const char *)p);
    uint64_t shoff;
    uint16_t shentsize, shnum;
    memcpy(&shoff, p + 0x28, sizeof shoff);
    memcpy(&shentsize, p + 0x3a, sizeof shentsize);
    memcpy(&shnum, p + 0x3c, sizeof shnum);
    return shoff + (size_t)shentsize * shnum;
}

CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
    CALL(ALLOCATES);
    if (!image)
        return CUDA_ERROR_INVALID_VALUE;
    *m = new_module(memmem(image, image_size(image), GT_WATCHDOG_SYMBOL, strlen(GT_WATCHDOG_SYMBOL)) != NULL);
    return CUDA_SUCCESS;
}

CUresult cuModuleLoad(CUmodule *m, const char *path)
{
    CALL(ALLOCATES);
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f)
        return CUDA_ERROR_FILE_NOT_FOUND;
    fclose(f);
    *m = new_module(0);
    return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule h)
{
    CALL(OTHER);
    pthread_mutex_lock(&modules_lock);
    for (struct fake_module **m = &modules; *m; m = &(*m)->next)
        if ((CUmodule)*m == h) {
            struct fake_module *gone = *m;
            *m = gone->next;
            free(gone);
            break;
        }
    pthread_mutex_unlock(&modules_lock);
    return CUDA_SUCCESS;
}

CUresult cuLibraryGetModule(CUmodule *m, CUlibrary lib)
{
    CALL(OTHER);
    *m = (CUmodule)((char *)lib + 1);
    return CUDA_SUCCESS;
}

CUresult cuLibraryGetKernel(CUkernel *k, CUlibrary lib, const char *name)
{
    CALL(OTHER);
    (void)lib;
    *k = (CUkernel)make_func(name, 1);
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    CALL(OTHER);
    struct fake_func *fn = make_func(name, 0);
    fn->from_module = 1;
    fn->module = m;
    fn->ctx = module_context(m);
    *f = (CUfunction)fn;
    return CUDA_SUCCESS;
}

CUresult cuKernelGetFunction(CUfunction *f, CUkernel k)
{
    CALL(OTHER);
    if (!valid(k))
        return CUDA_ERROR_INVALID_HANDLE;
    struct fake_func *kf = (struct fake_func *)k;
    if (!kf->as_function && (kf->as_function = make_func(kf->name, 0)) != NULL)
        kf->as_function->cache = kf->cache;
    *f = (CUfunction)kf->as_function;
    return CUDA_SUCCESS;
}

CUresult cuFuncGetName(const char **name, CUfunction f)
{
    CALL(OTHER);
    if (!valid(f) || ((struct fake_func *)f)->is_kernel)
        return CUDA_ERROR_INVALID_HANDLE;
    *name = ((struct fake_func *)f)->name;
    return CUDA_SUCCESS;
}

CUresult cuKernelGetName(const char **name, CUkernel k)
{
    CALL(OTHER);
    if (!valid(k) || !((struct fake_func *)k)->is_kernel)
        return CUDA_ERROR_INVALID_HANDLE;
    *name = ((struct fake_func *)k)->name;
    return CUDA_SUCCESS;
}

CUresult cuFuncGetModule(CUmodule *m, CUfunction f)
{
    CALL(OTHER);
    (void)f;
    *m = NULL;
    return CUDA_ERROR_NOT_FOUND;
}

static CUresult param_info(const void *h, size_t i, size_t *off, size_t *size)
{
    const char *p = getenv("FAKECUDA_PARAMS");
    if (!p)
        p = "0:4,4:4,8:8,16:8";
    for (size_t k = 0; k < i && p; k++) {
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    unsigned o, z;
    if (!valid(h) || !p || sscanf(p, "%u:%u", &o, &z) != 2)
        return CUDA_ERROR_INVALID_VALUE;
    *off = o;
    *size = z;
    return CUDA_SUCCESS;
}

CUresult cuFuncGetParamInfo(CUfunction f, size_t i, size_t *off, size_t *size)
{
    CALL(OTHER);
    return param_info(f, i, off, size);
}
CUresult cuKernelGetParamInfo(CUkernel k, size_t i, size_t *off, size_t *size)
{
    CALL(OTHER);
    return param_info(k, i, off, size);
}

static int capturing;
static int capture_broken; /* a call the capture's mode forbids came meanwhile (stream_query) */
static int last_l1; /* the last launch ran a function that prefers L1 */
static int last_module; /* the last launch ran a function of a loaded module (a variant) */
static int last_watched; /* and that module has the watchdog's checks */
static float last_stop_ms; /* and they stopped it at its deadline, after this long */
static float last_graph_ms; /* the last launch was a graph's, timed so (FAKECUDA_GRAPH_DELTA_MS); 0: not */
static unsigned last_grid; /* the last launch's grid width */
static CUresult captured(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                         unsigned smem, void **params);

/* A line appended to the file the environment variable `var` names, if it names one: the stand-in's
 * traces (FAKECUDA_LAUNCHES, _NODES, _EXEC_UPDATES, _WAITS). */
static void trace(const char *var, const char *fmt, ...)
{
    const char *path = getenv(var);
    FILE *out = path ? fopen(path, "a") : NULL;
    if (!out)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fclose(out);
}

/* FAKECUDA_LAUNCHES: each launch run, with what it ran (after watch_launch,
 * which says whether it runs the watchdog's checks). */
static void record_launch(const struct fake_func *f, CUfunc_cache cache)
{
    static const char *const caches[] = {[CU_FUNC_CACHE_PREFER_NONE] = "none",
                                         [CU_FUNC_CACHE_PREFER_SHARED] = "shared",
                                         [CU_FUNC_CACHE_PREFER_L1] = "l1",
                                         [CU_FUNC_CACHE_PREFER_EQUAL] = "equal"};
    trace("FAKECUDA_LAUNCHES", "%s %s %s\n", f->name, last_watched ? "checked" : origin(f), caches[cache]);
}

/* FAKECUPTI_US: each launch run is kept for the stand-in CUPTI, which
 * takes them at its flushes (fakeran.h). */
#define RAN_MAX 1024
static struct fakecuda_ran ran[RAN_MAX];
static size_t nran;
static pthread_mutex_t ran_lock = PTHREAD_MUTEX_INITIALIZER;

static void keep_ran(const struct fake_func *f, CUfunc_cache cache)
{
    if (!getenv("FAKECUPTI_US"))
        return;
    pthread_mutex_lock(&ran_lock);
    if (nran < RAN_MAX) {
        struct fakecuda_ran *r = &ran[nran++];
        snprintf(r->name, sizeof r->name, "%s", f->name);
        r->from_module = f->from_module;
        r->l1 = cache == CU_FUNC_CACHE_PREFER_L1;
    }
    pthread_mutex_unlock(&ran_lock);
}

fakecuda_take_ran_fn fakecuda_take_ran;
size_t fakecuda_take_ran(struct fakecuda_ran *out, size_t max)
{
    pthread_mutex_lock(&ran_lock);
    size_t n = nran < max ? nran : max;
    memcpy(out, ran, n * sizeof *out);
    nran = 0;
    pthread_mutex_unlock(&ran_lock);
    return n;
}

/* The watchdog's checks: a build with them runs FAKECUDA_WATCHED_MS (else
 * as any variant), and stops at its budget, marking itself stopped, when
 * that is longer.  Every launch says what its events will read. */
static void watch_launch(const struct fake_func *f)
{
    unsigned long long *wd = f->module ? watchdog_of(f->module) : NULL;
    const char *v = getenv("FAKECUDA_WATCHED_MS");
    v = v ? v : getenv("FAKECUDA_MODULE_MS");
    double ms = v ? strtod(v, NULL) : 0.25;
    last_watched = wd != NULL;
    last_stop_ms = 0;
    if (wd && wd[GT_WD_BUDGET] && ms * 1e6 > (double)wd[GT_WD_BUDGET]) {
        wd[GT_WD_ABORTED] = 1;
        last_stop_ms = (float)(wd[GT_WD_BUDGET] / 1e6);
    }
}

/* The shim's gt_arm(watchdog, budget_ns, clear) (shim/tune/devkernels.cu). */
static void arm(const void *f, void **params)
{
    if (!params || !valid(f) || strcmp(((const struct fake_func *)f)->name, "gt_arm") != 0)
        return;
    unsigned long long *wd = (unsigned long long *)(uintptr_t)*(const CUdeviceptr *)params[0];
    unsigned long long budget = *(const unsigned long long *)params[1];
    wd[GT_WD_DEADLINE] = budget ? 0 : ~0ull;
    if (*(const int *)params[2])
        wd[GT_WD_ABORTED] = 0;
    wd[GT_WD_BUDGET] = budget;
}

/* A launch of f with the cache preference `cache`: the function's own at
 * a launch, the one a graph's node took when it was set. */
static CUresult launch_as(const void *f, unsigned gx, unsigned bx, CUfunc_cache cache)
{
    if (!valid(f) || other_context(((const struct fake_func *)f)->ctx, "a launch of a function"))
        return CUDA_ERROR_INVALID_HANDLE;
    if (bx > 1024)
        return CUDA_ERROR_INVALID_VALUE;
    last_l1 = cache == CU_FUNC_CACHE_PREFER_L1;
    last_module = ((const struct fake_func *)f)->from_module;
    last_graph_ms = 0;
    last_grid = gx;
    watch_launch(f);
    record_launch(f, cache);
    keep_ran(f, cache);
    return CUDA_SUCCESS;
}

static CUresult launch(const void *f, unsigned gx, unsigned bx)
{
    return launch_as(f, gx, bx, valid(f) ? ((const struct fake_func *)f)->cache : CU_FUNC_CACHE_PREFER_NONE);
}

/* FAKECUDA_NOISE=E: copy(n, a, x, y) computes y = x (1 + E) and x (1 - E)
 * at turns, an original whose output differs from run to run by about 2E
 * of its size, as a sum with float atomics does. */
static void noisy_copy(const void *f, void **params)
{
    static atomic_int turn;
    const char *e = getenv("FAKECUDA_NOISE");
    if (!e || !params || !valid(f) || strcmp(((const struct fake_func *)f)->name, "copy") != 0)
        return;
    float eps = strtof(e, NULL) * (atomic_fetch_add(&turn, 1) & 1 ? -1.0f : 1.0f);
    int n = *(const int *)params[0];
    const float *x = (const float *)(uintptr_t)*(const CUdeviceptr *)params[2];
    float *y = (float *)(uintptr_t)*(const CUdeviceptr *)params[3];
    for (int i = 0; i < n; i++)
        y[i] = x[i] * (1.0f + eps);
}

/* FAKECUDA_COMPARE=1: the shim's comparison kernels (shim/tune/devkernels.cu)
 * run, on the host's memory, for bits and f32; otherwise they find nothing. */
static void compare(const void *f, void **params)
{
    const char *name = valid(f) ? ((const struct fake_func *)f)->name : "";
    int bits = !strcmp(name, "gt_compare_bits"), f32 = !strcmp(name, "gt_compare_f32");
    if (!getenv("FAKECUDA_COMPARE") || !params || !(bits || f32))
        return;
    const void *a = (const void *)(uintptr_t)*(const CUdeviceptr *)params[0];
    const void *b = (const void *)(uintptr_t)*(const CUdeviceptr *)params[1];
    unsigned long long n = *(const unsigned long long *)params[2];
    double abs_tol = f32 ? *(const double *)params[3] : 0, rel_tol = f32 ? *(const double *)params[4] : 0;
    unsigned long long *first = (unsigned long long *)(uintptr_t)*(const CUdeviceptr *)params[f32 ? 5 : 3];
    unsigned long long *count = (unsigned long long *)(uintptr_t)*(const CUdeviceptr *)params[f32 ? 6 : 4];
    for (unsigned long long i = 0; i < n; i++) {
        int same = bits ? ((const unsigned long long *)a)[i] == ((const unsigned long long *)b)[i] : 0;
        if (f32) {
            double x = ((const float *)a)[i], y = ((const float *)b)[i];
            same = x == y || fabs(x - y) <= abs_tol + rel_tol * fabs(y);
        }
        if (!same) {
            *first = i < *first ? i : *first;
            ++*count;
        }
    }
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned smem, CUstream s, void **p, void **e)
{
    CALL(RUNS);
    (void)s; (void)e;
    if (capturing)
        return captured(f, gx, gy, gz, bx, by, bz, smem, p);
    noisy_copy(f, p);
    compare(f, p);
    arm(f, p);
    return launch(f, gx, bx);
}

CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned smem, CUstream s, void **p, void **e)
{
    CALL(RUNS);
    (void)s; (void)e;
    return capturing ? captured(f, gx, gy, gz, bx, by, bz, smem, p) : launch(f, gx, bx);
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **p, void **e)
{
    CALL(RUNS);
    (void)p; (void)e;
    return launch(f, c->gridDimX, c->blockDimX);
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                   unsigned by, unsigned bz, unsigned smem, CUstream s, void **p)
{
    CALL(RUNS);
    (void)gy; (void)gz; (void)by; (void)bz; (void)smem; (void)s; (void)p;
    return launch(f, gx, bx);
}

CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v)
{
    CALL(OTHER);
    (void)a; (void)v;
    return valid(f) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* Resources of a small kernel: what estimates of variants read. */
CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f)
{
    CALL(OTHER);
    *v = a == CU_FUNC_ATTRIBUTE_NUM_REGS ? 32 : 0;
    return valid(f) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction f, int threads, size_t smem)
{
    CALL(OTHER);
    (void)smem;
    *blocks = threads > 0 && threads <= 1024 ? 2048 / threads : 0;
    return valid(f) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuFuncSetSharedMemConfig(CUfunction f, CUsharedconfig c)
{
    CALL(OTHER);
    (void)c;
    return valid(f) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuCtxGetCurrent(CUcontext *c)
{
    CALL(OTHER);
    *c = current_ctx;
    return CUDA_SUCCESS;
}

CUresult cuCtxCreate_v2(CUcontext *c, unsigned flags, CUdevice d)
{
    CALL(ALLOCATES);
    (void)flags, (void)d;
    *c = current_ctx = (CUcontext)malloc(16);
    return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext c)
{
    CALL(OTHER);
    current_ctx = c ? c : (CUcontext)&primary_ctx;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *d)
{
    CALL(OTHER);
    *d = 0;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    CALL(OTHER);
    (void)d;
    const char *arch = getenv("FAKECUDA_ARCH");
    int cc = arch ? atoi(arch) : 90;
    *v = a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR   ? cc / 10
         : a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ? cc % 10
                                                             : 0;
    return CUDA_SUCCESS;
}

/* One device, as `gputune cache prune --device current` counts them. */
CUresult cuDeviceGetCount(int *n)
{
    CALL(OTHER);
    *n = 1;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
    CALL(OTHER);
    *d = ordinal;
    return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
    CALL(OTHER);
    (void)d;
    const char *other = getenv("FAKECUDA_DEVICE");
    snprintf(name, (size_t)len, "%s", other ? other : "Fake GPU");
    return CUDA_SUCCESS;
}

/* Streams, events and copies over host memory, enough for a trial session. */
CUresult cuStreamCreate(CUstream *s, unsigned flags)
{
    CALL(ALLOCATES);
    (void)flags;
    *s = (CUstream)malloc(8);
    return CUDA_SUCCESS;
}
CUresult cuStreamDestroy_v2(CUstream s) { CALL(OTHER); free(s); return CUDA_SUCCESS; }
/* FAKECUDA_STREAMS_BUSY=1: every stream still holds earlier work when asked, as where the host runs
 * ahead of the GPU; else launches run at once here, and every stream is idle. */
static CUresult stream_query(void)
{
    if (capturing) { /* as in a capture of the global mode: the query is refused and breaks the capture */
        capture_broken = 1;
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    return getenv("FAKECUDA_STREAMS_BUSY") ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}
CUresult cuStreamQuery(CUstream s) { CALL(RUNS); (void)s; return stream_query(); }
CUresult cuStreamQuery_ptsz(CUstream s) { CALL(RUNS); (void)s; return stream_query(); }
CUresult cuStreamSynchronize(CUstream s) { CALL(RUNS); (void)s; atomic_fetch_add(&syncs, 1); return CUDA_SUCCESS; }
CUresult cuStreamSynchronize_ptsz(CUstream s) { CALL(RUNS); (void)s; atomic_fetch_add(&syncs, 1); return CUDA_SUCCESS; }

CUresult cuMemGetInfo_v2(size_t *free_b, size_t *total)
{
    CALL(OTHER);
    *free_b = (size_t)64 << 30;
    *total = (size_t)80 << 30;
    return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
    CALL(RUNS);
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

static CUresult copy_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
    CALL(RUNS);
    (void)s;
    return copy_dtod(dst, src, n);
}

CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
    CALL(RUNS);
    (void)s;
    return copy_dtod(dst, src, n);
}

CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n)
{
    CALL(RUNS);
    memset((void *)(uintptr_t)p, v, n);
    return CUDA_SUCCESS;
}

CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, CUstream s)
{
    CALL(RUNS);
    (void)s;
    memset((void *)(uintptr_t)p, v, n);
    return CUDA_SUCCESS;
}

CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags)
{
    CALL(ALLOCATES);
    (void)flags;
    *p = malloc(n);
    return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemFreeHost(void *p) { CALL(OTHER); free(p); return CUDA_SUCCESS; }

/* Nothing is tracked: no pointer is known to this driver. */
CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr p)
{
    CALL(OTHER);
    (void)base, (void)size, (void)p;
    return CUDA_ERROR_NOT_FOUND;
}

struct fake_event {
    CUcontext ctx;
    CUstream stream;
    int l1, module, watched;
    float stop_ms; /* the watchdog stopped the launch before it after this long */
    float graph_ms; /* the launch before it was a graph's, timed so */
    unsigned grid;  /* the grid width of the launch before it */
    long synced; /* the synchronizations before it was recorded */
    long switched; /* the cache preferences changed before it was recorded */
    long torn;   /* the contexts torn down before it was made */
};

/* cuCtxDestroy, cuDevicePrimaryCtxReset and the primary context's last
 * release: every event made before one goes with it, and a call that
 * still uses one says so on stderr. */
static atomic_long torn;

static int gone(const struct fake_event *ev, const char *call)
{
    if (ev->torn == atomic_load(&torn))
        return 0;
    fprintf(stderr, "fakecuda: %s on an event of a context torn down\n", call);
    return 1;
}

static void tear_down(void)
{
    atomic_fetch_add(&torn, 1);
    atomic_fetch_add(&syncs, 1);
}

CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    CALL(OTHER);
    (void)ctx;
    tear_down();
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    CALL(OTHER);
    (void)dev;
    tear_down();
    return CUDA_SUCCESS;
}

/* The primary context's retains: the last release tears it down. */
static atomic_int primary_refs;

CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice dev)
{
    CALL(OTHER);
    (void)dev;
    atomic_fetch_add(&primary_refs, 1);
    *c = (CUcontext)&primary_ctx;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    CALL(OTHER);
    (void)dev;
    if (atomic_load(&primary_refs) <= 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (atomic_fetch_sub(&primary_refs, 1) == 1)
        tear_down();
    return CUDA_SUCCESS;
}

/* FAKECUDA_EVENTS_PENDING=1: an event is not complete until a
 * synchronization after its record (of the context, a stream or an event:
 * everything recorded before it is done, as on one stream),
 * as when the GPU runs behind the application's launches. */
static int pending(const struct fake_event *ev)
{
    return getenv("FAKECUDA_EVENTS_PENDING") && ev->synced == atomic_load(&syncs);
}

CUresult cuEventCreate(CUevent *e, unsigned flags)
{
    CALL(ALLOCATES);
    (void)flags;
    struct fake_event *ev = calloc(1, sizeof *ev);
    if (ev) {
        ev->torn = atomic_load(&torn);
        ev->ctx = current_ctx;
    }
    *e = (CUevent)ev;
    return CUDA_SUCCESS;
}
CUresult cuEventDestroy_v2(CUevent e)
{
    CALL(OTHER);
    if (!gone((struct fake_event *)e, "cuEventDestroy"))
        free(e);
    return CUDA_SUCCESS;
}
static CUresult event_record(CUevent e, CUstream s)
{
    struct fake_event *ev = (struct fake_event *)e;
    if (other_context(ev->ctx, "a record of an event"))
        return CUDA_ERROR_INVALID_HANDLE;
    ev->stream = s;
    ev->l1 = last_l1;
    ev->module = last_module;
    ev->watched = last_watched;
    ev->stop_ms = last_stop_ms;
    ev->graph_ms = last_graph_ms;
    ev->grid = last_grid;
    ev->synced = atomic_load(&syncs);
    ev->switched = atomic_load(&switches);
    return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent e, CUstream s) { CALL(RUNS); return event_record(e, s); }
CUresult cuEventRecord_ptsz(CUevent e, CUstream s) { CALL(RUNS); return event_record(e, s); }
/* FAKECUDA_WAITS: each wait, in the order asked (launches run at once here, so there is nothing to wait for). */
static CUresult stream_wait(void)
{
    trace("FAKECUDA_WAITS", "wait\n");
    return CUDA_SUCCESS;
}
CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags) { CALL(OTHER); (void)s, (void)e, (void)flags; return stream_wait(); }
CUresult cuStreamWaitEvent_ptsz(CUstream s, CUevent e, unsigned flags)
{
    CALL(OTHER);
    (void)s, (void)e, (void)flags;
    return stream_wait();
}
CUresult cuEventSynchronize(CUevent e) { CALL(RUNS); (void)e; atomic_fetch_add(&syncs, 1); return CUDA_SUCCESS; }
CUresult cuEventQuery(CUevent e)
{
    CALL(RUNS);
    if (gone((const struct fake_event *)e, "cuEventQuery"))
        return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    return pending((const struct fake_event *)e) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

/* FAKECUDA_JITTER=J: times on the application's stream spread by J (their
 * interquartile range over their median), 1 + J u for u cycling through
 * -1, -1/2, 0, 1/2, 1, as launches that share a GPU time unevenly. */
static float jitter(void)
{
    static atomic_int turn;
    const char *j = getenv("FAKECUDA_JITTER");
    return j ? 1.0f + strtof(j, NULL) * (float)(atomic_fetch_add(&turn, 1) % 5 - 2) / 2.0f : 1.0f;
}

/* FAKECUDA_PLACES=F0,F1,...: the application's stream's times in turn
 * multiplied by F0, F1, ... (K factors: read k by F(k mod K)), as an
 * application that launches a kernel from K places an iteration, each with
 * its own inputs and neighbours. */
static float place(void)
{
    static atomic_int turn;
    const char *p = getenv("FAKECUDA_PLACES");
    if (!p || !*p)
        return 1.0f;
    int k = 1;
    for (const char *c = p; *c; c++)
        k += *c == ',';
    int at = atomic_fetch_add(&turn, 1) % k;
    while (at-- > 0)
        p = strchr(p, ',') + 1;
    return strtof(p, NULL);
}

/* FAKECUDA_SWITCH_MS: the host's time for the cache preferences changed between two records. */
static float switch_ms(const struct fake_event *start, const struct fake_event *end)
{
    const char *v = getenv("FAKECUDA_SWITCH_MS");
    return v && !end->stream ? strtof(v, NULL) * (float)(end->switched - start->switched) : 0.0f;
}

static CUresult elapsed(const char *name, float *ms, CUevent a, CUevent b)
{
    if (fails(name))
        return RUNS;
    const struct fake_event *end = (const struct fake_event *)b;
    if (gone(end, "cuEventElapsedTime"))
        return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    if (pending(end))
        return CUDA_ERROR_NOT_READY;
    const char *v = end->l1 ? getenv(end->stream ? "FAKECUDA_L1_TRIAL_MS" : "FAKECUDA_L1_APP_MS") : NULL;
    const char *m = end->stream || !getenv("FAKECUDA_MODULE_APP_MS") ? "FAKECUDA_MODULE_MS" : "FAKECUDA_MODULE_APP_MS";
    if (end->module && getenv(m))
        v = getenv(m);
    if (end->module && end->l1 && !end->stream && getenv("FAKECUDA_BOTH_APP_MS"))
        v = getenv("FAKECUDA_BOTH_APP_MS");
    if (end->graph_ms > 0) {
        *ms = end->graph_ms;
        return CUDA_SUCCESS;
    }
    if (end->watched && end->stop_ms > 0) {
        *ms = end->stop_ms;
        return CUDA_SUCCESS;
    }
    if (end->watched && getenv("FAKECUDA_WATCHED_MS"))
        v = getenv("FAKECUDA_WATCHED_MS");
    const char *g = getenv("FAKECUDA_GRID_MS");
    char *at;
    if (!v && g && strtoul(g, &at, 10) == end->grid && *at == ':')
        v = at + 1;
    *ms = (v ? strtof(v, NULL) : 0.25f) * (end->stream ? 1.0f : jitter() * place()) +
          switch_ms((const struct fake_event *)a, end);
    return CUDA_SUCCESS;
}

static CUresult elapsed_v1(float *ms, CUevent a, CUevent b) { return elapsed("cuEventElapsedTime", ms, a, b); }
static CUresult elapsed_v2(float *ms, CUevent a, CUevent b) { return elapsed("cuEventElapsedTime_v2", ms, a, b); }

/* Both versions of cuEventElapsedTime are exported through resolvers that
 * dlsym runs at each lookup, so that FAKECUDA_HIDE can take them away as a
 * driver that predates one would not have it. */
typedef CUresult (*elapsed_fn)(float *, CUevent, CUevent);
__attribute__((used)) static elapsed_fn resolve_elapsed_v1(void) { return hidden("cuEventElapsedTime") ? NULL : elapsed_v1; }
__attribute__((used)) static elapsed_fn resolve_elapsed_v2(void) { return hidden("cuEventElapsedTime_v2") ? NULL : elapsed_v2; }

#undef cuEventElapsedTime
CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b) __attribute__((ifunc("resolve_elapsed_v1")));
CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b) __attribute__((ifunc("resolve_elapsed_v2")));

/* Module-scope variables: the watchdog's alone, in a build with its checks. */
CUresult cuModuleGetGlobal_v2(CUdeviceptr *p, size_t *n, CUmodule m, const char *name)
{
    CALL(OTHER);
    unsigned long long *wd = strcmp(name, GT_WATCHDOG_SYMBOL) == 0 ? watchdog_of(m) : NULL;
    if (!wd)
        return CUDA_ERROR_NOT_FOUND;
    *p = (CUdeviceptr)(uintptr_t)wd;
    *n = 3 * sizeof *wd;
    return CUDA_SUCCESS;
}

CUresult cuKernelSetAttribute(CUfunction_attribute a, int v, CUkernel k, CUdevice d)
{
    CALL(OTHER);
    (void)a; (void)v; (void)d;
    return valid(k) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult set_cache(void *f, CUfunc_cache c)
{
    if (!valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    if ((unsigned)c > CU_FUNC_CACHE_PREFER_EQUAL)
        return CUDA_ERROR_INVALID_VALUE;
    struct fake_func *ff = f;
    if (ff->cache != c)
        atomic_fetch_add(&switches, 1);
    ff->cache = c;
    if (ff->is_kernel && ff->as_function) /* one preference: the kernel's is its function's in the context */
        ff->as_function->cache = c;
    return CUDA_SUCCESS;
}

CUresult cuFuncSetCacheConfig(CUfunction f, CUfunc_cache c)
{
    CALL(OTHER);
    return set_cache(f, c);
}

CUresult cuKernelSetCacheConfig(CUkernel k, CUfunc_cache c, CUdevice d)
{
    CALL(OTHER);
    (void)d;
    return set_cache(k, c);
}

/* Device memory is host memory here, which is all the tracker needs.
 * FAKECUDA_ADJACENT=1: allocations are carved downwards from one block,
 * each ending where the one before starts, as the real driver often places
 * them; what does not fit is the host's as usual. */
static unsigned char adjacent[16 << 20] __attribute__((aligned(256)));
static size_t adjacent_top = sizeof adjacent;

static int in_adjacent(CUdeviceptr p)
{
    return p >= (uintptr_t)adjacent && p < (uintptr_t)adjacent + sizeof adjacent;
}

static CUresult mem_alloc(CUdeviceptr *p, size_t n)
{
    size_t rounded = (n + 255) & ~(size_t)255;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    int carve = getenv("FAKECUDA_ADJACENT") && rounded <= adjacent_top;
    if (carve)
        adjacent_top -= rounded;
    pthread_mutex_unlock(&lock);
    *p = carve ? (CUdeviceptr)(uintptr_t)(adjacent + adjacent_top) : (CUdeviceptr)(uintptr_t)malloc(n);
    return CUDA_SUCCESS;
}

static void mem_free(CUdeviceptr p)
{
    if (!in_adjacent(p))
        free((void *)(uintptr_t)p);
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { CALL(ALLOCATES); return mem_alloc(p, n); }
CUresult cuMemFree_v2(CUdeviceptr p) { CALL(OTHER); mem_free(p); return CUDA_SUCCESS; }
CUresult cuMemAllocAsync(CUdeviceptr *p, size_t n, CUstream s) { CALL(ALLOCATES); (void)s; return mem_alloc(p, n); }
CUresult cuMemAllocAsync_ptsz(CUdeviceptr *p, size_t n, CUstream s)
{
    CALL(ALLOCATES);
    (void)s;
    return mem_alloc(p, n);
}
CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s)
{
    CALL(OTHER);
    (void)s;
    mem_free(p);
    return CUDA_SUCCESS;
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *d, void *p, unsigned flags)
{
    CALL(OTHER);
    (void)flags;
    *d = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

/* Graphs: up to FAKE_NODES kernel nodes each, their arguments copied as
 * the driver copies them (by the parameter layout above); an executable
 * graph is a copy of one, and its launch runs its nodes as launches.  A
 * node's handle is its place in its graph, so it stays valid while the
 * graph lives. */
#define FAKE_NODES 16
#define FAKE_ARGS 8

struct fake_graph;
struct fake_node {
    struct fake_graph *owner;
    CUDA_KERNEL_NODE_PARAMS p;
    CUfunc_cache cache; /* its function's preference when the node was set: a replay runs with this one */
    unsigned char args[64];
    void *argv[FAKE_ARGS];
};
/* An event-record node: it records its event once kernel node `after`
 * ran (-1: at the replay's start), as its dependencies say. */
struct fake_mark {
    struct fake_graph *owner; /* first, as a kernel node's: mark_of tells them apart */
    CUevent ev;
    int after, used;
};
#define FAKE_MARKS 2
struct fake_graph {
    unsigned magic;
    int n;
    int exec; /* an executable graph's number, counting from 1; 0: a graph */
    struct fake_node node[FAKE_NODES];
    struct fake_mark mark[FAKE_MARKS];
};

static struct fake_graph *capture_graph; /* what the capture records */

static struct fake_graph *graph_of(const void *h)
{
    const struct fake_graph *g = h;
    return g && g->magic == FAKE_MAGIC ? (struct fake_graph *)g : NULL;
}

static struct fake_graph *graph_new(void)
{
    struct fake_graph *g = calloc(1, sizeof *g);
    if (g)
        g->magic = FAKE_MAGIC;
    return g;
}

/* The node's parameters, its own copy of the arguments among them, and
 * the cache preference its function has now: the real driver's nodes take
 * it when they are captured, added or set, and keep it whatever is set on
 * the function after (a copy of a node, or an update from it, keeps the
 * node's: node_copy). */
static void node_set(struct fake_node *n, const CUDA_KERNEL_NODE_PARAMS *p)
{
    n->p = *p;
    const void *f = p->func ? (const void *)p->func : (const void *)p->kern;
    n->cache = valid(f) ? ((const struct fake_func *)f)->cache : CU_FUNC_CACHE_PREFER_NONE;
    size_t k = 0, off, size;
    for (; p->kernelParams && k < FAKE_ARGS && param_info(f, k, &off, &size) == CUDA_SUCCESS &&
           off + size <= sizeof n->args;
         k++) {
        memcpy(n->args + off, p->kernelParams[k], size);
        n->argv[k] = n->args + off;
    }
    n->p.kernelParams = k ? n->argv : NULL;
    n->p.extra = NULL;
}

static CUresult node_add(struct fake_graph *g, const CUDA_KERNEL_NODE_PARAMS *p, CUgraphNode *out)
{
    if (!g || g->n == FAKE_NODES)
        return CUDA_ERROR_INVALID_VALUE;
    struct fake_node *n = &g->node[g->n++];
    n->owner = g;
    node_set(n, p);
    if (out)
        *out = (CUgraphNode)n;
    return CUDA_SUCCESS;
}

static void node_copy(struct fake_node *n, const struct fake_node *from)
{
    node_set(n, &from->p);
    n->cache = from->cache;
}

static struct fake_mark *mark_of(CUgraphNode h)
{
    struct fake_graph *g = h ? *(struct fake_graph **)h : NULL;
    const struct fake_mark *m = (const struct fake_mark *)h;
    return g && m >= g->mark && m < g->mark + FAKE_MARKS ? (struct fake_mark *)m : NULL;
}

static void marks_copy(struct fake_graph *g, const struct fake_graph *from)
{
    for (int i = 0; i < FAKE_MARKS; i++) {
        g->mark[i] = from->mark[i];
        g->mark[i].owner = g;
    }
}

static struct fake_graph *graph_copy(const struct fake_graph *from)
{
    struct fake_graph *g = from ? graph_new() : NULL;
    for (int i = 0; g && i < from->n; i++)
        if (node_add(g, &from->node[i].p, NULL) == CUDA_SUCCESS)
            g->node[i].cache = from->node[i].cache;
    if (g)
        marks_copy(g, from);
    return g;
}

CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode m)
{
    CALL(OTHER);
    (void)s;
    (void)m;
    if (capturing++ == 0)
        capture_graph = graph_new();
    return CUDA_SUCCESS;
}

CUresult cuStreamEndCapture(CUstream s, CUgraph *g)
{
    CALL(OTHER);
    (void)s;
    if (!capturing)
        return CUDA_ERROR_ILLEGAL_STATE;
    if (--capturing == 0 && capture_broken) {
        capture_broken = 0;
        free(capture_graph);
        capture_graph = NULL;
        *g = NULL;
        return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    }
    if (capturing == 0) {
        *g = (CUgraph)capture_graph;
        capture_graph = NULL;
    } else {
        *g = NULL;
    }
    return CUDA_SUCCESS;
}

/* A launch into the capturing stream becomes a node of its graph, with
 * the context's function where a kernel handle was launched, as the real
 * driver records it. */
static CUresult captured(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                         unsigned smem, void **params)
{
    if (!valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    if (((struct fake_func *)f)->is_kernel && cuKernelGetFunction(&f, (CUkernel)f) != CUDA_SUCCESS)
        return CUDA_ERROR_INVALID_HANDLE;
    CUDA_KERNEL_NODE_PARAMS p = {.func = f, .gridDimX = gx, .gridDimY = gy, .gridDimZ = gz, .blockDimX = bx,
                                 .blockDimY = by, .blockDimZ = bz, .sharedMemBytes = smem, .kernelParams = params};
    return node_add(capture_graph, &p, NULL);
}

CUresult cuGraphCreate(CUgraph *g, unsigned flags)
{
    CALL(ALLOCATES);
    (void)flags;
    *g = (CUgraph)graph_new();
    return *g ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuGraphDestroy(CUgraph g) { CALL(OTHER); free(graph_of(g)); return CUDA_SUCCESS; }
CUresult cuGraphClone(CUgraph *out, CUgraph g)
{
    CALL(ALLOCATES);
    *out = (CUgraph)graph_copy(graph_of(g));
    return *out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult cuGraphGetNodes(CUgraph h, CUgraphNode *nodes, size_t *n)
{
    CALL(OTHER);
    struct fake_graph *g = graph_of(h);
    if (!g)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; nodes && i < *n && i < (size_t)g->n; i++)
        nodes[i] = (CUgraphNode)&g->node[i];
    *n = (size_t)g->n;
    return CUDA_SUCCESS;
}
CUresult cuGraphNodeGetType(CUgraphNode n, CUgraphNodeType *t)
{
    CALL(OTHER);
    *t = mark_of(n) ? CU_GRAPH_NODE_TYPE_EVENT_RECORD : CU_GRAPH_NODE_TYPE_KERNEL;
    return CUDA_SUCCESS;
}

/* A graph's kernel nodes form a chain, in the order they were added. */
CUresult cuGraphNodeGetDependencies_v2(CUgraphNode h, CUgraphNode *deps, CUgraphEdgeData *edges, size_t *n)
{
    CALL(OTHER);
    const struct fake_node *node = (const struct fake_node *)h;
    if (!h || mark_of(h))
        return CUDA_ERROR_INVALID_VALUE;
    size_t have = node > node->owner->node ? 1 : 0;
    if (deps && !*n) /* as driver 580 answers */
        return CUDA_ERROR_INVALID_VALUE;
    if (deps && *n >= have && have) {
        deps[0] = (CUgraphNode)(node - 1);
        if (edges)
            memset(edges, 0, sizeof *edges);
    }
    *n = have;
    return CUDA_SUCCESS;
}
CUresult cuGraphAddDependencies_v2(CUgraph g, const CUgraphNode *from, const CUgraphNode *to,
                                   const CUgraphEdgeData *edges, size_t n)
{
    CALL(OTHER);
    (void)edges;
    return graph_of(g) && (!n || (from && to)) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult cuGraphAddEventRecordNode(CUgraphNode *out, CUgraph h, const CUgraphNode *deps, size_t n, CUevent ev)
{
    CALL(OTHER);
    struct fake_graph *g = graph_of(h);
    struct fake_mark *m = NULL;
    for (int i = 0; g && !m && i < FAKE_MARKS; i++)
        m = g->mark[i].used ? NULL : &g->mark[i];
    if (!m || !ev)
        return CUDA_ERROR_INVALID_VALUE;
    *m = (struct fake_mark){.owner = g, .ev = ev, .after = -1, .used = 1};
    for (size_t i = 0; i < n; i++)
        if (!mark_of(deps[i]) && (int)((const struct fake_node *)deps[i] - g->node) > m->after)
            m->after = (int)((const struct fake_node *)deps[i] - g->node);
    *out = (CUgraphNode)m;
    return CUDA_SUCCESS;
}
CUresult cuGraphDestroyNode(CUgraphNode h)
{
    CALL(OTHER);
    struct fake_mark *m = mark_of(h);
    if (!m)
        return CUDA_ERROR_NOT_SUPPORTED; /* kernel nodes stay: a node's handle is its place */
    m->used = 0;
    return CUDA_SUCCESS;
}
CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec e, CUgraphNode h, CUevent ev)
{
    CALL(OTHER);
    struct fake_graph *x = graph_of(e);
    const struct fake_mark *m = mark_of(h);
    if (!x || !m || !ev || !x->mark[m - m->owner->mark].used)
        return CUDA_ERROR_INVALID_VALUE;
    x->mark[m - m->owner->mark].ev = ev;
    return CUDA_SUCCESS;
}
CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode n, CUDA_KERNEL_NODE_PARAMS *p)
{
    CALL(OTHER);
    *p = ((struct fake_node *)n)->p;
    return CUDA_SUCCESS;
}

/* FAKECUDA_NODES: each node set, and where its function came from. */
static CUresult node_params(const CUDA_KERNEL_NODE_PARAMS *p)
{
    const struct fake_func *f = p ? (p->func ? (const void *)p->func : (const void *)p->kern) : NULL;
    if (!valid(f))
        return CUDA_ERROR_INVALID_VALUE;
    trace("FAKECUDA_NODES", "%s %s %ux%u\n", f->name, origin(f), p->gridDimX, p->blockDimX);
    return CUDA_SUCCESS;
}
CUresult cuGraphAddKernelNode_v2(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                                 const CUDA_KERNEL_NODE_PARAMS *p)
{
    CALL(OTHER);
    (void)deps, (void)ndeps;
    CUresult r = node_params(p);
    return r == CUDA_SUCCESS ? node_add(graph_of(g), p, n) : r;
}
CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS *p)
{
    CALL(OTHER);
    CUresult r = node_params(p);
    if (r == CUDA_SUCCESS)
        node_set((struct fake_node *)n, p);
    return r;
}

static CUresult instantiate(CUgraphExec *e, CUgraph g)
{
    static atomic_int execs;
    struct fake_graph *x = graph_copy(graph_of(g));
    if (x)
        x->exec = atomic_fetch_add(&execs, 1) + 1;
    *e = (CUgraphExec)x;
    return x ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* FAKECUDA_EXEC_UPDATES: executable graph x updated in place. */
static void exec_updated(const struct fake_graph *x)
{
    trace("FAKECUDA_EXEC_UPDATES", "%d\n", x->exec);
}
CUresult cuGraphInstantiateWithFlags(CUgraphExec *e, CUgraph g, unsigned long long flags)
{
    CALL(ALLOCATES);
    (void)flags;
    return instantiate(e, g);
}
CUresult cuGraphInstantiateWithParams(CUgraphExec *e, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    CALL(ALLOCATES);
    (void)p;
    return instantiate(e, g);
}
CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *e, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    CALL(ALLOCATES);
    (void)p;
    return instantiate(e, g);
}
CUresult cuGraphExecDestroy(CUgraphExec e) { CALL(OTHER); free(graph_of(e)); return CUDA_SUCCESS; }
CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec e, CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS *p)
{
    CALL(OTHER);
    struct fake_graph *x = graph_of(e);
    const struct fake_node *from = (const struct fake_node *)n;
    CUresult r = node_params(p);
    if (r == CUDA_SUCCESS && x && from->owner && from - from->owner->node < x->n) {
        node_set(&x->node[from - from->owner->node], p);
        exec_updated(x);
    }
    return r;
}
/* Nodes set where the graph's topology is the executable graph's. */
CUresult cuGraphExecUpdate_v2(CUgraphExec e, CUgraph h, CUgraphExecUpdateResultInfo *info)
{
    CALL(OTHER);
    struct fake_graph *x = graph_of(e), *g = graph_of(h);
    if (info)
        memset(info, 0, sizeof *info);
    int same = x && g && x->n == g->n;
    for (int i = 0; same && i < FAKE_MARKS; i++)
        same = x->mark[i].used == g->mark[i].used && x->mark[i].after == g->mark[i].after;
    if (!same) {
        if (info)
            info->result = CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
        return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    }
    for (int i = 0; i < g->n; i++) {
        node_params(&g->node[i].p);
        node_copy(&x->node[i], &g->node[i]);
    }
    marks_copy(x, g);
    exec_updated(x);
    return CUDA_SUCCESS;
}
/* The events of x's marks that record once kernel node `after` ran: timed
 * as that node's launch. */
static void marks_record(const struct fake_graph *x, int after)
{
    for (int i = 0; i < FAKE_MARKS; i++)
        if (x->mark[i].used && x->mark[i].after == after)
            event_record(x->mark[i].ev, NULL);
}

/* With FAKECUDA_GRAPH_DELTA_MS="d0,d1,...", a replay is timed 0.25 ms plus
 * d_i for each kernel node i that runs a variant (a function of a loaded
 * module): nodes whose variants help or hurt the replay apart. */
static CUresult graph_launch(CUgraphExec e)
{
    struct fake_graph *x = graph_of(e);
    CUresult r = x ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
    const char *d = getenv("FAKECUDA_GRAPH_DELTA_MS");
    float ms = 0.25f;
    if (x)
        marks_record(x, -1);
    for (int i = 0; x && i < x->n && r == CUDA_SUCCESS; i++) {
        const void *f = x->node[i].p.func ? (const void *)x->node[i].p.func : (const void *)x->node[i].p.kern;
        r = launch_as(f, x->node[i].p.gridDimX, x->node[i].p.blockDimX, x->node[i].cache);
        if (r == CUDA_SUCCESS)
            marks_record(x, i);
        if (d && r == CUDA_SUCCESS && ((const struct fake_func *)f)->from_module)
            ms += strtof(d, NULL);
        d = d && strchr(d, ',') ? strchr(d, ',') + 1 : NULL;
    }
    if (getenv("FAKECUDA_GRAPH_DELTA_MS"))
        last_graph_ms = ms;
    return r;
}
CUresult cuGraphLaunch(CUgraphExec e, CUstream s) { CALL(RUNS); (void)s; return graph_launch(e); }
CUresult cuGraphLaunch_ptsz(CUgraphExec e, CUstream s) { CALL(RUNS); (void)s; return graph_launch(e); }

static CUresult is_capturing(CUstream s, CUstreamCaptureStatus *st)
{
    (void)s;
    *st = capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}

CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus *st) { CALL(OTHER); return is_capturing(s, st); }
CUresult cuStreamIsCapturing_ptsz(CUstream s, CUstreamCaptureStatus *st) { CALL(OTHER); return is_capturing(s, st); }

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status);

/* What the real driver's table does: one base name, the version the caller
 * asked for, a _ptsz form when per-thread default stream is requested. */
static const struct {
    const char *name;
    void *fn, *ptsz;
} procs[] = {
    {"cuGetProcAddress", (void *)cuGetProcAddress_v2, NULL},
    {"cuInit", (void *)cuInit, NULL},
    {"cuDriverGetVersion", (void *)cuDriverGetVersion, NULL},
    {"cuGetErrorName", (void *)cuGetErrorName, NULL},
    {"cuCtxSynchronize", (void *)cuCtxSynchronize, NULL},
    {"cuLibraryLoadData", (void *)cuLibraryLoadData, NULL},
    {"cuLibraryUnload", (void *)cuLibraryUnload, NULL},
    {"cuLibraryGetKernel", (void *)cuLibraryGetKernel, NULL},
    {"cuLibraryGetModule", (void *)cuLibraryGetModule, NULL},
    {"cuModuleLoadData", (void *)cuModuleLoadData, NULL},
    {"cuModuleLoad", (void *)cuModuleLoad, NULL},
    {"cuModuleUnload", (void *)cuModuleUnload, NULL},
    {"cuModuleGetFunction", (void *)cuModuleGetFunction, NULL},
    {"cuKernelGetFunction", (void *)cuKernelGetFunction, NULL},
    {"cuKernelSetAttribute", (void *)cuKernelSetAttribute, NULL},
    {"cuFuncSetCacheConfig", (void *)cuFuncSetCacheConfig, NULL},
    {"cuLaunchKernel", (void *)cuLaunchKernel, (void *)cuLaunchKernel_ptsz},
    {"cuLaunchKernelEx", (void *)cuLaunchKernelEx, NULL},
    {"cuLaunchCooperativeKernel", (void *)cuLaunchCooperativeKernel, NULL},
    {"cuMemAlloc", (void *)cuMemAlloc_v2, NULL},
    {"cuMemFree", (void *)cuMemFree_v2, NULL},
    {"cuMemAllocAsync", (void *)cuMemAllocAsync, (void *)cuMemAllocAsync_ptsz},
    {"cuMemFreeAsync", (void *)cuMemFreeAsync, NULL},
    {"cuStreamCreate", (void *)cuStreamCreate, NULL},
    {"cuStreamBeginCapture", (void *)cuStreamBeginCapture_v2, NULL},
    {"cuStreamEndCapture", (void *)cuStreamEndCapture, NULL},
    {"cuGraphCreate", (void *)cuGraphCreate, NULL},
    {"cuGraphDestroy", (void *)cuGraphDestroy, NULL},
    {"cuGraphAddKernelNode", (void *)cuGraphAddKernelNode_v2, NULL},
    {"cuGraphKernelNodeSetParams", (void *)cuGraphKernelNodeSetParams_v2, NULL},
    {"cuGraphExecKernelNodeSetParams", (void *)cuGraphExecKernelNodeSetParams_v2, NULL},
    {"cuGraphInstantiate", (void *)cuGraphInstantiateWithFlags, NULL},
    {"cuGraphInstantiateWithFlags", (void *)cuGraphInstantiateWithFlags, NULL},
    {"cuGraphInstantiateWithParams", (void *)cuGraphInstantiateWithParams, (void *)cuGraphInstantiateWithParams_ptsz},
    {"cuGraphLaunch", (void *)cuGraphLaunch, (void *)cuGraphLaunch_ptsz},
    {"cuGraphExecDestroy", (void *)cuGraphExecDestroy, NULL},
    {"cuGraphExecUpdate", (void *)cuGraphExecUpdate_v2, NULL},
    {"cuDevicePrimaryCtxReset", (void *)cuDevicePrimaryCtxReset_v2, NULL},
    {"cuDevicePrimaryCtxRetain", (void *)cuDevicePrimaryCtxRetain, NULL},
    {"cuDevicePrimaryCtxRelease", (void *)cuDevicePrimaryCtxRelease_v2, NULL},
    {"cuCtxGetCurrent", (void *)cuCtxGetCurrent, NULL},
    {"cuCtxCreate", (void *)cuCtxCreate_v2, NULL},
    {"cuCtxSetCurrent", (void *)cuCtxSetCurrent, NULL},
};

static CUresult get_proc(const char *symbol, void **pfn, cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++) {
        if (strcmp(procs[i].name, symbol) != 0)
            continue;
        *pfn = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && procs[i].ptsz ? procs[i].ptsz : procs[i].fn;
        if (status)
            *status = CU_GET_PROC_ADDRESS_SUCCESS;
        return CUDA_SUCCESS;
    }
    *pfn = NULL;
    if (status)
        *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status)
{
    CALL(OTHER);
    (void)version;
    return get_proc(symbol, pfn, flags, status);
}

CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
    CALL(OTHER);
    (void)version;
    return get_proc(symbol, pfn, flags, NULL);
}
