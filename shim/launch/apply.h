/* apply.h: configurations applied at launch (see apply.c). */
#ifndef GT_APPLY_H
#define GT_APPLY_H

#include "call.h"
#include "registry.h"

int gt_apply_launch(struct gt_handle *hd, const struct gt_call *c, CUresult *r);
int gt_apply_node(const CUDA_KERNEL_NODE_PARAMS *in, CUDA_KERNEL_NODE_PARAMS *out);
void gt_apply_exit(void);

#endif
