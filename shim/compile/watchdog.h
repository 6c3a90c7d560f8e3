/* watchdog.h: PTX instrumentation that stops a trial at its deadline (see watchdog.c). */
#ifndef GT_WATCHDOG_H
#define GT_WATCHDOG_H

#include <stddef.h>

/* The module variable an instrumented kernel reads: three 64-bit words. */
#define GT_WATCHDOG_SYMBOL "__gputune_watchdog"
#define GT_WD_DEADLINE 0 /* %globaltimer ns; 0: armed, starts with the grid; ~0: never */
#define GT_WD_ABORTED 1  /* set when a thread stopped at the deadline */
#define GT_WD_BUDGET 2   /* ns from the grid's start, for the first block to fix the deadline */

/* What an instrumentation did. */
struct gt_wd_report {
    int entry;           /* the entry check */
    int loop_checks;     /* per-thread checks at loop heads */
    int barrier_checks;  /* block barriers that also decide */
    int open_loops;      /* loops with no safe point: the entry check covers them */
    char note[384];      /* what was done and why, for the log */
};

/* The header source variants get with the watchdog: GPUTUNE_WATCHDOG and gputune_expired(). */
#define GT_WATCHDOG_HEADER_NAME "gputune_watchdog.h"
extern const char gt_watchdog_header[];

int gt_watchdog_instrument(const char *ptx, const char *kernel, int mode, char **out, struct gt_wd_report *rep,
                           char *err, size_t errlen);

#endif
