/* clock.h: seconds on the monotonic clock (see clock.c). */
#ifndef GT_CLOCK_H
#define GT_CLOCK_H

double gt_clock_seconds(void);

#endif
