/* guard.h: an applied configuration checked on the application's own launches (see guard.c). */
#ifndef GT_GUARD_H
#define GT_GUARD_H

#include "driver.h"
#include "pairs.h"

#include <pthread.h>

/* The least gain a configuration is kept for once its launches are many,
 * as on a long kernel whose launches time alike; what online mode chooses
 * too (tune/online.c). */
#define GT_GUARD_GAIN GT_PAIRS_GAIN

/* A configuration not judged by the end of a run whose checked launches
 * took less than this share of the run's time since its first launch gains
 * at most a part of that: less than keeping the shim in the path of every
 * other launch costs (a framework's fill kernel launched once or twice a
 * run would otherwise be carried from run to run for dozens of runs). */
#define GT_GUARD_RARE 0.001

/* The least host time run mode's path is taken to add to a launch while
 * any configuration applies, against the driver's own entry points, which
 * run mode hands out when nothing does (launch/apply.c: gt_apply_idle):
 * 23-63 ns a launch of PyTorch's in bench/frameworks/launch_cost on an H200
 * host.  What a run's kept configurations saved must pay for the path at
 * every launch of the run, or run mode would be slower with them than
 * without; the path's cost is measured in the process (base/pathcost.c),
 * which leaves out what the path costs the driver's call after it, so the
 * figure never goes below this. */
#define GT_GUARD_PATH_NS 60

/* What the kept configurations must save, in multiples of the path's cost:
 * that cost varies from launch to launch and its floor is one host's, and
 * each saving is estimated from a few dozen pairs of launches.  Paid twice
 * over, they still leave the run no slower where the path costs twice the
 * figure or they saved half what their pairs said.
 * Paid once, on the H200, resnet18's kept carve-out (20.6 ms saved against
 * 18.7-20.6 ms) and compile_block's four (4.1 ms against 3.9 ms) kept the
 * shim in every launch's path for no gain the application could see. */
#define GT_GUARD_PAY 2

enum gt_guard_verdict { GT_GUARD_CHECKING, GT_GUARD_KEPT, GT_GUARD_DROPPED };

/* One launch under check: what it runs and the events around it. */
struct gt_guard_slot {
    int variant;        /* 1: the configuration, 0: the original */
    int timed;          /* 0: a warm-up launch, not timed */
    int unrecorded;     /* an event of it could not be recorded: no time will come */
    CUevent ev[2];
};

struct gt_guard {
    pthread_mutex_t lock;
    enum gt_guard_verdict verdict;
    CUcontext ctx;            /* where its events live; launches elsewhere are not checked */
    struct gt_guard_slot *slots;
    int issued;               /* slots handed out */
    int done;                 /* slots read, in order */
    int inuse;                /* handed out and not yet given back */
    double *us[2];            /* times read: the original's, the configuration's */
    int n[2];
    double med[2];            /* median times, once decided */
    double ratio;             /* the configuration's time over the original's (the pairs' estimate) */
    int judged;               /* pairs the last judgement read: the next waits for one more */
    int broken;               /* an event failed: no verdict will come */
    int earlier;              /* the verdict is an earlier run's (gt_guard_kept_before) */
    int resumed;              /* goes on from earlier runs (gt_guard_resume): no warm-up */
    int carried;              /* times of earlier runs among n[] */
    int from[2];              /* of each side's: the first of this run's times */
    struct gt_pairs pairs;    /* the judgements' state (base/pairs.c) */
    int gone;                 /* its context was torn down, its events with it (gt_guard_detach) */
};

void gt_guard_init(struct gt_guard *g);
int gt_guard_take(struct gt_guard *g, struct gt_guard_slot **slot);
void gt_guard_mark(struct gt_guard_slot *slot, int end, CUstream s, int per_thread);
int gt_guard_settle(struct gt_guard *g, int had_slot);
void gt_guard_free(struct gt_guard *g);
/* Its context is being torn down, and its events with it: nothing reads
 * or destroys them from now on, and no verdict comes in this run (the
 * times read so far still go to the cache file). */
void gt_guard_detach(struct gt_guard *g);
/* A kernel launched too rarely for a verdict in one run is judged over
 * several: the times an earlier run measured ("O1 O2 .. / C1 C2 ..", as
 * the cache file keeps them) count as if measured now.  0, or -1 when
 * out of memory or the text does not read: then none of them count. */
int gt_guard_resume(struct gt_guard *g, const char *times);
/* Drops a configuration still being judged whose launches timed in this
 * run took under GT_GUARD_RARE of `span_us`, the run's time since its
 * first launch; 1 when it did, with those launches' time in *run_us.  One
 * with no launch timed in this run (only warm-ups) is left to the next. */
int gt_guard_drop_rare(struct gt_guard *g, double span_us, double *run_us);
/* Drops a configuration kept in this run, keeping the gain it measured:
 * the gain did not pay for the launch path (GT_GUARD_PATH_NS); 1 when it
 * was kept. */
int gt_guard_drop_kept(struct gt_guard *g);
/* An earlier run kept the configuration, `speedup` times as fast there:
 * it runs unchecked. */
void gt_guard_kept_before(struct gt_guard *g, double speedup);
/* The times measured so far, in that form: 1 when this run added some (or
 * only warmed up, so that the next one times from its first launch), 0
 * when there is nothing new to keep. */
int gt_guard_times(struct gt_guard *g, char *out, size_t cap);
/* The verdict of a guard `whole` over a larger unit (a graph's replays)
 * becomes g's, one of `share` configurations judged together: each is
 * given that share of the time the unit saved or lost. */
void gt_guard_adopt(struct gt_guard *g, const struct gt_guard *whole, int share);

#endif
