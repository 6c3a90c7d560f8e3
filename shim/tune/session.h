/* session.h: tuning a kernel inside the running application (see session.c). */
#ifndef GT_SESSION_H
#define GT_SESSION_H

#include "call.h"

#include <stdatomic.h>
#include <stdint.h>

struct gt_plan;

void gt_session_enter(void);
void gt_session_leave(void);
int gt_session_tune(struct gt_plan *p, struct gt_handle *hd, const struct gt_call *c, uint64_t sig,
                    const char *signature, CUresult *r);
void gt_session_report(void);

#endif
