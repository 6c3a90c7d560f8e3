/* search_tree.c: regression-tree sampling (Feng and Abdelrahman, iWAPT
 * 2017), strategy `tree`.
 *
 * The region R starts as the whole space.  Each round draws
 * n = sigma * k + b valid configurations not tried yet, uniformly in R
 * (k: the number of dimensions; strategy.sigma default 2, strategy.b
 * default 4), waits for their results, fits a CART regression tree
 * (cart.c: splits `dim < v` on value indices, at least strategy.leaf,
 * default 3, samples per leaf) to every result so far, and takes as the
 * next R the whole space restricted by the splits on the path to the leaf
 * of lowest mean.  When R holds nothing left to try, the parent's region
 * replaces it, up to the whole space; the search ends when that is spent,
 * or at the budget.
 *
 * The tree models the logarithm of the time, with trials cut short as a
 * lower bound (cart.c says how).  Invalid results are left out.  The
 * original's time is a sample too.
 *
 * Defaults (sigma and b were not published): n = 2k + 4 is 14 to 18 trials
 * a round on the recorded landscapes (k = 5 to 7), about one batch of the
 * engine's parallel compiles (16), and lets the first tree split a few
 * times with leaves of 3.  Measured by bench/replay (50 runs of each of the
 * five recorded landscapes): against 2k + 8 it reached 99% of the optimum
 * in far fewer trials (nbody 58 against 232, coulomb 82 against 525) and
 * 95% as soon; rounds of 5 or 6 reach 95% a trial or two sooner but leave
 * most of a compile batch idle and do worse at 99%; the leaf size (1 to 5)
 * changed little. */
#include "alloc.h"
#include "cart.h"
#include "strategies.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENUM_LIMIT (1u << 16)   /* regions enumerated whole to sample from at most; larger: rejection */
#define DRAW_TRIES 10000        /* rejection draws per configuration in a large region */

struct tree {
    size_t k, round, leaf;
    struct gt_cart_data data;   /* the samples */
    uint32_t *draw;          /* this round's configurations (round * k) */
    size_t ndraw, at, pending;
    uint32_t *lo, *hi;       /* the region: lo[d] <= cfg[d] < hi[d] */
    uint32_t *walk;          /* k: scratch */
    int started;
};

static void tree_free(void *state)
{
    struct tree *t = state;
    if (!t)
        return;
    gt_cart_data_free(&t->data);
    free(t->draw);
    free(t->lo);
    free(t->walk);
    free(t);
}

static const char *const tree_params[] = {"sigma", "b", "leaf", NULL};

static int tree_init(struct gt_strategy *st, char *err, size_t errlen)
{
    if (gt_search_param_check(st, "sigma", 0, 100, err, errlen) != 0 ||
        gt_search_param_check(st, "b", 1, 10000, err, errlen) != 0 ||
        gt_search_param_check(st, "leaf", 1, 1000, err, errlen) != 0)
        return -1;
    struct tree *t = gt_calloc(1, sizeof *t);
    if ((st->state = t)) {
        t->k = t->data.k = st->s->ndims;
        t->round = (size_t)(gt_search_param(st, "sigma", 2) * (double)t->k) + (size_t)gt_search_param(st, "b", 4);
        t->leaf = (size_t)gt_search_param(st, "leaf", 3);
        t->draw = gt_malloc(t->round * t->k * sizeof *t->draw + 1);
        t->lo = gt_malloc(2 * t->k * sizeof *t->lo + 1);
        t->walk = gt_malloc(t->k * sizeof *t->walk + 1);
        t->hi = t->lo ? t->lo + t->k : NULL;
    }
    if (!t || !t->draw || !t->lo || !t->walk) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* ---- drawing from the region ---- */

static int fresh(const struct gt_strategy *st, const struct tree *t, const uint32_t *cfg)
{
    if (!gt_search_valid(st, cfg) || gt_search_tried(st, cfg))
        return 0;
    for (size_t i = 0; i < t->ndraw; i++)
        if (!memcmp(t->draw + i * t->k, cfg, t->k * sizeof *cfg))
            return 0;
    return 1;
}

static uint64_t region_size(const struct tree *t)
{
    uint64_t n = 1;
    for (size_t d = 0; d < t->k && n <= ENUM_LIMIT; d++)
        n *= t->hi[d] - t->lo[d];
    return n;
}

/* Up to `want` configurations of a small region by reservoir sampling over
 * all of it: uniform among those left. */
static void draw_enumerated(struct gt_strategy *st, struct tree *t, size_t want)
{
    uint32_t *c = t->walk;
    memcpy(c, t->lo, t->k * sizeof *c);
    for (uint64_t seen = 0;;) {
        if (fresh(st, t, c)) {
            uint64_t slot = seen < want ? seen : gt_search_rand(st) % (seen + 1);
            if (slot < want)
                memcpy(t->draw + slot * t->k, c, t->k * sizeof *c);
            seen++;
            t->ndraw = seen < want ? seen : want;
        }
        size_t d = t->k;   /* the next configuration, the last dimension fastest */
        while (d-- > 0 && ++c[d] == t->hi[d])
            c[d] = t->lo[d];
        if (d == (size_t)-1)
            return;
    }
}

/* Up to `want` configurations of a large region, drawn uniformly until
 * DRAW_TRIES draws in a row find nothing new. */
static void draw_rejection(struct gt_strategy *st, struct tree *t, size_t want)
{
    uint32_t *c = t->walk;
    for (int tries = 0; t->ndraw < want && tries < DRAW_TRIES; tries++) {
        for (size_t d = 0; d < t->k; d++)
            c[d] = t->lo[d] + (uint32_t)(gt_search_rand(st) % (t->hi[d] - t->lo[d]));
        if (fresh(st, t, c)) {
            memcpy(t->draw + t->ndraw++ * t->k, c, t->k * sizeof *c);
            tries = -1;
        }
    }
}

static void draw(struct gt_strategy *st, struct tree *t, size_t want)
{
    t->ndraw = t->at = 0;
    if (region_size(t) <= ENUM_LIMIT)
        draw_enumerated(st, t, want);
    else
        draw_rejection(st, t, want);
}

/* ---- rounds ---- */

/* The next round's draw from the best leaf's region, widened to its
 * ancestors' while empty; 0 when even the whole space has nothing left. */
static int next_round(struct gt_strategy *st, struct tree *t, size_t want)
{
    struct gt_cart cart;
    int node = 0;
    double *y = gt_cart_data_targets(&t->data);
    if (y && gt_cart_fit(&cart, t->data.x, y, t->data.n, t->k, t->leaf) == 0)
        node = gt_cart_best_leaf(&cart);
    else
        cart = (struct gt_cart){0};
    free(y);
    for (;;) {
        for (size_t d = 0; d < t->k; d++) {
            t->lo[d] = 0;
            t->hi[d] = (uint32_t)st->s->dims[d].n;
        }
        if (cart.nodes)
            gt_cart_region(&cart, node, t->lo, t->hi);
        draw(st, t, want);
        if (t->ndraw || node <= 0)
            break;
        node = cart.nodes[node].parent;
    }
    gt_cart_free(&cart);
    return t->ndraw > 0;
}

static int tree_next(struct gt_strategy *st, uint32_t *cfg)
{
    struct tree *t = st->state;
    size_t left = gt_search_left(st, t->round);
    if (!left)
        return 0;
    if (t->at == t->ndraw) {
        if (t->pending)
            return -1;
        if (!t->started && st->baseline_us > 0) {
            gt_space_default(st->s, t->walk);
            gt_cart_data_add(&t->data, t->walk, st->baseline_us, 0);
        }
        t->started = 1;
        if (!next_round(st, t, left))
            return 0;
    }
    memcpy(cfg, t->draw + t->at++ * t->k, t->k * sizeof *cfg);
    t->pending++;
    return 1;
}

static void tree_report(struct gt_strategy *st, const uint32_t *cfg, double us, enum gt_trial_status status)
{
    struct tree *t = st->state;
    t->pending -= t->pending > 0;
    if (status != GT_TRIAL_INVALID && us > 0)
        gt_cart_data_add(&t->data, cfg, us, status == GT_TRIAL_ABORTED);
}

const struct gt_search gt_search_tree = {
    .name = "tree", .params = tree_params, .init = tree_init, .next = tree_next,
    .report = tree_report, .free = tree_free,
};
