/* clock.c: the monotonic clock.
 *
 * Budgets, build times and the time a run has taken are differences of
 * this clock, which the wall clock's adjustments do not move; the launch
 * path's sampled cost (pathcost.c) reads it in whole nanoseconds. */
#include "clock.h"

#include <time.h>

uint64_t gt_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double gt_clock_seconds(void)
{
    return (double)gt_clock_ns() * 1e-9;
}
