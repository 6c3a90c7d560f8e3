/* sidefx.h: what a kernel does that outlives its run (see sidefx.c). */
#ifndef GT_SIDEFX_H
#define GT_SIDEFX_H

#include "devcode.h"

#include <stddef.h>

int gt_sidefx_entry(const struct gt_devcode_entry *e, const char *kernel, unsigned *found);
int gt_sidefx(const unsigned char *code, size_t size, const char *kernel, int arch, unsigned *found, char *err,
              size_t errlen);
void gt_sidefx_describe(unsigned found, char *buf, size_t len);

#endif
