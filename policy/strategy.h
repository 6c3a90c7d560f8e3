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

/* What a built variant's resources and PTX say of it before any trial
 * (shim/tune/estimate.c): the inputs of static Pareto pruning. */
struct gt_estimate {
    double instr;          /* dynamic PTX instructions per thread, estimated */
    double regions;        /* 1 + the points where a thread waits (loads' first uses, barriers) */
    double threads;        /* in the whole launch */
    unsigned block_threads;
    int blocks_per_sm;     /* resident at once (the occupancy calculator) */
    int regs;              /* per thread */
};

/* What gt_strategy_next asks for. */
enum {
    GT_NEXT_WAIT = -1,     /* the results of configurations it proposed first */
    GT_NEXT_DONE = 0,
    GT_NEXT_TRIAL = 1,     /* a trial of cfg: gt_strategy_report */
    GT_NEXT_ESTIMATE = 2,  /* cfg built and estimated, not run: gt_strategy_estimated */
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
/* How many proposals the engine can run in the time of one, building them
 * at once: when its time, not its trials, will end the search, a strategy
 * that proposes in steps takes steps of at least that many.  0 (the
 * default): the strategy's own steps. */
void gt_strategy_pace(struct gt_strategy *st, size_t width);
/* The pace that fits `left` more trials into `seconds` when a step costs
 * build_s (its builds overlap) and each trial trial_s: the least step that
 * takes few enough steps, at most `most` (also when none fits); 0 when
 * build_s is unknown or no trial is left. */
size_t gt_strategy_width(long left, double seconds, double build_s, double trial_s, size_t most);
/* Whether a session that has spent `spent` of its `seconds` may still
 * build configurations to estimate them: estimates rank the trials, and
 * must leave most of the time to them (a kernel whose builds take seconds
 * would otherwise spend a whole session estimating).  One not built is
 * reported with no estimate. */
int gt_strategy_may_estimate(double spent, double seconds);
/* The next configuration and what to do with it (GT_NEXT_TRIAL or
 * GT_NEXT_ESTIMATE), GT_NEXT_DONE when the search is over, GT_NEXT_WAIT
 * when it must first see results of what it proposed.  Estimates do not
 * count as trials. */
int gt_strategy_next(struct gt_strategy *st, uint32_t *cfg);
/* How a proposed trial went, in any order of proposal. */
void gt_strategy_report(struct gt_strategy *st, const uint32_t *cfg, double us, enum gt_trial_status status);
/* A proposed estimate: NULL when the configuration did not build or load. */
void gt_strategy_estimated(struct gt_strategy *st, const uint32_t *cfg, const struct gt_estimate *e);
/* Whether the watchdog may cut cfg's trial short. */
int gt_strategy_may_cut(const struct gt_strategy *st, const uint32_t *cfg);
/* The time cfg's deadline is a multiple of (watchdog.factor times it), or
 * <= 0 for the best time so far (the engine's default). */
double gt_strategy_cut_base(const struct gt_strategy *st, const uint32_t *cfg);
/* The strategy that runs ("auto" says which it chose). */
const char *gt_strategy_name(const struct gt_strategy *st);
/* The i-th strategy that can be asked for by name, NULL past the last
 * (auto is not one of them: it picks one). */
const char *gt_strategy_names(size_t i);
/* "auto, exhaustive, … or pareto-tree": every name gt_strategy_new takes. */
void gt_strategy_list(char *buf, size_t len);
/* Valid configurations besides the default (a lower bound for spaces too
 * large to list). */
uint64_t gt_strategy_space_size(const struct gt_strategy *st);
void gt_strategy_free(struct gt_strategy *st);

#endif
