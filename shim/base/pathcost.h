/* pathcost.h: the host time a code path adds to the calls it wraps, sampled (see pathcost.c). */
#ifndef GT_PATHCOST_H
#define GT_PATHCOST_H

#include <stdatomic.h>
#include <stdint.h>

#define GT_PATHCOST_EVERY 256 /* one call of this many is timed: a power of two */
#define GT_PATHCOST_KEPT 1024 /* the last samples kept */
#define GT_PATHCOST_LEAST 16  /* samples below which there is no figure */

struct gt_pathcost {
    atomic_ulong n;                       /* samples added, ever */
    atomic_ulong left;                    /* samples left out as disturbed, ever */
    _Atomic uint64_t ns[GT_PATHCOST_KEPT]; /* the last ones, a ring */
};

/* A sampled call begins on this thread. */
void gt_pathcost_begin(void);

/* The call being sampled on this thread does work that the path's steady
 * state does not (timing a launch with events, a session, waiting for one
 * on another thread): its sample is left out.  Cheap outside a sample. */
void gt_pathcost_disturb(void);

/* One sample: a wrapped call took `total` ns from the path's entry to its
 * return, of which `inner` ns in what it wraps (both by gt_clock_ns); left
 * out (counted in `left`) where disturbed since gt_pathcost_begin. */
void gt_pathcost_add(struct gt_pathcost *p, uint64_t total, uint64_t inner);

/* The median of the samples kept, less what the clock's reads in each
 * cost (pathcost.c), in ns (at least 0); -1 below GT_PATHCOST_LEAST
 * samples.  *n: how many it read. */
double gt_pathcost_ns(struct gt_pathcost *p, int *n);

#endif
