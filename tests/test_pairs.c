/* test_pairs: the verdicts gt_pairs_judge gives on pairs of known log
 * ratios: every pair far apart decides early, a configuration no faster is
 * not kept however its places time, a small steady gain needs the first
 * look, and a count that reaches no verdict asks for more. */
#include "pairs.h"
#include "tap.h"

#include <math.h>

/* The verdict on n pairs, each l (or, with place, l + place and l - place
 * in the order alt gives: the kernel launched from two places of different
 * speed, the configuration at either), judged at every count up to n;
 * *at: the count it came at. */
static enum gt_pairs_verdict judge(double l, double place, const int *alt, int n, int *at, double *ratio)
{
    double v[GT_PAIRS_MAX];
    struct gt_pairs st = {0};
    *ratio = 0;
    for (int k = 0; k < n; k++) {
        v[k] = l + (alt ? (alt[k % 8] ? place : -place) : 0);
        enum gt_pairs_verdict r = gt_pairs_judge(&st, v, k + 1, ratio);
        if (r != GT_PAIRS_MORE) {
            *at = k + 1;
            return r;
        }
    }
    *at = n;
    return GT_PAIRS_MORE;
}

int main(void)
{
    int at;
    double ratio;
    is_int(judge(log(1.25), 0, NULL, 64, &at, &ratio), GT_PAIRS_FASTER, "1.25x in every pair: faster");
    is_int(at, 6, "  after six pairs");
    ok(fabs(ratio - 0.8) < 1e-9, "  the configuration's time 0.8 of the original's");
    is_int(judge(-log(1.2), 0, NULL, 64, &at, &ratio), GT_PAIRS_NOT_FASTER, "1.2x slower in every pair: not faster");
    is_int(at, 6, "  after six pairs");
    is_int(judge(0, 0, NULL, 64, &at, &ratio), GT_PAIRS_NOT_FASTER, "equal times: not faster");
    is_int(at, 8, "  after eight");
    is_int(judge(log(1.04), 0, NULL, 64, &at, &ratio), GT_PAIRS_FASTER, "4%% faster in every pair: faster");
    is_int(at, 12, "  once twelve pass the test for a clear gain");
    is_int(judge(log(1.004), 0, NULL, 64, &at, &ratio), GT_PAIRS_FASTER, "0.4%% faster in every pair: faster");
    is_int(at, 32, "  at the first look");
    is_int(judge(log(1.001), 0, NULL, 64, &at, &ratio), GT_PAIRS_NOT_FASTER, "0.1%% faster: not faster");
    is_int(at, 32, "  at the first look, below the least gain");
    static const int half[8] = {1, 0, 0, 1, 1, 0, 1, 0};
    is_int(judge(0, log(1 / 0.6), half, 64, &at, &ratio), GT_PAIRS_NOT_FASTER,
           "no gain, two places 1.67x apart, the configuration at the faster in half the pairs: not faster");
    is_int(judge(log(1.1), log(1 / 0.6), half, 64, &at, &ratio), GT_PAIRS_FASTER,
           "10%% faster at both places, drawn in half the pairs: faster");
    ok(ratio > 0.85 && ratio < 0.95, "  its estimate between the places' (%.3f)", ratio);
    double noisy[GT_PAIRS_MAX];
    struct gt_pairs st = {0};
    for (int k = 0; k < 5; k++)
        noisy[k] = log(2);
    is_int(gt_pairs_judge(&st, noisy, 5, &ratio), GT_PAIRS_MORE, "five pairs: more wanted, however far apart");
    return done_testing();
}
