/* hook_ctx.c: contexts the application tears down.
 *
 * A guard's events (run/guard.c), online mode's (tune/online.c) and the
 * budget's meters' (tune/budget.c) live in the context of the launches
 * they time, and go with it.  Before the application destroys a context,
 * resets a device's primary one or releases its last retain of it, the
 * guards read what their launches left done and then stop judging, online
 * trials still on end, and meters time their launches again (apply.c:
 * gt_apply_detach), so that nothing touches those events after.  Which
 * context each guard's events are in is not looked up: every guard still
 * judging stops, those of other contexts too, and their times go to the
 * cache file for a later run to go on from.
 *
 * A release does not say whether it is the last, so the hooks count each
 * device's retains; a release the count does not cover (a retain made
 * before the shim was loaded) is taken as the last.  Frameworks that
 * retain the primary context once and keep it (the CUDA runtime, which
 * may release it only at exit, after the exit handler in apply.c read the
 * guards' times) never reach one. */
#include "apply.h"
#include "state.h"

#define MAX_DEVICES 64

static atomic_int retains[MAX_DEVICES];

CUresult cuCtxDestroy(CUcontext ctx)
{
    GT_REQUIRE_DRIVER();
    if (gt.mode != GT_MODE_OFF)
        gt_apply_detach();
    return gt.drv.cuCtxDestroy_v2(ctx);
}

CUresult cuDevicePrimaryCtxReset(CUdevice dev)
{
    GT_REQUIRE_DRIVER();
    if (gt.mode != GT_MODE_OFF)
        gt_apply_detach();
    return gt.drv.cuDevicePrimaryCtxReset_v2(dev);
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuDevicePrimaryCtxRetain(pctx, dev);
    if (r == CUDA_SUCCESS && dev >= 0 && dev < MAX_DEVICES)
        atomic_fetch_add(&retains[dev], 1);
    return r;
}

/* Whether this release may be the last of dev's retains. */
static int last_release(CUdevice dev)
{
    if (dev < 0 || dev >= MAX_DEVICES)
        return 1;
    int n = atomic_load(&retains[dev]);
    while (n > 0 && !atomic_compare_exchange_weak(&retains[dev], &n, n - 1))
        ;
    return n <= 1;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
    GT_REQUIRE_DRIVER();
    if (last_release(dev) && gt.mode != GT_MODE_OFF)
        gt_apply_detach();
    return gt.drv.cuDevicePrimaryCtxRelease_v2(dev);
}
