/* estimate.h: what a loaded variant's resources and PTX say of it before it
 * runs (see estimate.c). */
#ifndef GT_ESTIMATE_H
#define GT_ESTIMATE_H

#include "call.h"
#include "driver.h"
#include "jit.h"
#include "registry.h"
#include "strategy.h"

/* fn: the variant as loaded, run with geometry g in launch c of kernel k;
 * built: its build (its PTX: NVRTC's output, or the PTX it was linked
 * from).  0, or -1 with why. */
int gt_estimate(CUfunction fn, const struct gt_geom *g, const struct gt_jit_job *built, const struct gt_kernel *k,
                const struct gt_call *c, struct gt_estimate *e, char *why, size_t len);

#endif
