/* strategy.h: search strategies behind one interface (see strategy.c). */
#ifndef GT_STRATEGY_H
#define GT_STRATEGY_H

#include "space.h"

#include <stdint.h>

enum gt_trial_status {
    GT_TRIAL_OK,      /* timed: us is its time */
    GT_TRIAL_INVALID, /* did not build, load, launch or match the reference */
    GT_TRIAL_ABORTED, /* cut short as slower than the deadline */
};

struct gt_strategy;

struct gt_strategy *gt_strategy_new(const char *name, const struct gt_space *s, const struct gt_launch *launch,
                                    long budget, uint64_t seed, char *err, size_t errlen);
int gt_strategy_next(struct gt_strategy *st, uint32_t *cfg);
void gt_strategy_report(struct gt_strategy *st, const uint32_t *cfg, double us, enum gt_trial_status status);
int gt_strategy_may_cut(const struct gt_strategy *st, const uint32_t *cfg);
const char *gt_strategy_name(const struct gt_strategy *st);
uint64_t gt_strategy_space_size(const struct gt_strategy *st);
void gt_strategy_free(struct gt_strategy *st);

#endif
