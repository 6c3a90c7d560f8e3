/* allowed.h: constraints that read the launch, checked at each launch (see allowed.c). */
#ifndef GT_ALLOWED_H
#define GT_ALLOWED_H

#include "plan.h"

/* The choice launch c may run, for a plan with p->checks_launch: ch when
 * the launch's constraints allow its configuration; else the fastest cached
 * configuration of the kernel that they allow, or NULL for the original.  A
 * refusal is said once per signature (sig and signature as
 * gt_apply_launch has them: 0 and "" when it did not compute them). */
struct gt_choice *gt_allowed_choice(struct gt_plan *p, struct gt_choice *ch, const struct gt_call *c, uint64_t sig,
                                  const char *signature);

#endif
