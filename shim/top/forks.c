/* forks.c: what a child made by fork() keeps of the shim.
 *
 * A forked child has one thread.  Locks that other threads of its parent
 * held stay held in it forever, and what they were changing stays half
 * changed: the registry, the plans, the session lock of tune mode.  So a
 * child whose parent had reached the driver runs with the shim out of the
 * way, as with GPUTUNE_MODE=off: its hooks pass every call straight to the
 * driver, and at exit it reports and writes nothing (the CUDA driver itself
 * supports no such child).  A child whose parent never reached the driver
 * inherits nothing of that state and applies the cache file as run mode
 * does, but starts no tuning session: tune and retune run as run mode there.
 * Either is said once, at debug.
 *
 * Two things run in every child whatever its mode, and fork() takes their
 * locks so that they are free there: the NVRTC hooks' table (the child's
 * own NVRTC calls reach it) and the compilers, whose exit handlers run at
 * the child's exit: fork() waits for the builds in flight. */
#include "forks.h"
#include "jit.h"
#include "rtcprog.h"
#include "state.h"

#include <pthread.h>

/* Always in this order; the compile pool takes no NVRTC hook's lock. */
static void prepare(void)
{
    gt_jit_fork_hold();
    gt_rtcprog_fork_hold();
}

static void parent(void)
{
    gt_rtcprog_fork_release(0);
    gt_jit_fork_release(0);
}

static void child(void)
{
    gt_rtcprog_fork_release(1);
    gt_jit_fork_release(1);
    if (gt.mode == GT_MODE_OFF)
        return;
    if (atomic_load(&gt.drv.status) > 0) {
        gt.mode = GT_MODE_OFF;
        gt_debug("a forked child of a process that used the driver: the shim stays out of its way (as mode off)");
    } else if (gt.mode != GT_MODE_RUN) {
        gt_debug("a forked child: mode %s runs as mode run here; no tuning session starts", gt_mode_name(gt.mode));
        gt.mode = GT_MODE_RUN;
    }
}

void gt_forks_init(void)
{
    if (pthread_atfork(prepare, parent, child) != 0)
        gt_warn("cannot register fork handlers: a forked child may hang in the shim");
}
