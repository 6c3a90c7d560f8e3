/* online.h: tuning the knobs that cannot change results on the application's own launches (see online.c). */
#ifndef GT_ONLINE_H
#define GT_ONLINE_H

#include "driver.h"

#include <stdint.h>

struct gt_plan;
struct gt_handle;
struct gt_call;

/* Runs a launch of a signature not tuned yet in online mode: one of its
 * candidates, timed.  Returns 1 with the launch's result in *r when it ran
 * the launch, 0 when the caller must launch the original. */
int gt_online_launch(struct gt_plan *p, struct gt_handle *hd, const struct gt_call *c, uint64_t sig,
                     const char *signature, CUresult *r);

/* At exit and before a context goes: decides the trials whose launches are all done (see online.c). */
void gt_online_collect(void);

/* Ends every trial still on before a context goes (see online.c). */
void gt_online_detach(void);

#endif
