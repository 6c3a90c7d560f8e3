/* guard_rule: how often the guard's rule (shim/base/pairs.c) keeps a
 * configuration, by its true gain, on simulated pairs of launches.
 *
 *   build/bench/guard_rule [RUNS] [SPREAD] [PLACES]
 *                          (default 4000 checks a gain, 0.05, 0)
 *
 * Each launch's time is its side's true time times exp(SPREAD g), g a
 * standard normal draw, independent from launch to launch; with PLACES P,
 * each pair's two launches also come from two places of the application
 * whose times differ by exp(2P), the configuration at the faster one in a
 * pair of two by a fair draw.  A check judges pair after pair as the guard
 * does until a verdict, or up to the most pairs it reads.  Prints, for
 * gains from -3% to 10%, the share of checks that kept the configuration
 * and the median count of pairs to a verdict. */
#include "pairs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
    return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform());
}

/* One check: 1 kept, 0 dropped or undecided; *pairs the count it ended at. */
static int check(double gain, double spread, double place, int *pairs)
{
    double l[GT_PAIRS_MAX];
    struct gt_pairs st = {0};
    double ratio;
    for (int n = 1; n <= GT_PAIRS_MAX; n++) {
        double site = uniform() < 0.5 ? place : -place;
        l[n - 1] = -log(1 - gain) + spread * (normal() - normal()) + 2 * site;
        enum gt_pairs_verdict v = gt_pairs_judge(&st, l, n, &ratio);
        if (v != GT_PAIRS_MORE) {
            *pairs = n;
            return v == GT_PAIRS_FASTER;
        }
    }
    *pairs = GT_PAIRS_MAX;
    return 0;
}

static int by_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 4000;
    double spread = argc > 2 ? atof(argv[2]) : 0.05, place = argc > 3 ? atof(argv[3]) : 0;
    if (argc > 4 || runs < 1 || spread < 0 || place < 0) {
        fprintf(stderr, "usage: guard_rule [RUNS] [SPREAD] [PLACES]\n");
        return 2;
    }
    int *at = malloc((size_t)runs * sizeof *at);
    if (!at)
        return 1;
    static const double gains[] = {-0.03, 0, 0.01, 0.03, 0.05, 0.10};
    printf("%d checks a gain, launches spread by %.3f (log), places %.3f apart (log)\n", runs, spread, 2 * place);
    printf("%8s %8s %12s\n", "gain", "kept", "pairs (median)");
    for (size_t g = 0; g < sizeof gains / sizeof gains[0]; g++) {
        int kept = 0;
        for (int i = 0; i < runs; i++)
            kept += check(gains[g], spread, place, &at[i]);
        qsort(at, (size_t)runs, sizeof *at, by_int);
        printf("%+7.0f%% %7.1f%% %12d\n", 100 * gains[g], 100.0 * kept / runs, at[runs / 2]);
    }
    free(at);
    return 0;
}
