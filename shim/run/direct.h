/* direct.h: launch-time knobs on the application's own function (see direct.c). */
#ifndef GT_DIRECT_H
#define GT_DIRECT_H

#include "call.h"
#include "space.h"

CUresult gt_direct_launch(struct gt_handle *hd, const struct gt_call *c, const struct gt_knobs *k,
                          const struct gt_geom *g);
void gt_direct_restore(struct gt_handle *hd);

#endif
