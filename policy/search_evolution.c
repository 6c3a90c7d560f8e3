/* search_evolution.c: differential evolution (Storn and Price; a baseline
 * of Weber et al.) on the value indices of the dimensions.
 *
 * A population of strategy.population configurations (default 10: the
 * original when its time is known, the others drawn at random) evolves in
 * generations.  For each member x, a trial configuration takes in each
 * dimension, with probability strategy.cr (default 0.9; in one random
 * dimension always), the index best + F (b - c), where best is the fastest
 * member, b and c two other random members, F = strategy.f (default 0.5),
 * rounded at random in proportion (a difference of one index still moves
 * half the time) and clamped to the dimension's values; in the others x's
 * (DE/best/1/bin: on our synthetic and recorded landscapes it came closer
 * to the optimum than DE/rand/1 before the patience ran out; a high CR
 * suits dimensions that interact).  A trial that is invalid or tried
 * already is drawn again (TRIAL_DRAWS times at most), then replaced by a
 * random untried neighbour of the last draw (one dimension changed), else
 * by a random untried configuration.  A generation's trials are one batch;
 * each replaces its member when it is faster (a trial without a time never
 * does).  The search ends after strategy.patience (default 3) generations
 * that do not improve on the best member, or when fewer than three members
 * could be drawn.
 *
 * A valid space of at most population x (patience + 1) configurations,
 * what the first population and the generations that end a search cost at
 * the least, is tried whole instead. */
#include "strategies.h"
#include "alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRIAL_DRAWS 8

static const char *const evolution_params[] = {"population", "f", "cr", "patience", NULL};

struct evolution {
    struct gt_search_batch b;   /* first: see gt_search_batch_report */
    uint32_t *pop;           /* members, ndims values each */
    double *us;              /* their times, INFINITY for none */
    size_t n, size;          /* members, and how many there should be */
    size_t *target;          /* the member each entry of the batch is a trial for */
    uint32_t *trial, *repair;
    double f, cr, best;
    long patience, stale;
    enum { START, WHOLE, SEEDING, EVOLVING } phase;
};

static void evolution_free(void *state)
{
    struct evolution *e = state;
    if (!e)
        return;
    gt_search_batch_free(&e->b);
    free(e->pop);
    free(e->us);
    free(e->target);
    free(e->trial);
    free(e->repair);
    free(e);
}

static int evolution_init(struct gt_strategy *st, char *err, size_t errlen)
{
    if (gt_search_param_check(st, "population", 3, 10000, err, errlen) != 0 ||
        gt_search_param_check(st, "f", 0, 2, err, errlen) != 0 ||
        gt_search_param_check(st, "cr", 0, 1, err, errlen) != 0 ||
        gt_search_param_check(st, "patience", 1, 1e6, err, errlen) != 0)
        return -1;
    struct evolution *e = gt_calloc(1, sizeof *e);
    st->state = e;
    if (!e)
        return -1;
    size_t nd = st->s->ndims + 1;
    e->size = (size_t)gt_search_param(st, "population", 10);
    e->f = gt_search_param(st, "f", 0.5);
    e->cr = gt_search_param(st, "cr", 0.9);
    e->patience = (long)gt_search_param(st, "patience", 3);
    e->pop = gt_calloc(e->size * nd, sizeof *e->pop);
    e->us = gt_calloc(e->size, sizeof *e->us);
    e->target = gt_calloc(e->size, sizeof *e->target);
    e->trial = gt_calloc(nd, sizeof *e->trial);
    e->repair = gt_calloc(nd, sizeof *e->repair);
    return e->pop && e->us && e->target && e->trial && e->repair ? 0 : -1;
}

static uint32_t *member(const struct gt_strategy *st, const struct evolution *e, size_t i)
{
    return e->pop + i * st->s->ndims;
}

/* Plans cfg as a trial for member i; 1 if it was. */
static int add_trial(struct gt_strategy *st, struct evolution *e, const uint32_t *cfg, size_t i)
{
    if (gt_search_batch_add(st, &e->b, cfg) <= 0)
        return 0;
    e->target[e->b.n - 1] = i;
    return 1;
}

/* A small space: every valid configuration. */
static void evolution_whole(struct gt_strategy *st, struct evolution *e)
{
    for (uint64_t i = 0; i < st->nranks; i++) {
        gt_space_unrank(st->s, st->ranks[i], e->trial);
        gt_search_batch_add(st, &e->b, e->trial);
    }
}

/* The original (when its time is known) and random configurations to
 * measure as the first members. */
static void evolution_seed(struct gt_strategy *st, struct evolution *e)
{
    if (st->baseline_us > 0) {
        gt_space_default(st->s, member(st, e, 0));
        e->us[e->n++] = st->baseline_us;
    }
    while (e->n + e->b.n < e->size && gt_search_random(st, e->trial) && add_trial(st, e, e->trial, e->n + e->b.n))
        continue;
}

/* DE/best/1/bin for member i into e->trial. */
static void mutate(struct gt_strategy *st, struct evolution *e, size_t i)
{
    const struct gt_space *s = st->s;
    size_t best = 0, r[2];
    for (size_t k = 1; k < e->n; k++)
        best = e->us[k] < e->us[best] ? k : best;
    for (int k = 0; k < 2; k++) {
        do
            r[k] = gt_search_rand(st) % e->n;
        while (r[k] == i || (k > 0 && r[k] == r[0]));
    }
    const uint32_t *x = member(st, e, i), *a = member(st, e, best), *b = member(st, e, r[0]),
                   *c = member(st, e, r[1]);
    size_t always = gt_search_rand(st) % s->ndims;
    for (size_t d = 0; d < s->ndims; d++) {
        e->trial[d] = x[d];
        if (d != always && gt_search_uniform(st) >= e->cr)
            continue;
        /* rounded at random, in proportion: a difference of one still moves half the time */
        double v = floor(a[d] + e->f * ((double)b[d] - (double)c[d]) + gt_search_uniform(st));
        e->trial[d] = v < 0 ? 0 : v > (double)(s->dims[d].n - 1) ? (uint32_t)(s->dims[d].n - 1) : (uint32_t)v;
    }
}

/* A trial for member i: drawn again while invalid or tried, then repaired. */
static void evolution_trial(struct gt_strategy *st, struct evolution *e, size_t i)
{
    for (int k = 0; k < TRIAL_DRAWS; k++) {
        mutate(st, e, i);
        if (add_trial(st, e, e->trial, i))
            return;
    }
    if (gt_search_neighbour(st, e->trial, e->repair) && add_trial(st, e, e->repair, i))
        return;
    if (gt_search_random(st, e->repair))
        add_trial(st, e, e->repair, i);
}

/* Takes the batch's results: the first members, or trials that beat
 * theirs; then counts generations without improvement. */
static void evolution_select(const struct gt_strategy *st, struct evolution *e)
{
    for (size_t j = 0; j < e->b.n; j++) {
        size_t i = e->target[j];
        if (e->phase == SEEDING || e->b.us[j] < e->us[i]) {
            memcpy(member(st, e, i), e->b.cfg + j * st->s->ndims, st->s->ndims * sizeof *e->pop);
            e->us[i] = e->b.us[j];
        }
    }
    if (e->phase == SEEDING)
        e->n += e->b.n;
    double best = INFINITY;
    for (size_t i = 0; i < e->n; i++)
        best = e->us[i] < best ? e->us[i] : best;
    e->stale = e->phase == EVOLVING && !(best < e->best) ? e->stale + 1 : 0;
    e->best = best;
}

static int evolution_plan(struct gt_strategy *st)
{
    struct evolution *e = st->state;
    if (e->phase == WHOLE)
        return 0;
    if (e->phase == START && st->listed && st->nranks <= e->size * (uint64_t)(e->patience + 1)) {
        evolution_whole(st, e);
        e->phase = WHOLE;
        return e->b.n > 0;
    }
    if (e->phase == START) {
        evolution_seed(st, e);
        e->phase = SEEDING;
        return e->b.n > 0 || e->n > 0;
    }
    evolution_select(st, e);
    e->phase = EVOLVING;
    gt_search_batch_clear(&e->b);
    if (e->n < 3 || e->stale >= e->patience)
        return 0;
    for (size_t i = 0; i < e->n; i++)
        evolution_trial(st, e, i);
    return e->b.n > 0;
}

static int evolution_next(struct gt_strategy *st, uint32_t *cfg)
{
    return gt_search_batch_next(st, st->state, evolution_plan, cfg);
}

const struct gt_search gt_search_evolution = {
    .name = "evolution", .params = evolution_params, .init = evolution_init, .next = evolution_next,
    .report = gt_search_batch_report, .free = evolution_free,
};
