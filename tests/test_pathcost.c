/* test_pathcost: the sampled cost of a path: no figure from too few
 * samples, the median of the samples less what reading the clock costs
 * (never below 0), an inner part taken off each sample, the ring keeping
 * only the last samples, and a disturbed sample left out. */
#include "pathcost.h"
#include "clock.h"
#include "tap.h"

static struct gt_pathcost p;

int main(void)
{
    int n = -1;
    for (int i = 0; i < GT_PATHCOST_LEAST - 1; i++)
        gt_pathcost_add(&p, 1000, 0);
    ok(gt_pathcost_ns(&p, &n) == -1 && n == GT_PATHCOST_LEAST - 1, "too few samples: no figure, and how many");
    gt_pathcost_add(&p, 1000, 0);
    double ns = gt_pathcost_ns(&p, &n);
    ok(n == GT_PATHCOST_LEAST && ns > 0 && ns <= 1000, "enough: the median less the clock's reads (%.0f of 1000)", ns);
    uint64_t a = gt_clock_ns(), b = gt_clock_ns();
    ok(b >= a && b - a < 1000000, "the clock reads nanoseconds that do not go back");

    static struct gt_pathcost inner, tiny, ring;
    for (int i = 0; i < GT_PATHCOST_LEAST; i++)
        gt_pathcost_add(&inner, 5000, 4000);
    ok(gt_pathcost_ns(&inner, &n) <= 1000 && gt_pathcost_ns(&inner, &n) > 0, "the inner part comes off each sample");
    for (int i = 0; i < GT_PATHCOST_LEAST; i++)
        gt_pathcost_add(&tiny, 1, 5);
    ok(gt_pathcost_ns(&tiny, &n) == 0, "never below 0, an inner part longer than the whole too");

    for (int i = 0; i < GT_PATHCOST_KEPT; i++)
        gt_pathcost_add(&ring, 1000000, 0);
    for (int i = 0; i < GT_PATHCOST_KEPT; i++)
        gt_pathcost_add(&ring, 2000, 0);
    ns = gt_pathcost_ns(&ring, &n);
    ok(n == GT_PATHCOST_KEPT && ns <= 2000 && ns > 1000, "the ring holds the last %d samples only (%.0f)",
       GT_PATHCOST_KEPT, ns);

    static struct gt_pathcost calm;
    for (int i = 0; i < GT_PATHCOST_LEAST; i++) {
        gt_pathcost_begin();
        gt_pathcost_add(&calm, 1000, 0);
        gt_pathcost_begin();
        gt_pathcost_disturb();
        gt_pathcost_add(&calm, 1000000, 0);
    }
    ns = gt_pathcost_ns(&calm, &n);
    ok(n == GT_PATHCOST_LEAST && calm.left == GT_PATHCOST_LEAST && ns <= 1000,
       "a sample disturbed after its begin is left out and counted (%d kept, %lu left, %.0f)", n,
       (unsigned long)calm.left, ns);
    gt_pathcost_begin();
    gt_pathcost_add(&calm, 1000, 0);
    ok(calm.left == GT_PATHCOST_LEAST && calm.n == GT_PATHCOST_LEAST + 1, "the next begin clears the mark");
    done_testing();
}
