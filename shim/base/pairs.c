/* pairs.c: whether a configuration is faster than the original, from
 * launches timed in pairs of one of each.
 *
 * The two launches of a pair ran beside each other in the application, so
 * each pair's ratio is read: what varies over a run, and between the
 * places an application launches a kernel from (which time it differently
 * and put either side's times into two heaps or more, between which a
 * side's median jumps with one launch more), weighs on both alike.
 *
 * After EARLY pairs or more, a configuration where every pair differs by
 * EARLY_GAP the same way (a variant many times faster, or slower) is
 * decided at once, so that a large gain is not spent running the original
 * for the check; six pairs, so that where the places differ by more than
 * that, a configuration no faster passes one time in 64 at most.  After
 * MIN pairs, one faster in fewer pairs than not (Wilcoxon's signed-rank
 * statistic of the log ratios at or below its mean) is not faster, and one
 * faster beyond chance (Z_CLEAR standard deviations of that statistic) by
 * CLEAR is, its gain the Hodges-Lehmann estimate of the ratios' centre.
 * Anything between is judged at LOOK pairs and again at GT_PAIRS_MAX:
 * faster where it is so beyond chance (Z) and by GT_PAIRS_GAIN, not faster
 * where it is not GT_PAIRS_GAIN faster or the last look did not resolve
 * it.  bench/guard_rule measures how often each verdict comes for given
 * gains, noise and places. */
#include "pairs.h"
#include "alloc.h"
#include "median.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EARLY 6
#define EARLY_GAP 0.10
#define MIN 8
#define LOOK 32
#define CLEAR 0.03
#define Z 2.2 /* about one configuration no faster in 70 passes a look by chance, one-sided */
/* Between MIN and LOOK a clear gain is looked for at every pair, and Z at
 * each would pass a configuration no faster about twice as often as the
 * looks do (bench/guard_rule, times spread by 5%: 5.3% of them, 1.9% with
 * this). */
#define Z_CLEAR 3.0

static int by_size(const void *a, const void *b)
{
    double x = fabs(*(const double *)a), y = fabs(*(const double *)b);
    return (x > y) - (x < y);
}

/* Wilcoxon's signed-rank statistic of the n log ratios, as standard normal
 * deviates (ties share their ranks; a pair of equal times counts half to
 * each side): above Z, the configuration is faster in more pairs, and by
 * more, than chance leaves. */
static double signed_rank_z(const double *l, int n)
{
    double a[GT_PAIRS_MAX], w = 0;
    memcpy(a, l, (size_t)n * sizeof *a);
    qsort(a, (size_t)n, sizeof *a, by_size);
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && fabs(a[j]) == fabs(a[i]))
            j++;
        double rank = (i + 1 + j) / 2.0; /* ranks i+1..j, averaged */
        for (int k = i; k < j; k++)
            w += a[k] > 0 ? rank : a[k] == 0 ? rank / 2 : 0;
        i = j;
    }
    double mean = n * (n + 1) / 4.0, var = n * (n + 1) * (2.0 * n + 1) / 24;
    return (w - mean) / sqrt(var);
}

/* The Hodges-Lehmann estimate of the log ratios' centre: the median of
 * every two pairs' average, each with itself too, which stays between the
 * heaps where a median jumps.  Without memory for the averages, the
 * median. */
static double hodges_lehmann(const double *l, int n)
{
    int m = n * (n + 1) / 2, at = 0;
    double *w = gt_malloc((size_t)m * sizeof *w), own[GT_PAIRS_MAX];
    if (!w) {
        memcpy(own, l, (size_t)n * sizeof *own);
        return gt_median(own, n);
    }
    for (int i = 0; i < n; i++)
        for (int j = i; j < n; j++)
            w[at++] = (l[i] + l[j]) / 2;
    double c = gt_median(w, m);
    free(w);
    return c;
}

/* Every pair beyond EARLY_GAP the same way: -1 the configuration is
 * faster, 1 slower, 0 neither. */
static int separated(const double *l, int n)
{
    int faster = 1, slower = 1;
    for (int k = 0; k < n; k++) {
        faster &= l[k] > -log(1 - EARLY_GAP);
        slower &= l[k] < -log(1 + EARLY_GAP);
    }
    return faster ? -1 : slower ? 1 : 0;
}

enum gt_pairs_verdict gt_pairs_judge(struct gt_pairs *st, const double *l, int n, double *ratio)
{
    if (n < EARLY)
        return GT_PAIRS_MORE;
    int side = separated(l, n); /* at any count: a host ahead of the GPU reads its pairs all at once */
    if (side || n < MIN) {
        *ratio = exp(-hodges_lehmann(l, n));
        return side < 0 ? GT_PAIRS_FASTER : side > 0 ? GT_PAIRS_NOT_FASTER : GT_PAIRS_MORE;
    }
    double z = signed_rank_z(l, n);
    int look = n >= GT_PAIRS_MAX || (n >= LOOK && !st->looked);
    if (z > 0 && z < Z_CLEAR && !look)
        return GT_PAIRS_MORE;
    *ratio = exp(-hodges_lehmann(l, n));
    double gain = 1 - *ratio;
    if (z <= 0) /* not faster in more pairs than not */
        return GT_PAIRS_NOT_FASTER;
    if (z >= Z_CLEAR && gain >= CLEAR)
        return GT_PAIRS_FASTER;
    if (!look)
        return GT_PAIRS_MORE;
    st->looked = 1;
    if (z >= Z && gain > GT_PAIRS_GAIN)
        return GT_PAIRS_FASTER;
    return gain <= GT_PAIRS_GAIN || n >= GT_PAIRS_MAX ? GT_PAIRS_NOT_FASTER : GT_PAIRS_MORE;
}
