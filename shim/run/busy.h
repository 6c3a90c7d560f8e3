/* busy.h: whether the device keeps the host waiting, sampled at launches (see busy.c). */
#ifndef GT_BUSY_H
#define GT_BUSY_H

#include "call.h"

#define GT_BUSY_LEAST 16 /* samples below which there is no share */

/* One sample, before launch c: whether its stream still holds earlier work. */
void gt_busy_probe(const struct gt_call *c);

/* The share of the samples that found the stream busy, -1 below
 * GT_BUSY_LEAST of them; *n: how many there were. */
double gt_busy_share(unsigned long *n);

#endif
