/* strategies.h: what a search strategy is made of, and the services strategy.c
 * gives every strategy (random numbers, validity, what was tried, its
 * parameters).  Each strategy is one `struct gt_search` in its own file. */
#ifndef GT_STRATEGIES_H
#define GT_STRATEGIES_H

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
    /* NULL: every deadline is from the best time so far. */
    double (*cut_base)(const struct gt_strategy *st, const uint32_t *cfg);
    /* NULL: it never asks for estimates. */
    void (*estimated)(struct gt_strategy *st, const uint32_t *cfg, const struct gt_estimate *e);
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
    size_t pace;                 /* gt_strategy_pace: the least step, 0 for the strategy's own */
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
/* The strategy.NAME parameter as one of words (NULL-terminated): its index,
 * dflt when it is not set, -1 with err set when it is none of them. */
int gt_search_param_word(const struct gt_strategy *st, const char *name, const char *const *words, int dflt,
                         char *err, size_t errlen);

/* A valid configuration not tried yet that differs from cfg in one
 * dimension (any other value of it), drawn at random into out (not cfg);
 * 0 when there is none. */
int gt_search_neighbour(struct gt_strategy *st, const uint32_t *cfg, uint32_t *out);
/* Calls fn with every valid configuration not tried yet that differs from
 * cfg in one dimension, by dimension then value, built in out (not cfg). */
void gt_search_neighbours(struct gt_strategy *st, const uint32_t *cfg, uint32_t *out,
                          void (*fn)(void *ctx, const uint32_t *cfg), void *ctx);

/* Indices 0..n-1 ordered by v ascending (a stable order for equal values is
 * not promised); NULL without memory. */
size_t *gt_search_order(const double *v, size_t n);
/* want, or the trials the budget leaves when fewer (want without a budget). */
size_t gt_search_left(const struct gt_strategy *st, size_t want);

/* A batch: configurations a strategy plans as one step of its search,
 * hands out one at a time, and whose results it waits for before planning
 * the next step. */
struct gt_search_batch {
    uint32_t *cfg;           /* n configurations of ndims values each */
    double *us;              /* their results: the time; INFINITY for none (invalid, or cut short as
                                slower than the best so far); NAN until reported */
    size_t n, cap, out, done; /* planned, room, handed out, reported */
};
/* Plans cfg: 1, or 0 when it is not valid or was tried already (adding
 * marks it tried, so a batch never holds one twice); -1 without memory. */
int gt_search_batch_add(struct gt_strategy *st, struct gt_search_batch *b, const uint32_t *cfg);
/* gt_strategy_next over batches: hands out b's configurations; once all
 * have results, calls plan, which reads them, clears b and plans the next
 * step, returning 0 when the search is over (it must add to b or move
 * towards its end). */
int gt_search_batch_next(struct gt_strategy *st, struct gt_search_batch *b, int (*plan)(struct gt_strategy *st),
                         uint32_t *cfg);
/* The report of a strategy whose state starts with its batch: records the
 * result of a configuration handed out. */
void gt_search_batch_report(struct gt_strategy *st, const uint32_t *cfg, double us, enum gt_trial_status status);
/* Tops b up to `want` configurations with random untried ones (scratch:
 * room for one), fewer when the space runs out. */
void gt_search_batch_fill(struct gt_strategy *st, struct gt_search_batch *b, uint32_t *scratch, size_t want);
/* The index of the fastest result, -1 when none has a time. */
long gt_search_batch_best(const struct gt_search_batch *b);
void gt_search_batch_clear(struct gt_search_batch *b);
void gt_search_batch_free(struct gt_search_batch *b);

/* The strategies: search_basic.c, search_local.c, search_evolution.c,
 * search_predictor.c, search_tree.c, search_pareto.c, search_staged.c,
 * search_guided.c, search_bayes.c. */
extern const struct gt_search gt_search_exhaustive, gt_search_random_search;
extern const struct gt_search gt_search_greedy, gt_search_hillclimb, gt_search_anneal;
extern const struct gt_search gt_search_evolution;
extern const struct gt_search gt_search_predictor;
extern const struct gt_search gt_search_tree;
extern const struct gt_search gt_search_pareto, gt_search_staged;
extern const struct gt_search gt_search_guided, gt_search_staged_guided;
extern const struct gt_search gt_search_bayes;

#endif
