/* trialsafe.h: whether trials may repeat a kernel (see trialsafe.c). */
#ifndef GT_TRIALSAFE_H
#define GT_TRIALSAFE_H

#include "plan.h"

int gt_trialsafe(const struct gt_plan *p);

#endif
