/* hook_ctx.c: contexts the application tears down.
 *
 * A guard's events (run/guard.c), online mode's (tune/online.c) and the
 * budget's meters' (tune/budget.c) live in the context of the launches
 * they time, and go with it.  Before the application destroys a context or
 * resets a device's primary one, the guards read what their launches left
 * done and then stop judging, online trials still on end, and meters time
 * their launches again (apply.c: gt_apply_detach), so that nothing touches
 * those events after.  Which context each guard's events are in is
 * not looked up: every guard still judging stops, those of other contexts
 * too, and their times go to the cache file for a later run to go on from.
 * A primary context released for the last time goes as well, but a release
 * does not say whether it was the last, and frameworks retain and release
 * it often: releases are left alone, and the exit handler (apply.c) reads
 * the guards' times before the runtime releases it at exit. */
#include "apply.h"
#include "state.h"

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
