/* search_guided.c: local search guided by a forest of regression trees,
 * strategy `guided` (and stage two of `pareto-guided`, search_staged.c).
 *
 * First a step of strategy.initial (default 16) configurations drawn
 * uniformly.  Then each step fits strategy.trees (default 10) CART trees
 * (cart.c: log times, trials cut short as lower bounds, invalid results
 * left out) to bootstrap resamples of every result so far (bagging: the
 * trees differ where the results say little) and ranks candidates by the
 * trees' mean prediction minus strategy.kappa (default 0) times their
 * spread.  The candidates are the untried neighbours (one dimension
 * changed) of the strategy.top (default 4) fastest results, and
 * POOL_RANDOM untried configurations drawn uniformly, so that the forest
 * can point away from where the search has been.  A step proposes
 * strategy.step (default 8) of them, or the engine's pace where that is
 * more (gt_strategy_pace: its time will run out before the trials, and it
 * builds that many in the time of one, so a wider step costs no time):
 * first the strategy.local (default 8)
 * best-ranked neighbours of the fastest result, then the best-ranked of
 * the rest.  The reserved neighbours keep a local search going around the
 * fastest result, which the forest alone, fitted to few results, would
 * leave for regions it merely knows less about; where the forest is right,
 * they are its best guesses there anyway.  Once every neighbour of the
 * fastest result is tried, up to strategy.ridge (default 2) of a step's
 * trials go to its best-ranked moves along a ridge: two parameters of
 * three values or more changed together, one to its next value and the
 * other to its previous one (a block halved, the unrolling doubled), which
 * no single change can follow.  When no candidate is left, a step draws
 * uniformly; the search ends when the space is spent.
 *
 * On the recorded landscapes (bench/replay, 100 runs, own and public),
 * after the pruning's 6 seeds and with pareto-guided's defaults
 * (search_staged.c) it found the optimum of gemm (6675 configurations, the
 * next fastest 2.3% slower) within 64 trials in 94% of runs, where hill
 * climbing, annealing and pareto-tree did in 12-32%; the defaults are those
 * leave-one-out chose there (bench/results/replay-public.md).  The ridge
 * moves took coulomb from 83% to 92% of 400 runs at 98% of its optimum
 * within 64 trials: its runs stalled at 97% with a block of 128 x 8 and an
 * unrolling of 8, the optimum at 64 x 8 and 16.  They come last in the
 * pool, so that the forest's other candidates win ties, and take at most a
 * quarter of a step: more, or any two changes, held gemm's runs at a local
 * optimum they left otherwise. */
#include "alloc.h"
#include "cart.h"
#include "strategies.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_INITIAL 16
#define DEFAULT_STEP 8
#define DEFAULT_TOP 4
#define DEFAULT_TREES 10
#define DEFAULT_LOCAL 8
#define DEFAULT_RIDGE 2
#define POOL_RANDOM 256   /* uniform candidates per step */
#define LEAF 2            /* samples per leaf at least: bagged trees may grow deep */
#define FIT_LIMIT 256     /* the trees are fitted to the fastest results at most */

struct guided {
    struct gt_search_batch b;   /* first: see gt_search_batch_report */
    struct gt_cart_data data;   /* every result */
    size_t initial, step, top, trees, local, ridge;
    double kappa;
    uint32_t *pool;             /* candidates: k value indices each */
    double *score;              /* their rank, lower first */
    size_t npool, cappool;
    /* the candidates a step takes its first `reserved` trials from: pool
     * indices [first, last), the fastest result's neighbours or, once they
     * are spent, its ridge moves */
    size_t first, last, reserved;
    uint32_t *scratch;
    int started;
};

static const char *const guided_params[] = {"initial", "step", "top", "trees", "kappa", "local", "ridge", NULL};

static void guided_free(void *state)
{
    struct guided *g = state;
    if (!g)
        return;
    gt_search_batch_free(&g->b);
    gt_cart_data_free(&g->data);
    free(g->pool);
    free(g->score);
    free(g->scratch);
    free(g);
}

static int guided_init(struct gt_strategy *st, char *err, size_t errlen)
{
    if (gt_search_param_check(st, "initial", 1, 1e6, err, errlen) != 0 ||
        gt_search_param_check(st, "step", 1, 1e6, err, errlen) != 0 ||
        gt_search_param_check(st, "top", 0, 1e6, err, errlen) != 0 ||
        gt_search_param_check(st, "trees", 1, 1000, err, errlen) != 0 ||
        gt_search_param_check(st, "kappa", 0, 100, err, errlen) != 0 ||
        gt_search_param_check(st, "local", 0, 1e6, err, errlen) != 0 ||
        gt_search_param_check(st, "ridge", 0, 1e6, err, errlen) != 0)
        return -1;
    struct guided *g = gt_calloc(1, sizeof *g);
    st->state = g;
    if (!g || !(g->scratch = gt_calloc(st->s->ndims + 1, sizeof *g->scratch))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    g->data.k = st->s->ndims;
    g->initial = (size_t)gt_search_param(st, "initial", DEFAULT_INITIAL);
    g->step = (size_t)gt_search_param(st, "step", DEFAULT_STEP);
    g->top = (size_t)gt_search_param(st, "top", DEFAULT_TOP);
    g->trees = (size_t)gt_search_param(st, "trees", DEFAULT_TREES);
    g->kappa = gt_search_param(st, "kappa", 0);
    g->local = (size_t)gt_search_param(st, "local", DEFAULT_LOCAL);
    g->ridge = (size_t)gt_search_param(st, "ridge", DEFAULT_RIDGE);
    return 0;
}

static void guided_report(struct gt_strategy *st, const uint32_t *cfg, double us, enum gt_trial_status status)
{
    struct guided *g = st->state;
    gt_search_batch_report(st, cfg, us, status);
    if (status != GT_TRIAL_INVALID && us > 0)
        gt_cart_data_add(&g->data, cfg, us, status == GT_TRIAL_ABORTED);
}

/* ---- candidates ---- */

static void pool_add(struct guided *g, const uint32_t *cfg)
{
    size_t k = g->data.k;
    if (g->npool == g->cappool) {
        size_t cap = g->cappool ? 2 * g->cappool : 256;
        uint32_t *p = gt_realloc(g->pool, cap * k * sizeof *p + 1);
        if (p)
            g->pool = p;
        double *s = gt_realloc(g->score, cap * sizeof *s);
        if (s)
            g->score = s;
        if (!p || !s)
            return;   /* without memory, fewer candidates */
        g->cappool = cap;
    }
    memcpy(g->pool + g->npool++ * k, cfg, k * sizeof *cfg);
}

static void add_neighbour(void *g, const uint32_t *cfg)
{
    pool_add(g, cfg);
}

/* A parameter whose values a ridge move steps along. */
static int ridged(const struct gt_dim *d)
{
    return d->kind == GT_DIM_PARAM && d->n >= 3;
}

/* cfg's ridge moves: one such parameter up a value, another down one. */
static void add_ridge(struct gt_strategy *st, struct guided *g, const uint32_t *cfg)
{
    size_t k = g->data.k;
    for (size_t up = 0; up < k; up++)
        for (size_t down = 0; down < k; down++) {
            const struct gt_dim *u = &st->s->dims[up], *w = &st->s->dims[down];
            if (up == down || !ridged(u) || !ridged(w) || cfg[up] + 1 >= u->n || cfg[down] == 0)
                continue;
            memcpy(g->scratch, cfg, k * sizeof *cfg);
            g->scratch[up]++;
            g->scratch[down]--;
            if (gt_search_valid(st, g->scratch) && !gt_search_tried(st, g->scratch))
                pool_add(g, g->scratch);
        }
}

/* The neighbours of the fastest results (fastest first: see first and
 * last), then uniform draws, then, when the fastest result's neighbours
 * are spent, its ridge moves. */
static void build_pool(struct gt_strategy *st, struct guided *g, const size_t *fastest)
{
    g->npool = g->first = g->last = 0;
    g->reserved = g->local;
    for (size_t t = 0; t < g->data.n && t < g->top; t++) {
        gt_search_neighbours(st, g->data.x + fastest[t] * g->data.k, g->scratch, add_neighbour, g);
        if (t == 0)
            g->last = g->npool;
    }
    for (size_t i = 0; i < POOL_RANDOM && gt_search_random(st, g->scratch); i++)
        pool_add(g, g->scratch);
    if (g->ridge && g->top && g->data.n && !g->last) {
        g->first = g->npool;
        add_ridge(st, g, g->data.x + fastest[0] * g->data.k);
        g->last = g->npool;
        g->reserved = g->ridge;
    }
}

/* ---- the forest ---- */

/* Scores the pool: the trees' mean prediction minus kappa times their
 * spread.  Each tree is fitted to a bootstrap resample of the fastest
 * FIT_LIMIT results (fastest: their indices, fastest first), which keeps a
 * long search's steps cheap where it matters least. */
static void score_pool(struct gt_strategy *st, struct guided *g, const double *y, const size_t *fastest)
{
    size_t k = g->data.k, n = g->data.n < FIT_LIMIT ? g->data.n : FIT_LIMIT, fitted = 0;
    double *by = gt_malloc(n * sizeof *by + 1), *sq = gt_calloc(g->npool + 1, sizeof *sq);
    uint32_t *bx = gt_malloc(n * k * sizeof *bx + 1);
    for (size_t i = 0; i < g->npool; i++)
        g->score[i] = 0;
    for (size_t t = 0; by && sq && bx && t < g->trees; t++) {
        for (size_t i = 0; i < n; i++) {
            size_t j = fastest[g->trees > 1 ? gt_search_rand(st) % n : i];
            memcpy(bx + i * k, g->data.x + j * k, k * sizeof *bx);
            by[i] = y[j];
        }
        struct gt_cart cart;
        if (gt_cart_fit(&cart, bx, by, n, k, LEAF) != 0)
            continue;
        for (size_t i = 0; i < g->npool; i++) {
            double p = gt_cart_predict(&cart, g->pool + i * k);
            g->score[i] += p;
            sq[i] += p * p;
        }
        gt_cart_free(&cart);
        fitted++;
    }
    for (size_t i = 0; fitted && i < g->npool; i++) {
        double mean = g->score[i] / (double)fitted, var = sq[i] / (double)fitted - mean * mean;
        g->score[i] = mean - g->kappa * sqrt(var > 0 ? var : 0);
    }
    free(by);
    free(sq);
    free(bx);
}

/* ---- steps ---- */

/* Plans up to want of the pool's best-ranked: the reserved candidates
 * first (see build_pool). */
static void plan_ranked(struct gt_strategy *st, struct guided *g, size_t want)
{
    double *y = gt_cart_data_targets(&g->data);
    size_t *fastest = y ? gt_search_order(y, g->data.n) : NULL, *order = NULL;
    if (fastest) {
        build_pool(st, g, fastest);
        score_pool(st, g, y, fastest);
        order = gt_search_order(g->score, g->npool);
    }
    for (size_t i = 0; order && i < g->npool && g->b.n < want && g->b.n < g->reserved; i++)
        if (order[i] >= g->first && order[i] < g->last &&
            gt_search_batch_add(st, &g->b, g->pool + order[i] * g->data.k) < 0)
            break;
    for (size_t i = 0; order && i < g->npool && g->b.n < want; i++)
        if (gt_search_batch_add(st, &g->b, g->pool + order[i] * g->data.k) < 0)
            break;
    free(order);
    free(fastest);
    free(y);
}

static int guided_plan(struct gt_strategy *st)
{
    struct guided *g = st->state;
    gt_search_batch_clear(&g->b);
    if (!g->started && st->baseline_us > 0) {
        gt_space_default(st->s, g->scratch);
        gt_cart_data_add(&g->data, g->scratch, st->baseline_us, 0);
    }
    size_t step = g->step > st->pace ? g->step : st->pace;
    size_t want = gt_search_left(st, g->started ? step : g->initial);
    if (g->started && g->data.n)
        plan_ranked(st, g, want);
    g->started = 1;
    gt_search_batch_fill(st, &g->b, g->scratch, want);
    return g->b.n > 0;
}

static int guided_next(struct gt_strategy *st, uint32_t *cfg)
{
    return gt_search_batch_next(st, st->state, guided_plan, cfg);
}

const struct gt_search gt_search_guided = {
    .name = "guided", .params = guided_params, .init = guided_init, .next = guided_next,
    .report = guided_report, .free = guided_free,
};
