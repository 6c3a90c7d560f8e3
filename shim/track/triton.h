/* triton.h: the PTX Triton keeps beside each cubin it loads (see triton.c). */
#ifndef GT_TRITON_H
#define GT_TRITON_H

#include "image.h"

/* Sets img->sibling_ptx (and its path and PTX target) when img is a cubin
 * that Triton's cache holds with its PTX beside it. */
void gt_triton_find(struct gt_image *img);

#endif
