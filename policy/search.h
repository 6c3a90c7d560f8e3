/* search.h: what a search strategy is made of, and the services strategy.c
 * gives every strategy (random numbers, validity, what was tried, its
 * parameters).  Each strategy is one `struct gt_search` in its own file. */
#ifndef GT_SEARCH_H
#define GT_SEARCH_H

#include "strategy.h"

#include <stddef.h>
#include <stdint.h>

struct gt_search {
    const char *name;
    const char *const *params;   /* the strategy.NAME parameters it reads, NULL-terminated */
    /* Sets up st->state; 0, or -1 with err set. */
    int (*init)(struct gt_strategy *st, char *err, size_t errlen);
    int (*next)(struct gt_strategy *st, uint32_t *cfg);  /* as gt_strategy_next */
    /* NULL: results teach it nothing. */
    void (*report)(struct gt_strategy *st, const uint32_t *cfg, double us, enum gt_trial_status status);
    int (*may_cut)(const struct gt_strategy *st, const uint32_t *cfg); /* NULL: every trial may be cut */
    void (*free)(void *state);
};

struct gt_strategy {
    const struct gt_search *impl;
    void *state;                 /* the strategy's own */
    const struct gt_space *s;
    const struct gt_launch *launch;
    const struct gt_settings *set;
    long budget;                 /* trials, <= 0: no limit */
    uint64_t rng;
    uint64_t default_rank;       /* the original: never proposed */
    double baseline_us;          /* its time, < 0 while unknown */
    uint64_t *ranks;             /* the valid configurations in enumeration order, when listable */
    uint64_t nranks;
    int listed;                  /* ranks holds them all */
    uint64_t *tried;             /* open-addressing set of the ranks proposed (0 is empty: rank + 1) */
    size_t ntried, captried;
};

/* Uniform 64-bit, and uniform in [0, 1). */
uint64_t gt_search_rand(struct gt_strategy *st);
double gt_search_uniform(struct gt_strategy *st);
/* 1 when cfg satisfies every constraint (the launch's too) and is not the
 * original. */
int gt_search_valid(const struct gt_strategy *st, const uint32_t *cfg);
/* Whether a configuration was proposed already; gt_search_mark records it
 * (returns 0, or -1 without memory). */
int gt_search_tried(const struct gt_strategy *st, const uint32_t *cfg);
int gt_search_mark(struct gt_strategy *st, const uint32_t *cfg);
/* A valid configuration not tried yet, drawn uniformly (from the list when
 * the space is listed, else by rejection); 0 when none is found. */
int gt_search_random(struct gt_strategy *st, uint32_t *cfg);
/* The strategy.NAME parameter, or dflt; a value that does not parse or is
 * out of [lo, hi] gives dflt too (init checks values with these and says
 * what is wrong through gt_search_param_check). */
double gt_search_param(const struct gt_strategy *st, const char *name, double dflt);
/* 0, or -1 with err set when the parameter is present but not a number in
 * [lo, hi]. */
int gt_search_param_check(const struct gt_strategy *st, const char *name, double lo, double hi, char *err,
                          size_t errlen);

/* The strategies. */
extern const struct gt_search gt_search_exhaustive, gt_search_random_search;

#endif
