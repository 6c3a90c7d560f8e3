/* suspend.h: whether the application suspended the shim's work on its
 * launches (gputune_suspend, top/lifetime.c), read at every launch. */
#ifndef GT_SUSPEND_H
#define GT_SUSPEND_H

#include "state.h"

/* One relaxed load: a launch needs no ordering with the call that suspended,
 * only to see it soon after. */
static inline int gt_suspended(void)
{
    return atomic_load_explicit(&gt.intercept.suspended, memory_order_relaxed);
}

#endif
