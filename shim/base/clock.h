/* clock.h: the monotonic clock, in seconds or nanoseconds (see clock.c). */
#ifndef GT_CLOCK_H
#define GT_CLOCK_H

#include <stdint.h>

double gt_clock_seconds(void);
uint64_t gt_clock_ns(void);

#endif
