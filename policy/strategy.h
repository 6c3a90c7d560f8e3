/* strategy.h: search strategies behind one interface (see strategy.c; a
 * strategy's own code is written against strategies.h). */
#ifndef GT_STRATEGY_H
#define GT_STRATEGY_H

#include "policy.h"
#include "space.h"

#include <stdint.h>

enum gt_trial_status {
    GT_TRIAL_OK,      /* timed: us is its time */
    GT_TRIAL_INVALID, /* did not build, load, launch or match the reference */
    GT_TRIAL_ABORTED, /* cut short as slower than the deadline: us is how long it ran, a lower bound */
};

struct gt_strategy;

/* A strategy by name (NULL: auto) over the valid configurations of s for
 * launch (NULL: launch-dependent constraints unchecked), at most budget
 * trials (<= 0: no limit), with the strategy.NAME parameters of set (may be
 * NULL).  NULL with err set for an unknown name or a bad parameter. */
struct gt_strategy *gt_strategy_new(const char *name, const struct gt_space *s, const struct gt_launch *launch,
                                    const struct gt_settings *set, long budget, uint64_t seed, char *err,
                                    size_t errlen);
/* The original's time, before any proposal: a known point of the space. */
void gt_strategy_baseline(struct gt_strategy *st, double us);
/* 1 and the next configuration to try; 0 when the search is over; -1 when
 * it must first see the results of configurations it proposed. */
int gt_strategy_next(struct gt_strategy *st, uint32_t *cfg);
/* How a proposed configuration went, in any order of proposal. */
void gt_strategy_report(struct gt_strategy *st, const uint32_t *cfg, double us, enum gt_trial_status status);
/* Whether the watchdog may cut cfg's trial short. */
int gt_strategy_may_cut(const struct gt_strategy *st, const uint32_t *cfg);
/* The strategy that runs ("auto" says which it chose). */
const char *gt_strategy_name(const struct gt_strategy *st);
/* The i-th strategy that can be asked for by name, NULL past the last
 * (auto is not one of them: it picks one). */
const char *gt_strategy_names(size_t i);
/* Valid configurations besides the default (a lower bound for spaces too
 * large to list). */
uint64_t gt_strategy_space_size(const struct gt_strategy *st);
void gt_strategy_free(struct gt_strategy *st);

#endif
