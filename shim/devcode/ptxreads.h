/* ptxreads.h: the parameters a kernel may read memory through, from its PTX (see ptxreads.c). */
#ifndef GT_PTXREADS_H
#define GT_PTXREADS_H

#include <stddef.h>

/* Sets reads[i] to 1 for each parameter of `entry` the kernel may read
 * through (or let escape), 0 for those it only writes through or does not
 * dereference; nparams must be how many it declares.  0, or -1 with err
 * (PTX it cannot read, no such entry, another parameter count, out of
 * memory): then nothing is known. */
int gt_ptxreads(const char *ptx, size_t size, const char *entry, unsigned nparams, unsigned char *reads, char *err,
                size_t errlen);

#endif
