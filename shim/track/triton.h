/* triton.h: the PTX Triton keeps beside each cubin it loads (see triton.c). */
#ifndef GT_TRITON_H
#define GT_TRITON_H

#include "image.h"

/* Sets img->sibling_ptx (and its path and PTX target) when img is a cubin
 * with its PTX beside it: the file it was loaded from (path, or NULL), or a
 * copy of it in Triton's cache. */
void gt_triton_find(struct gt_image *img, const char *path);

#endif
