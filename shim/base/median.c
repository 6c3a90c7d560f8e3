/* median.c: the median of measured times.
 *
 * Trials and the guard judge repeated timings by their median, which one
 * slow repetition (a context switch, a clock change) does not move. */
#include "median.h"

#include <stdlib.h>

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v; -1 when it is empty. */
double gt_median(double *v, int n)
{
    if (n <= 0)
        return -1;
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
