/* session.h: tuning a kernel inside the running application (see session.c). */
#ifndef GT_SESSION_H
#define GT_SESSION_H

#include "call.h"

#include <stdatomic.h>
#include <stdint.h>

struct gt_plan;
struct gt_pool;

/* Whether the mode runs sessions (tune, retune), so that every launch,
 * a graph's too, passes gt_session_enter and gt_session_leave. */
int gt_session_mode(void);
void gt_session_enter(void);
void gt_session_leave(void);
/* Tunes launch c's signature, then runs c with the winner into *r
 * (returning 1), or returns 0 for the caller to launch the original; with
 * r NULL (a graph's kernel node, launch/graphs.c) it launches nothing of
 * the application's and returns 0. */
int gt_session_tune(struct gt_plan *p, struct gt_handle *hd, const struct gt_call *c, uint64_t sig,
                    const char *signature, CUresult *r);
void gt_session_report(void);
/* The worker threads that build variants, started at the first call. */
struct gt_pool *gt_session_pool(void);

#endif
