/* pathcost.c: the host time a code path adds to the calls it wraps, sampled.
 *
 * The shim's launch path costs its host some tens of nanoseconds a launch,
 * more on a slower host or for a launch of more arguments; what a kept
 * configuration saves must pay for it.  One launch in GT_PATHCOST_EVERY is
 * timed from the path's entry to its return, less the time inside the
 * driver's own launch: four reads of the clock, each of which the sample
 * counts in part, so their cost (the least of several back-to-back reads,
 * measured when the figure is asked for, off the hot path) comes off the
 * median.  A ring keeps the last samples, so that the figure is the
 * steady state's, not the warm-up's, and a sample whose call did what the
 * steady state does not (a launch timed with events by the guard, a tuning
 * meter or an online turn; one whose kernel the guard still judges, which
 * reads and weighs the times that finished; a session, a wait for another
 * thread's) is left out: a tuning run's path is full of them, and the
 * figure stands for the path of the runs after it. */
#include "pathcost.h"
#include "clock.h"
#include "median.h"

#define CLOCK_TRIES 64

static _Thread_local int disturbed;

void gt_pathcost_begin(void)
{
    disturbed = 0;
}

void gt_pathcost_disturb(void)
{
    disturbed = 1;
}

void gt_pathcost_add(struct gt_pathcost *p, uint64_t total, uint64_t inner)
{
    if (disturbed) {
        atomic_fetch_add_explicit(&p->left, 1, memory_order_relaxed);
        return;
    }
    unsigned long i = atomic_fetch_add_explicit(&p->n, 1, memory_order_relaxed);
    atomic_store_explicit(&p->ns[i % GT_PATHCOST_KEPT], total > inner ? total - inner : 0, memory_order_relaxed);
}

/* What one read of the clock costs between the two it separates. */
static double clock_read_ns(void)
{
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < CLOCK_TRIES; i++) {
        uint64_t a = gt_clock_ns(), b = gt_clock_ns();
        if (b - a < least)
            least = b - a;
    }
    return (double)least;
}

double gt_pathcost_ns(struct gt_pathcost *p, int *n)
{
    unsigned long added = atomic_load_explicit(&p->n, memory_order_relaxed);
    double v[GT_PATHCOST_KEPT];
    *n = added < GT_PATHCOST_KEPT ? (int)added : GT_PATHCOST_KEPT;
    if (*n < GT_PATHCOST_LEAST)
        return -1;
    for (int i = 0; i < *n; i++)
        v[i] = (double)atomic_load_explicit(&p->ns[i], memory_order_relaxed);
    /* Between entry and the driver's launch, and between its return and the
     * path's, the sample holds about one read each. */
    double ns = gt_median(v, *n) - 2 * clock_read_ns();
    return ns > 0 ? ns : 0;
}
