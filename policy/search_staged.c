/* search_staged.c: static pruning, then regression-tree sampling, strategy
 * `pareto-tree` (what `auto` runs on spaces too large to try whole).
 *
 * Stage one is `pareto` (search_pareto.c): estimates of strategy.sample
 * configurations (default 64), then trials of the first strategy.seeds
 * (default 8) in front order.  Once their results are in, stage two is
 * `tree` (search_tree.c) over the same space and tried set, with every
 * result so far among its samples, until the budget ends.
 *
 * The stages complement each other on the recorded landscapes
 * (bench/replay, 50 runs each): the fronts hold near-optimal configurations
 * of the kernels the metrics model well (95% of the optimum after a median
 * 3 trials on transpose and 2 on stencil, against 6 and 4 for the tree
 * alone), and the tree goes on where they do not (nbody, whose fronts are
 * far from its optimum; gemm, whose optimum a small sample misses).  With
 * 64 estimates and 8 seeds every landscape reached 95% within 2% of its
 * space; 128 or 256 estimates, or 4 or 16 seeds, did no better (nbody took
 * 17 to 26 trials, reduce 2 to 4), and 64 estimates cost about one trial
 * budget's builds.
 *
 * `pareto-guided` tries 6 seeds, then runs `guided` from 4 uniform draws
 * (the seeds already spread the first results) in steps of 4 around the 2
 * fastest results, where `guided` alone defaults to 16, 8 and 4.  On the
 * recorded landscapes, own and public (bench/replay, 100 runs), that took
 * the runs at 98% of the optimum within 64 trials from 94%, 87% and 84% to
 * 98%, 94% and 94% on coulomb, conv2d and gemm, and leave-one-out chose
 * these defaults on every landscape but the one it was held out of
 * (bench/results/replay-public.md).  The forest is refitted twice as often
 * and a step's builds are half as many, which cost gemm 15% more simulated
 * seconds to 95%. */
#include "alloc.h"
#include "keys.h"
#include "strategies.h"

#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_SAMPLE "64"
#define DEFAULT_SEEDS 8          /* before the tree */
#define DEFAULT_SEEDS_GUIDED 6   /* before the guided search */

struct staged {
    const struct gt_search *then;   /* stage two */
    void *pareto, *tree;      /* the stages' states (tree: stage two's) */
    long seeds, proposed, pending;
    int second;               /* stage two has begun */
};

static void staged_free(void *state)
{
    struct staged *g = state;
    if (!g)
        return;
    gt_search_pareto.free(g->pareto);
    if (g->then)
        g->then->free(g->tree);
    free(g);
}

/* Runs stage `s`'s init with `dflt`'s parameters where the policy leaves
 * them unset, read through a copy of the settings: a stage's defaults here
 * may differ from the strategy's own.  Leaves the stage's state in
 * st->state. */
static int init_stage(struct gt_strategy *st, const struct gt_search *s, const struct gt_kv *dflt, size_t n,
                      char *err, size_t errlen)
{
    const struct gt_settings *set = st->set;
    struct gt_settings own;
    size_t have = set ? set->nsparams : 0, m = 0;
    st->state = NULL; /* a stage that fails before making its state leaves none, not the stage before's */
    struct gt_kv *kv = gt_calloc(have + n, sizeof *kv);
    if (!kv) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (set)
        own = *set;
    else
        gt_settings_init(&own);
    for (size_t i = 0; i < have; i++)
        kv[m++] = set->sparams[i];
    for (size_t i = 0; i < n; i++)
        if (!set || !gt_settings_param(set, dflt[i].key, NULL))
            kv[m++] = dflt[i];
    own.sparams = kv;
    own.nsparams = m;
    st->set = &own;
    int rc = s->init(st, err, errlen);
    st->set = set;
    free(kv);
    return rc;
}

static int staged_init(struct gt_strategy *st, const struct gt_search *then, long seeds, const struct gt_kv *dflt,
                       size_t n, char *err, size_t errlen)
{
    static const struct gt_kv sample[] = {{"sample", DEFAULT_SAMPLE, {"auto", 0, 0}}};
    if (gt_search_param_check(st, "seeds", 1, 1e6, err, errlen) != 0)
        return -1;
    struct staged *g = gt_calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    g->seeds = (long)gt_search_param(st, "seeds", (double)seeds);
    g->then = then;
    int rc = init_stage(st, &gt_search_pareto, sample, 1, err, errlen);
    g->pareto = st->state;
    if (rc == 0) {
        rc = init_stage(st, then, dflt, n, err, errlen);
        g->tree = st->state;
    }
    st->state = g;
    return rc;
}

/* Runs a stage's function on its own state. */
#define ON_STAGE(st, g, which, call)                                                                                   \
    do {                                                                                                           \
        (st)->state = (g)->which;                                                                                  \
        call;                                                                                                      \
        (g)->which = (st)->state;                                                                                  \
        (st)->state = (g);                                                                                         \
    } while (0)

static int staged_next(struct gt_strategy *st, uint32_t *cfg)
{
    struct staged *g = st->state;
    int r = GT_NEXT_DONE;
    if (!g->second && g->proposed < g->seeds) {
        ON_STAGE(st, g, pareto, r = gt_search_pareto.next(st, cfg));
        if (r == GT_NEXT_TRIAL) {
            g->proposed++;
            g->pending++;
        }
        if (r != GT_NEXT_DONE)
            return r;
    }
    if (!g->second && g->pending)
        return GT_NEXT_WAIT;
    g->second = 1;
    ON_STAGE(st, g, tree, r = g->then->next(st, cfg));
    return r;
}

static void staged_report(struct gt_strategy *st, const uint32_t *cfg, double us, enum gt_trial_status status)
{
    struct staged *g = st->state;
    if (!g->second)
        g->pending -= g->pending > 0;
    ON_STAGE(st, g, tree, g->then->report(st, cfg, us, status));
}

static void staged_estimated(struct gt_strategy *st, const uint32_t *cfg, const struct gt_estimate *e)
{
    struct staged *g = st->state;
    ON_STAGE(st, g, pareto, gt_search_pareto.estimated(st, cfg, e));
}

static int staged_tree_init(struct gt_strategy *st, char *err, size_t errlen)
{
    return staged_init(st, &gt_search_tree, DEFAULT_SEEDS, NULL, 0, err, errlen);
}

/* After the seeds, fewer uniform draws and smaller steps than `guided`
 * alone takes: see the top comment. */
static int staged_guided_init(struct gt_strategy *st, char *err, size_t errlen)
{
    static const struct gt_kv guided[] = {{"initial", "4", {"auto", 0, 0}},
                                          {"step", "4", {"auto", 0, 0}},
                                          {"top", "2", {"auto", 0, 0}}};
    return staged_init(st, &gt_search_guided, DEFAULT_SEEDS_GUIDED, guided, sizeof guided / sizeof *guided, err,
                       errlen);
}

static const char *const staged_params[] = {"sample", "seeds", "sigma", "b", "leaf", NULL};
static const char *const staged_guided_params[] = {"sample", "seeds", "initial", "step", "top",
                                                   "trees",  "kappa", "local",   "ridge", NULL};

const struct gt_search gt_search_staged = {
    .name = "pareto-tree", .params = staged_params, .init = staged_tree_init, .next = staged_next,
    .report = staged_report, .estimated = staged_estimated, .free = staged_free,
};

const struct gt_search gt_search_staged_guided = {
    .name = "pareto-guided", .params = staged_guided_params, .init = staged_guided_init, .next = staged_next,
    .report = staged_report, .estimated = staged_estimated, .free = staged_free,
};
