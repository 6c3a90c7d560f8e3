/* busy.c: whether the device keeps the host waiting, sampled at launches.
 *
 * What the shim's path adds to a launch is host time, and what a kept
 * configuration saves is device time; an application pays the first only
 * where the device waits for the host, and gains the second only where the
 * host waits for the device.  So one launch in GT_PATHCOST_EVERY of each
 * thread's (half a period away from the path's own samples, hook_launch.c)
 * asks the driver, just before it launches, whether the launch's stream
 * still holds earlier work: where it does, the device is behind the host
 * and the path's time at this launch is hidden behind that work.  The share
 * of such samples is what the guard's account at exit weighs the two with
 * (launch/apply.c).  A stream being captured is never asked, nor any while
 * a capture runs anywhere in the process: a query there would break it. */
#include "busy.h"
#include "state.h"

static CUresult query(const struct gt_call *c)
{
    return (gt_call_per_thread(c) ? gt.drv.cuStreamQuery_ptsz : gt.drv.cuStreamQuery)(c->s);
}

void gt_busy_probe(const struct gt_call *c)
{
    if (atomic_load_explicit(&gt.track.captures, memory_order_relaxed) != 0)
        return;
    CUresult r = query(c);
    if (r == CUDA_ERROR_NOT_READY)
        atomic_fetch_add_explicit(&gt.run.busy_behind, 1, memory_order_relaxed);
    else if (r == CUDA_SUCCESS)
        atomic_fetch_add_explicit(&gt.run.busy_idle, 1, memory_order_relaxed);
}

double gt_busy_share(unsigned long *n)
{
    unsigned long behind = atomic_load_explicit(&gt.run.busy_behind, memory_order_relaxed);
    *n = behind + atomic_load_explicit(&gt.run.busy_idle, memory_order_relaxed);
    return *n < GT_BUSY_LEAST ? -1 : (double)behind / (double)*n;
}
