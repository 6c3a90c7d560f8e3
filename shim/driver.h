/* driver.h: the real CUDA driver behind the shim (see driver.c). */
#ifndef GT_DRIVER_H
#define GT_DRIVER_H

/* Applications still call deprecated entry points; the shim must hook them. */
#define CUDA_ENABLE_DEPRECATED
#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdatomic.h>

#include "cudalibs.h"
#include "pathcost.h"

/* cuda.h renames cuGetProcAddress to its _v2; the shim needs both ABIs by
 * their own names. */
#undef cuGetProcAddress

struct gt_driver {
    atomic_int status; /* 0: not tried, 1: usable, -1: not loaded in this process */
    void *handle;      /* libcuda.so.1, as the application loaded it */
    const char *lacks; /* an entry point the shim calls that this driver lacks, NULL if none */
    int cuda;          /* the CUDA version it runs, 13000 for 13.0 (cuDriverGetVersion) */
    char release[GT_DRIVER_VERSION_MAX]; /* its own version, "580.159.04"; "" when not known */
#define GT_HOOK(name, type) type name;
#define GT_USE(name, type) type name;
#define GT_USE_OR(name, type, older) type name;
#include "driver.def"
#undef GT_HOOK
#undef GT_USE
#undef GT_USE_OR
};

/* Declarations of the shim's own versions of the hooked entry points,
 * typed from cudaTypedefs.h so that every definition is checked against
 * the driver's ABI. */
#define GT_HOOK(name, type) extern __typeof__(*(type)0) name __attribute__((visibility("default")));
#define GT_USE(name, type)
#define GT_USE_OR(name, type, older)
#include "driver.def"
#undef GT_HOOK
#undef GT_USE
#undef GT_USE_OR

int gt_driver_open(void);
const char *gt_cu_error(CUresult r);

/* True once the real driver is resolved; cheap enough for every hook. */
static inline int gt_driver_ready(void)
{
    extern struct gt_driver *const gt_drv;
    int s = atomic_load_explicit(&gt_drv->status, memory_order_acquire);
    return s > 0 || (s == 0 && gt_driver_open());
}

/* e recorded on stream s, through the per-thread default stream's entry
 * point where the launch it times took that one; none (success) without e.
 * A launch timed so is no sample of the launch path's steady state. */
static inline CUresult gt_event_record(CUevent e, CUstream s, int per_thread)
{
    extern struct gt_driver *const gt_drv;
    if (!e)
        return CUDA_SUCCESS;
    gt_pathcost_disturb();
    return (per_thread ? gt_drv->cuEventRecord_ptsz : gt_drv->cuEventRecord)(e, s);
}

/* First line of every hook: with no driver in the process, the shim is inert. */
#define GT_REQUIRE_DRIVER()                  \
    do {                                     \
        if (!gt_driver_ready())              \
            return CUDA_ERROR_NOT_INITIALIZED; \
    } while (0)

#endif
