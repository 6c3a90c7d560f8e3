/* interpose.c: how the application's calls reach the shim.
 *
 * Three doors lead an application to a driver entry point, and the shim
 * stands in each:
 *   - the dynamic linker, for programs linked with -lcuda: the shim exports
 *     the hooked symbols of driver.def itself;
 *   - dlsym(), used by the CUDA runtime, PyTorch, Triton and others on their
 *     own handle of libcuda.so.1: the shim exports dlsym (the real one comes
 *     from dlvsym) and replaces what it returns;
 *   - cuGetProcAddress(), through which the runtime resolves ~440 entry
 *     points, some in their per-thread-stream (_ptsz) form.
 * Replacement is by identity: a returned pointer equal to the real address
 * of a hooked entry point becomes the shim's function of the same ABI name.
 * Suffixes are never guessed, so a version the shim does not know passes
 * through untouched. */
#include "state.h"
#include "apply.h"
#include "elfsym.h"
#include "interpose.h"
#include "nvrtc_hooks.h"

#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct hook {
    void *real;
    void *hook;
    const char *name;
};

#define GT_HOOK(name, type) +1
#define GT_USE(name, type)
#define GT_USE_OR(name, type, older)
enum { NHOOKS = 0
#include "driver.def"
};
#undef GT_HOOK
#undef GT_USE
#undef GT_USE_OR

static struct hook hooks[NHOOKS]; /* sorted by real address once built */
static size_t nhooks;

static int by_real(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const struct hook *)a)->real;
    uintptr_t y = (uintptr_t)((const struct hook *)b)->real;
    return (x > y) - (x < y);
}

/* Called once, at the first pointer to replace once the driver is resolved. */
static void build(void)
{
    nhooks = 0;
#define GT_HOOK(sym, type) \
    if (gt.drv.sym) hooks[nhooks++] = (struct hook){(void *)gt.drv.sym, (void *)sym, #sym};
#define GT_USE(sym, type)
#define GT_USE_OR(sym, type, older)
#include "driver.def"
#undef GT_HOOK
#undef GT_USE
#undef GT_USE_OR
    qsort(hooks, nhooks, sizeof hooks[0], by_real);
    for (size_t i = 1; i < nhooks; i++)
        if (hooks[i].real == hooks[i - 1].real)
            gt_debug("driver entry points %s and %s share one address", hooks[i - 1].name, hooks[i].name);
    gt_debug("%zu of %d hooked entry points found in the driver", nhooks, NHOOKS);
}

static void *replace_driver_pointer(void *p)
{
    static pthread_once_t built = PTHREAD_ONCE_INIT;
    if (gt.mode == GT_MODE_OFF || !gt_driver_ready() || gt_apply_idle())
        return p;
    pthread_once(&built, build);
    struct hook key = {.real = p};
    const struct hook *h = bsearch(&key, hooks, nhooks, sizeof hooks[0], by_real);
    return h ? h->hook : p;
}

static int is_ours(const void *p)
{
    static Dl_info self;
    Dl_info info;
    if (!self.dli_fbase)
        dladdr((void *)gt_elfsym_dlsym, &self);
    return dladdr(p, &info) && info.dli_fbase == self.dli_fbase;
}

GT_EARLY static int is_driver_name(const char *name)
{
    return name[0] == 'c' && name[1] == 'u' && isupper((unsigned char)name[2]);
}

GT_EARLY static int is_nvrtc_name(const char *name)
{
    return name[0] == 'n' && name[1] == 'v' && name[2] == 'r' && name[3] == 't' && name[4] == 'c';
}

/* What a lookup that found `p` for a driver or NVRTC `name` should return
 * to the application. */
static void *interpose_symbol(const char *name, void *p)
{
    int driver = is_driver_name(name);
    gt_init();
    /* Our own export was found: without the shim the lookup would have found
     * the next definition or nothing, and a program probing for CUDA with
     * dlsym(RTLD_DEFAULT, "cuInit") must keep seeing nothing. */
    if (is_ours(p))
        return gt_elfsym_dlsym(RTLD_NEXT, name) ? p : NULL;
    if (driver)
        return replace_driver_pointer(p);
    return gt.mode == GT_MODE_OFF ? p : gt_nvrtc_symbol(name, p);
}

/* RTLD_NEXT must mean "after the caller", not "after the shim": elfsym.c
 * answers it, and hands what only the loader knows (IFUNCs) to libc. */
GT_EARLY static void *next_after(const void *caller, const char *name)
{
    void *p = NULL;
    int r = gt_elfsym_next(caller, name, &p);
    return r < 0 ? gt_elfsym_dlsym(RTLD_NEXT, name) : p;
}

/* A wrapper of dlsym preloaded before the shim often finds "the real one"
 * as dlvsym(RTLD_NEXT, "dlsym", <libc's version>).  On x86-64 the shim's
 * dlsym answers to libc's version names (versions.map), GLIBC_2.34 the
 * default, so that such a wrapper still leads to it. */
#if defined(__x86_64__)
#define GT_DLSYM gt_interpose_dlsym
__asm__(".symver gt_interpose_dlsym, dlsym@@GLIBC_2.34\n"
        ".globl gt_interpose_dlsym_old\n.set gt_interpose_dlsym_old, gt_interpose_dlsym\n"
        ".symver gt_interpose_dlsym_old, dlsym@GLIBC_2.2.5");
#else
#define GT_DLSYM dlsym
#endif

GT_EARLY GT_EXPORT void *GT_DLSYM(void *handle, const char *name)
{
    void *p = handle == RTLD_NEXT ? next_after(__builtin_return_address(0), name)
                                  : gt_elfsym_dlsym(handle, name);
    return p && (is_driver_name(name) || is_nvrtc_name(name)) ? interpose_symbol(name, p) : p;
}

static CUresult proc_result(CUresult r, void **pfn)
{
    atomic_fetch_add_explicit(&gt.intercept.proc_lookups, 1, memory_order_relaxed);
    if (r == CUDA_SUCCESS && pfn && *pfn) {
        void *q = replace_driver_pointer(*pfn);
        if (q != *pfn)
            atomic_fetch_add_explicit(&gt.intercept.proc_replaced, 1, memory_order_relaxed);
        *pfn = q;
    }
    return r;
}

CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
    if (!gt_driver_ready() || !gt.drv.cuGetProcAddress)
        return CUDA_ERROR_NOT_INITIALIZED;
    return proc_result(gt.drv.cuGetProcAddress(symbol, pfn, version, flags), pfn);
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status)
{
    if (!gt_driver_ready() || !gt.drv.cuGetProcAddress_v2)
        return CUDA_ERROR_NOT_INITIALIZED;
    return proc_result(gt.drv.cuGetProcAddress_v2(symbol, pfn, version, flags, status), pfn);
}

/* At exit: a driver in the process to which no call ever led the shim was
 * reached past it, as when a dlsym preloaded before the shim's finds libc's
 * in a way the shim cannot answer (through libc's own handle). */
void gt_interpose_check_bypass(void)
{
    void *drv = gt.mode == GT_MODE_OFF || atomic_load(&gt.drv.status) != 0
                    ? NULL : dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!drv)
        return;
    dlclose(drv);
    void *first = gt_elfsym_dlsym(RTLD_DEFAULT, "dlsym");
    Dl_info info;
    if (first && !is_ours(first) && dladdr(first, &info) && info.dli_fname)
        gt_warn("libcuda.so.1 was loaded, but no call of the application reached the shim: the dlsym of %s comes "
                "before libgputune.so's and does not lead to it, so no launch was seen; preload libgputune.so first",
                info.dli_fname);
}

void gt_interpose_report(void)
{
    gt_debug("cuGetProcAddress: %lu lookups, %lu replaced by the shim",
             atomic_load(&gt.intercept.proc_lookups), atomic_load(&gt.intercept.proc_replaced));
}
