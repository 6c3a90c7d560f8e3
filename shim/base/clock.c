/* clock.c: seconds on the monotonic clock.
 *
 * Budgets, build times and the time a run has taken are differences of
 * this clock, which the wall clock's adjustments do not move. */
#include "clock.h"

#include <time.h>

double gt_clock_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
