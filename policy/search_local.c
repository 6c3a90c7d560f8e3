/* search_local.c: the local searches, which move from a configuration to
 * faster ones that differ from it in one dimension.  A neighbour changes
 * one dimension to any other of its values (not only the adjacent ones:
 * many dimensions, like the cache preference, have no order).  Each step is
 * a batch of proposals whose results come back before the next step is
 * planned; a result without a time (invalid, or cut short by the watchdog
 * as slower than the best so far) is never moved to.
 *
 *   greedy     one dimension at a time (the baseline of Weber et al.).
 *              Phase 1, when some dimensions are independent and some
 *              shared: for each combination of the shared dimensions (the
 *              original's first, then the others in a random order), start
 *              from its base (the independent dimensions at the original's
 *              values) and sweep each independent dimension in turn: try
 *              all its values, the others at the best found so far for this
 *              combination, and move to the fastest.  A combination costs
 *              at most the sum of the independent dimensions' sizes; when
 *              they do not all fit the budget, as many as fit are swept.
 *              Phase 2 (the whole search when no dimension, or every one,
 *              is independent): from the best found so far (the original at
 *              first), sweep every dimension the same way, pass after pass,
 *              until a pass moves nowhere.  No parameters.
 *   hillclimb  start from the original (from a random configuration while
 *              its time is unknown); a step proposes the next
 *              strategy.neighbours (default 4) untried neighbours in a
 *              random order, and the climb moves to the fastest of them when
 *              it beats the current configuration (first improvement, four
 *              at a time: on our recorded landscapes, fewer trials to 95% of
 *              the optimum than steepest ascent, and batches still built in
 *              parallel); 0 proposes every untried neighbour at once
 *              (steepest ascent).  When none is faster (a local optimum),
 *              restart from a random untried configuration;
 *              strategy.restarts limits the restarts (one whose
 *              configuration gives no time counts too; default: until the
 *              budget or the space is exhausted).
 *   anneal     simulated annealing: a step proposes strategy.neighbours
 *              (default 4) random untried neighbours of the current
 *              configuration and considers the fastest, with relative
 *              difference D = t_new / t_cur - 1: it is accepted when D <= 0,
 *              else with probability exp(-D / T).  T starts at strategy.t0,
 *              by default the median D > 0 of the first step that has one
 *              over ln 2 (such a move is accepted with probability 1/2), and
 *              cools as T <- T * (1 - cool) after every step that had a
 *              result; strategy.cool defaults to the rate that takes T to
 *              T0 / 100 over the steps the budget allows (0.05 without a
 *              budget).  Frozen (T < T0 / 100), or with no untried neighbour
 *              left, it goes back to the best found and reheats to T0; with
 *              none left there either, it restarts from a random untried
 *              configuration (also its start while the original's time is
 *              unknown).  It ends when the space is exhausted. */
#include "strategies.h"
#include "alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FROZEN 0.01    /* T / T0 at which annealing is frozen */

/* ---- shared ---- */

/* A configuration and its time (INFINITY when it has none). */
struct point {
    uint32_t *cfg;
    double us;
};

static void point_set(const struct gt_strategy *st, struct point *p, const uint32_t *cfg, double us)
{
    memcpy(p->cfg, cfg, st->s->ndims * sizeof *cfg);
    p->us = us;
}

/* The original: a known point when its time is. */
static void point_original(const struct gt_strategy *st, struct point *p)
{
    gt_space_default(st->s, p->cfg);
    p->us = st->baseline_us > 0 ? st->baseline_us : INFINITY;
}

/* Moves p to the batch's fastest result if that beats it; 1 if it did. */
static int point_improve(const struct gt_strategy *st, struct point *p, const struct gt_search_batch *b)
{
    long i = gt_search_batch_best(b);
    if (i < 0 || !(b->us[i] < p->us))
        return 0;
    point_set(st, p, b->cfg + (size_t)i * st->s->ndims, b->us[i]);
    return 1;
}

/* Plans cfg with dimension d set to v (scratch: room for a configuration). */
static void add_changed(struct gt_strategy *st, struct gt_search_batch *b, const uint32_t *cfg, size_t d, uint32_t v,
                        uint32_t *scratch)
{
    memcpy(scratch, cfg, st->s->ndims * sizeof *cfg);
    scratch[d] = v;
    gt_search_batch_add(st, b, scratch);
}

/* Plans a random untried configuration to go on from, and forgets p's
 * time so that whatever it gives is taken; 0 when none is left. */
static int restart(struct gt_strategy *st, struct gt_search_batch *b, struct point *p, uint32_t *scratch)
{
    if (!gt_search_random(st, scratch) || gt_search_batch_add(st, b, scratch) <= 0)
        return 0;
    p->us = INFINITY;
    return 1;
}

static uint32_t *new_cfg(const struct gt_strategy *st)
{
    return gt_calloc(st->s->ndims + 1, sizeof(uint32_t));
}

/* ---- greedy ---- */

struct greedy {
    struct gt_search_batch b;   /* first: see gt_search_batch_report */
    struct point centre, best;  /* where the sweeps start; the best found */
    uint32_t *scratch;
    size_t *indep, nindep;      /* the independent dimensions, swept in phase 1 */
    size_t *shared, nshared;
    size_t at;                  /* the next dimension of the sweeps (an index of indep in phase 1) */
    int started, phase, moved;  /* moved: this pass of phase 2 moved the centre */
    /* phase 1: combinations of the shared dimensions, walked by a stride
     * prime to their number from the original's */
    uint64_t combos, combo, stride, left;
};

static void greedy_free(void *state)
{
    struct greedy *g = state;
    if (!g)
        return;
    gt_search_batch_free(&g->b);
    free(g->centre.cfg);
    free(g->best.cfg);
    free(g->scratch);
    free(g->indep);
    free(g->shared);
    free(g);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The combinations of phase 1: how many, and in which order. */
static void greedy_combos(struct gt_strategy *st, struct greedy *g)
{
    const struct gt_space *s = st->s;
    uint64_t cost = 0;
    uint32_t *def = g->scratch;
    gt_space_default(s, def);
    g->combos = 1;
    for (size_t i = 0; i < g->nshared; i++) {
        g->combos *= s->dims[g->shared[i]].n;
        g->combo = g->combo * s->dims[g->shared[i]].n + def[g->shared[i]];
    }
    for (size_t i = 0; i < g->nindep; i++)
        cost += s->dims[g->indep[i]].n;
    g->left = st->budget > 0 && (uint64_t)st->budget / cost < g->combos ? (uint64_t)st->budget / cost : g->combos;
    g->left += !g->left;
    g->stride = 1;
    if (g->combos > 2)
        for (g->stride = 1 + gt_search_rand(st) % (g->combos - 1); gcd(g->stride, g->combos) != 1;)
            g->stride = g->stride % (g->combos - 1) + 1;
}

static int greedy_init(struct gt_strategy *st, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    const struct gt_space *s = st->s;
    struct greedy *g = gt_calloc(1, sizeof *g);
    st->state = g;
    if (!g || !(g->centre.cfg = new_cfg(st)) || !(g->best.cfg = new_cfg(st)) || !(g->scratch = new_cfg(st)) ||
        !(g->indep = gt_calloc(s->ndims + 1, sizeof *g->indep)) || !(g->shared = gt_calloc(s->ndims + 1, sizeof *g->shared)))
        return -1;
    for (size_t d = 0; d < s->ndims; d++) {
        if (s->dims[d].independent)
            g->indep[g->nindep++] = d;
        else
            g->shared[g->nshared++] = d;
    }
    g->centre.us = INFINITY;
    g->phase = 1;
    g->at = SIZE_MAX;   /* the first plan starts a combination, or phase 2 */
    if (g->nindep && g->nshared)
        greedy_combos(st, g);
    return 0;
}

/* The next combination's base as the centre. */
static void greedy_base(struct gt_strategy *st, struct greedy *g)
{
    point_original(st, &g->centre);
    uint64_t k = g->combo;
    for (size_t i = g->nshared; i-- > 0;) {
        size_t d = g->shared[i], n = st->s->dims[d].n;
        if (g->centre.cfg[d] != k % n)
            g->centre.us = INFINITY;   /* not the original */
        g->centre.cfg[d] = (uint32_t)(k % n);
        k /= n;
    }
    g->combo = (g->combo + g->stride) % g->combos;
    g->left--;
}

/* Starts the next combination or pass; 0 when the search is over. */
static int greedy_advance(struct gt_strategy *st, struct greedy *g)
{
    g->at = 0;
    if (g->phase == 1 && g->left) {
        greedy_base(st, g);
        return 1;
    }
    if (g->phase == 1) {
        g->phase = 2;
        point_set(st, &g->centre, g->best.cfg, g->best.us);
    } else if (!g->moved) {
        return 0;
    }
    g->moved = 0;
    return 1;
}

static int greedy_plan(struct gt_strategy *st)
{
    struct greedy *g = st->state;
    if (!g->started)   /* the first plan: the original's time is known by now */
        point_original(st, &g->best);
    g->started = 1;
    g->moved |= point_improve(st, &g->centre, &g->b);
    if (g->centre.us < g->best.us)
        point_set(st, &g->best, g->centre.cfg, g->centre.us);
    gt_search_batch_clear(&g->b);
    for (;;) {
        size_t nsweep = g->phase == 1 ? g->nindep : st->s->ndims;
        while (g->at < nsweep && !g->b.n) {
            size_t d = g->phase == 1 ? g->indep[g->at] : g->at;
            g->at++;
            for (uint32_t v = 0; v < st->s->dims[d].n; v++)
                add_changed(st, &g->b, g->centre.cfg, d, v, g->scratch);
        }
        if (g->b.n)
            return 1;
        if (!greedy_advance(st, g))
            return 0;
    }
}

static int greedy_next(struct gt_strategy *st, uint32_t *cfg)
{
    return gt_search_batch_next(st, st->state, greedy_plan, cfg);
}

const struct gt_search gt_search_greedy = {
    .name = "greedy", .init = greedy_init, .next = greedy_next, .report = gt_search_batch_report, .free = greedy_free,
};

/* ---- hillclimb ---- */

struct move {
    uint32_t d, v;
};

struct climb {
    struct gt_search_batch b;   /* first */
    struct point cur;
    uint32_t *scratch;
    struct move *moves;      /* every (dimension, value), in a random order per configuration */
    size_t nmoves, next;     /* next: the first not proposed from cur yet */
    size_t per_step;         /* neighbours proposed per step */
    long restarts;           /* left; < 0: no limit */
    int climbed;             /* a climb has started: jumps from now on are restarts */
};

static const char *const climb_params[] = {"neighbours", "restarts", NULL};

static void climb_free(void *state)
{
    struct climb *c = state;
    if (!c)
        return;
    gt_search_batch_free(&c->b);
    free(c->cur.cfg);
    free(c->scratch);
    free(c->moves);
    free(c);
}

static int climb_init(struct gt_strategy *st, char *err, size_t errlen)
{
    const struct gt_space *s = st->s;
    if (gt_search_param_check(st, "neighbours", 0, 1e9, err, errlen) != 0 ||
        gt_search_param_check(st, "restarts", 0, 1e9, err, errlen) != 0)
        return -1;
    size_t nmoves = 0;
    for (size_t d = 0; d < s->ndims; d++)
        nmoves += s->dims[d].n;
    struct climb *c = gt_calloc(1, sizeof *c);
    st->state = c;
    if (!c || !(c->cur.cfg = new_cfg(st)) || !(c->scratch = new_cfg(st)) ||
        !(c->moves = gt_calloc(nmoves + 1, sizeof *c->moves)))
        return -1;
    for (uint32_t d = 0; d < s->ndims; d++)
        for (uint32_t v = 0; v < s->dims[d].n; v++)
            c->moves[c->nmoves++] = (struct move){d, v};
    long n = (long)gt_search_param(st, "neighbours", 4);
    c->per_step = n > 0 ? (size_t)n : SIZE_MAX;
    c->restarts = (long)gt_search_param(st, "restarts", -1);
    c->cur.us = NAN;   /* until the first plan, when the original's time is known */
    return 0;
}

/* A new order of the moves, from a new configuration. */
static void climb_shuffle(struct gt_strategy *st, struct climb *c)
{
    for (size_t i = c->nmoves; i > 1; i--) {
        size_t j = gt_search_rand(st) % i;
        struct move t = c->moves[i - 1];
        c->moves[i - 1] = c->moves[j];
        c->moves[j] = t;
    }
    c->next = 0;
}

/* Plans the next neighbours of cur; 0 when none is left untried. */
static int climb_step(struct gt_strategy *st, struct climb *c)
{
    while (c->b.n < c->per_step && c->next < c->nmoves) {
        struct move m = c->moves[c->next++];
        if (m.v != c->cur.cfg[m.d])
            add_changed(st, &c->b, c->cur.cfg, m.d, m.v, c->scratch);
    }
    return c->b.n > 0;
}

/* Moves to the step's fastest result when it beats cur (at the first plan,
 * to the original); a climb goes on from there. */
static void climb_take(struct gt_strategy *st, struct climb *c)
{
    int moved = 1;
    if (isnan(c->cur.us))
        point_original(st, &c->cur);
    else
        moved = point_improve(st, &c->cur, &c->b);
    if (moved && isfinite(c->cur.us)) {
        climb_shuffle(st, c);
        c->climbed = 1;
    }
}

static int climb_plan(struct gt_strategy *st)
{
    struct climb *c = st->state;
    climb_take(st, c);
    gt_search_batch_clear(&c->b);
    if (isfinite(c->cur.us) && climb_step(st, c))
        return 1;
    if (c->climbed && c->restarts == 0)
        return 0;
    c->restarts -= c->climbed && c->restarts > 0;
    return restart(st, &c->b, &c->cur, c->scratch);
}

static int climb_next(struct gt_strategy *st, uint32_t *cfg)
{
    return gt_search_batch_next(st, st->state, climb_plan, cfg);
}

const struct gt_search gt_search_hillclimb = {
    .name = "hillclimb", .params = climb_params, .init = climb_init, .next = climb_next,
    .report = gt_search_batch_report, .free = climb_free,
};

/* ---- anneal ---- */

struct anneal {
    struct gt_search_batch b;   /* first */
    struct point cur, best;
    uint32_t *scratch;
    size_t per_step;            /* neighbours proposed per step */
    double t0, t, cool;         /* t0 = 0: chosen at the first step with a slower neighbour */
};

static const char *const anneal_params[] = {"neighbours", "t0", "cool", NULL};

static void anneal_free(void *state)
{
    struct anneal *a = state;
    if (!a)
        return;
    gt_search_batch_free(&a->b);
    free(a->cur.cfg);
    free(a->best.cfg);
    free(a->scratch);
    free(a);
}

static int anneal_init(struct gt_strategy *st, char *err, size_t errlen)
{
    if (gt_search_param_check(st, "neighbours", 1, 1e6, err, errlen) != 0 ||
        gt_search_param_check(st, "t0", 1e-9, 1e9, err, errlen) != 0 ||
        gt_search_param_check(st, "cool", 0, 0.99, err, errlen) != 0)
        return -1;
    struct anneal *a = gt_calloc(1, sizeof *a);
    st->state = a;
    if (!a || !(a->cur.cfg = new_cfg(st)) || !(a->best.cfg = new_cfg(st)) || !(a->scratch = new_cfg(st)))
        return -1;
    a->per_step = (size_t)gt_search_param(st, "neighbours", 4);
    a->t0 = a->t = gt_search_param(st, "t0", 0);
    /* by default, the budget's steps take T from T0 to T0 * FROZEN */
    double steps = (double)st->budget / (double)a->per_step;
    a->cool = gt_search_param(st, "cool", st->budget > 0 ? 1 - pow(FROZEN, 1 / (steps > 1 ? steps : 1)) : 0.05);
    a->cur.us = NAN;   /* until the first plan, when the original's time is known */
    return 0;
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The first temperature: the median relative slow-down among the step's
 * results over ln 2; 0 while no result was slower. */
static double first_temperature(const struct anneal *a)
{
    double *d = gt_malloc((a->b.n + 1) * sizeof *d);
    size_t n = 0;
    for (size_t i = 0; d && i < a->b.n; i++)
        if (isfinite(a->b.us[i]) && a->b.us[i] > a->cur.us)
            d[n++] = a->b.us[i] / a->cur.us - 1;
    double t = 0;
    if (n) {
        qsort(d, n, sizeof *d, by_value);
        t = d[n / 2] / log(2);
    }
    free(d);
    return t;
}

/* The Metropolis rule on the step's fastest result, then cooling. */
static void anneal_take(struct gt_strategy *st, struct anneal *a)
{
    long i = gt_search_batch_best(&a->b);
    if (i < 0)
        return;
    double us = a->b.us[i], d = us / a->cur.us - 1;
    if (a->t0 <= 0 && isfinite(a->cur.us))
        a->t0 = a->t = first_temperature(a);
    if (!(d > 0) || (a->t > 0 && gt_search_uniform(st) < exp(-d / a->t)))
        point_set(st, &a->cur, a->b.cfg + (size_t)i * st->s->ndims, us);
    if (us < a->best.us)
        point_set(st, &a->best, a->b.cfg + (size_t)i * st->s->ndims, us);
    a->t *= 1 - a->cool;
}

/* Back to the best found, hot again. */
static void anneal_reheat(const struct gt_strategy *st, struct anneal *a)
{
    point_set(st, &a->cur, a->best.cfg, a->best.us);
    a->t = a->t0;
}

static int anneal_plan(struct gt_strategy *st)
{
    struct anneal *a = st->state;
    if (isnan(a->cur.us)) {
        point_original(st, &a->cur);
        point_set(st, &a->best, a->cur.cfg, a->cur.us);
    } else {
        anneal_take(st, a);
    }
    gt_search_batch_clear(&a->b);
    if (a->t0 > 0 && a->t < a->t0 * FROZEN)
        anneal_reheat(st, a);
    for (int back = 0; isfinite(a->cur.us); back = 1) {
        while (a->b.n < a->per_step && gt_search_neighbour(st, a->cur.cfg, a->scratch) &&
               gt_search_batch_add(st, &a->b, a->scratch) > 0)
            continue;
        if (a->b.n || back || !memcmp(a->cur.cfg, a->best.cfg, st->s->ndims * sizeof *a->cur.cfg))
            break;
        anneal_reheat(st, a);
    }
    return a->b.n || restart(st, &a->b, &a->cur, a->scratch);
}

static int anneal_next(struct gt_strategy *st, uint32_t *cfg)
{
    return gt_search_batch_next(st, st->state, anneal_plan, cfg);
}

const struct gt_search gt_search_anneal = {
    .name = "anneal", .params = anneal_params, .init = anneal_init, .next = anneal_next,
    .report = gt_search_batch_report, .free = anneal_free,
};
