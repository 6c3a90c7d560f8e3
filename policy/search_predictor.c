/* search_predictor.c: the additive predictor of Weber, Amend and Goesele
 * (PMBS 2015), strategy `predictor`.
 *
 * Dimensions are independent (they change one part of the kernel) or
 * shared (the policy's `independent =` / `shared =`).  For a sample of the
 * combinations of shared values, the strategy measures
 *   - the base B: those shared values, independent dimensions at their
 *     defaults (when that is not valid: the valid configuration with those
 *     shared values that differs from it in the fewest independent
 *     dimensions, among the first NEAREST_LIMIT combinations of them; with
 *     none, the combination has no base);
 *   - the supports: B with one independent dimension set to another value,
 *     for each such value (after every base has its time: a base that
 *     failed has none);
 * then predicts every other configuration C with base B additively,
 *   P(C) = T(B) + sum over d of (T(S_{B, d = C.d}) - T(B)),
 * and measures the `strategy.top` (default 5) best predicted that were not
 * measured yet (noise and interactions: the engine keeps the fastest), and
 * stops.  A support that is invalid (does not satisfy the constraints, or
 * fails) excludes the configurations with its value under its base; one cut
 * short counts as max(time it ran, T(B)): at least that long, and never
 * credited with an improvement on its base that nobody saw.  The original
 * (the default configuration) is a base or support the engine measured.
 *
 * Budget: bases are drawn in a uniform random order, each with its
 * supports, while they fit in the trial budget less the top (without a
 * budget, in 2^20 trials); every shared combination is a base when they
 * all fit.  A valid space within the budget is measured whole (the
 * strategy then runs as, and is named, exhaustive).
 *
 * Without independent dimensions (the policy's default: all shared) the
 * bases are every configuration and there is nothing to predict: the
 * predictor measures configurations in a random order up to the budget,
 * like random search.  `strategy.assume = independent` then treats every
 * dimension as independent instead (one base, the original, and
 * sum(|d| - 1) supports); `shared` (the default) keeps the declaration.
 *
 * Watch-dog groups: bases are never cut short.  A support is cut at
 * watchdog.factor times the best time of its group (its base and the
 * supports of that base measured so far), not the best of the whole space:
 * a slow base's supports are what predicts its group, and cutting them all
 * against a faster group's best would leave it unpredicted.  The top is
 * cut against the best so far. */
#include "strategies.h"
#include "alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEAREST_LIMIT 4096         /* independent combinations tried to replace an invalid base */
#define SHUFFLE_LIMIT (1u << 20)   /* shared combinations shuffled in memory at most */
#define POP_LIMIT (1u << 20)       /* predictions examined for the top at most */
#define NO_BUDGET (1u << 20)       /* trials of bases and supports without a trial budget */

enum phase { BASES, SUPPORTS, TOP };

struct base {
    uint64_t key;   /* rank of its shared values among the shared combinations */
    size_t row;     /* its rows in pred.cfg and pred.ts */
    double t;       /* its time, NAN while unknown or when it failed */
};

struct pred {
    size_t nd, ni, ns;
    size_t *ind, *sh;     /* the independent and the shared dimensions */
    size_t *off;          /* per independent dimension, its first slot in a row of m */
    size_t m;             /* sum of the independent dimensions' sizes */
    struct base *bases;   /* ascending key */
    size_t nb, capb;
    struct base *order;   /* the bases in the order of the phase's walk (copies) */
    uint32_t *cfg;        /* per base, its configuration (nd) */
    double *ts;           /* per base, m slots: the time with one value changed; NAN: none */
    uint32_t *scratch;    /* 2 * nd */
    enum phase phase;
    size_t at, pending;   /* position in the phase's walk; proposals not reported yet */
    size_t top, ntop;
    uint32_t *best;       /* the configurations to measure last (top * nd) */
};

/* ---- shared values, bases, supports ---- */

static uint64_t shared_key(const struct gt_space *s, const struct pred *p, const uint32_t *cfg)
{
    uint64_t k = 0;
    for (size_t j = 0; j < p->ns; j++)
        k = k * s->dims[p->sh[j]].n + cfg[p->sh[j]];
    return k;
}

static void set_shared(const struct gt_space *s, const struct pred *p, uint64_t key, uint32_t *cfg)
{
    for (size_t j = p->ns; j-- > 0;) {
        cfg[p->sh[j]] = (uint32_t)(key % s->dims[p->sh[j]].n);
        key /= s->dims[p->sh[j]].n;
    }
}

static int satisfies(const struct gt_strategy *st, const uint32_t *cfg)
{
    return gt_space_check(st->s, cfg, st->launch, NULL) == 1;
}

static int is_default(const struct gt_strategy *st, const uint32_t *cfg)
{
    return gt_space_rank(st->s, cfg) == st->default_rank;
}

static size_t moved(const struct gt_space *s, const struct pred *p, const uint32_t *cfg)
{
    size_t n = 0;
    for (size_t j = 0; j < p->ni; j++)
        n += cfg[p->ind[j]] != s->dims[p->ind[j]].def;
    return n;
}

/* Sets cfg's independent dimensions to the base's for its shared values
 * (see the top comment); 0 when there is none. */
static int place_base(const struct gt_strategy *st, struct pred *p, uint32_t *cfg)
{
    const struct gt_space *s = st->s;
    for (size_t j = 0; j < p->ni; j++)
        cfg[p->ind[j]] = (uint32_t)s->dims[p->ind[j]].def;
    if (satisfies(st, cfg))
        return 1;
    uint32_t *walk = p->scratch, *found = p->scratch + p->nd;
    size_t nearest = p->ni + 1;
    memcpy(walk, cfg, p->nd * sizeof *walk);
    for (size_t j = 0; j < p->ni; j++)
        walk[p->ind[j]] = 0;
    for (size_t n = 0; n < NEAREST_LIMIT && nearest > 1; n++) {
        size_t dist = moved(s, p, walk);
        if (dist < nearest && satisfies(st, walk)) {
            nearest = dist;
            memcpy(found, walk, p->nd * sizeof *found);
        }
        size_t j = p->ni;   /* the next combination, the last dimension fastest */
        while (j-- > 0 && ++walk[p->ind[j]] == s->dims[p->ind[j]].n)
            walk[p->ind[j]] = 0;
        if (j == (size_t)-1)
            break;
    }
    if (nearest > p->ni)
        return 0;
    memcpy(cfg, found, p->nd * sizeof *cfg);
    return 1;
}

/* The support of base for slot k (independent dimension j, value v) into
 * cfg; 0 when slot k is the base's own value. */
static int support(const struct gt_space *s, const struct pred *p, const uint32_t *base, size_t k, uint32_t *cfg)
{
    size_t j = 0;
    while (j + 1 < p->ni && p->off[j + 1] <= k)
        j++;
    uint32_t v = (uint32_t)(k - p->off[j]);
    if (base[p->ind[j]] == v)
        return 0;
    memcpy(cfg, base, s->ndims * sizeof *cfg);
    cfg[p->ind[j]] = v;
    return 1;
}

/* Trials a base costs: itself (the original costs none) and its valid
 * supports. */
static size_t cost(const struct gt_strategy *st, struct pred *p, const uint32_t *base)
{
    size_t n = !is_default(st, base);
    uint32_t *cfg = p->scratch;
    for (size_t k = 0; k < p->m; k++)
        n += support(st->s, p, base, k, cfg) && gt_search_valid(st, cfg);
    return n;
}

static int add_base(struct pred *p, uint64_t key, const uint32_t *cfg)
{
    if (p->nb == p->capb) {
        size_t cap = p->capb ? 2 * p->capb : 64;
        struct base *b = gt_realloc(p->bases, cap * sizeof *b);
        if (b)
            p->bases = b;
        uint32_t *c = gt_realloc(p->cfg, cap * p->nd * sizeof *c);
        if (c)
            p->cfg = c;
        if (!b || !c)
            return -1;
        p->capb = cap;
    }
    p->bases[p->nb] = (struct base){key, p->nb, NAN};
    memcpy(p->cfg + p->nb * p->nd, cfg, p->nd * sizeof *cfg);
    p->nb++;
    return 0;
}

static int drawn(const struct pred *p, uint64_t key)
{
    for (size_t i = 0; i < p->nb; i++)
        if (p->bases[i].key == key)
            return 1;
    return 0;
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const struct base *)a)->key, y = ((const struct base *)b)->key;
    return (x > y) - (x < y);
}

/* Picks the bases in a uniform random order of the shared combinations (a
 * shuffled list, or draws without repetition when there are too many to
 * list) while they fit in `limit` trials; the first always does. */
static int choose_bases(struct gt_strategy *st, struct pred *p, uint64_t limit)
{
    const struct gt_space *s = st->s;
    uint64_t nsh = 1, *perm = NULL;
    for (size_t j = 0; j < p->ns; j++)
        nsh *= s->dims[p->sh[j]].n;
    uint32_t *cfg = gt_malloc(p->nd * sizeof *cfg);
    if (!cfg || (nsh <= SHUFFLE_LIMIT && !(perm = gt_malloc(nsh * sizeof *perm)))) {
        free(cfg);
        return -1;
    }
    for (uint64_t i = 0; perm && i < nsh; i++)
        perm[i] = i;
    gt_space_default(s, cfg);
    uint64_t used = 0;
    int rc = 0;
    for (uint64_t i = 0; rc == 0 && i < (perm ? nsh : 64 * limit); i++) {
        uint64_t key;
        if (perm) {
            uint64_t j = i + gt_search_rand(st) % (nsh - i);
            key = perm[j], perm[j] = perm[i], perm[i] = key;
        } else if (drawn(p, key = gt_search_rand(st) % nsh)) {
            continue;
        }
        set_shared(s, p, key, cfg);
        if (!place_base(st, p, cfg))
            continue;
        size_t c = cost(st, p, cfg);
        if (p->nb && used + c > limit)
            break;
        used += c;
        rc = add_base(p, key, cfg);
    }
    free(perm);
    free(cfg);
    /* measured in the order drawn; looked up by key */
    if (rc == 0 && !(p->order = gt_malloc(p->nb * sizeof *p->order + 1)))
        rc = -1;
    if (rc == 0 && p->nb) {
        memcpy(p->order, p->bases, p->nb * sizeof *p->order);
        qsort(p->bases, p->nb, sizeof *p->bases, by_key);
    }
    return rc;
}

/* Fastest first, then those without a time. */
static int by_time(const void *a, const void *b)
{
    const struct base *x = a, *y = b;
    if (isnan(x->t) != isnan(y->t))
        return isnan(x->t) ? 1 : -1;
    if (!isnan(x->t) && x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return by_key(a, b);
}

static struct base *base_of(const struct gt_strategy *st, const struct pred *p, const uint32_t *cfg)
{
    struct base key = {.key = shared_key(st->s, p, cfg)};
    return p->nb ? bsearch(&key, p->bases, p->nb, sizeof key, by_key) : NULL;
}

/* The independent dimension (index in p->ind) where cfg differs from its
 * base; -1 when none does, -2 when several do. */
static int differs(const struct pred *p, const uint32_t *base, const uint32_t *cfg)
{
    int where = -1;
    for (size_t j = 0; j < p->ni; j++)
        if (cfg[p->ind[j]] != base[p->ind[j]])
            where = where == -1 ? (int)j : -2;
    return where;
}

/* ---- the top predictions: best first over each base's sums ---- */

/* One base's values per independent dimension, by ascending delta
 * T(S) - T(B) (the base's own value: 0); values without a time left out. */
struct ladder {
    uint32_t *v;      /* m per base: dimension j's values from off[j] on */
    double *d;        /* their deltas */
    size_t *len;      /* ni per base */
};

struct step {
    double d;
    uint32_t v;
};

static int by_delta(const void *a, const void *b)
{
    const struct step *x = a, *y = b;
    return x->d < y->d ? -1 : x->d > y->d ? 1 : (x->v > y->v) - (x->v < y->v);
}

static void build_ladder(const struct pred *p, const struct base *b, struct ladder *l, struct step *tmp)
{
    const uint32_t *base = p->cfg + b->row * p->nd;
    for (size_t j = 0; j < p->ni; j++) {
        size_t n = 0, lo = p->off[j], hi = j + 1 < p->ni ? p->off[j + 1] : p->m;
        for (size_t k = lo; k < hi; k++) {
            double t = p->ts[b->row * p->m + k];
            uint32_t v = (uint32_t)(k - lo);
            if (v == base[p->ind[j]])
                tmp[n++] = (struct step){0, v};
            else if (!isnan(t))
                tmp[n++] = (struct step){t - b->t, v};
        }
        qsort(tmp, n, sizeof *tmp, by_delta);
        for (size_t i = 0; i < n; i++) {
            l->v[b->row * p->m + lo + i] = tmp[i].v;
            l->d[b->row * p->m + lo + i] = tmp[i].d;
        }
        l->len[b->row * p->ni + j] = n;
    }
}

/* A node of the enumeration: for each dimension a position on the base's
 * ladder.  A node's children move one position down, on its last moved
 * dimension or a later one, so every combination is reached once, and
 * never before its parent (whose prediction is no larger). */
struct node {
    double pred;
    size_t base, at;   /* at: its positions in the pool, ni + 1 (the last: its last moved dimension) */
};

struct heap {
    struct node *h;
    size_t n, cap;
    uint32_t *pool;
    size_t npool, cappool;
};

static int before(const struct node *a, const struct node *b)
{
    return a->pred < b->pred || (a->pred == b->pred && (a->base < b->base || (a->base == b->base && a->at < b->at)));
}

static int push(struct heap *q, struct node x)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 256;
        struct node *h = gt_realloc(q->h, cap * sizeof *h);
        if (!h)
            return -1;
        q->h = h;
        q->cap = cap;
    }
    size_t i = q->n++;
    for (; i && before(&x, &q->h[(i - 1) / 2]); i = (i - 1) / 2)
        q->h[i] = q->h[(i - 1) / 2];
    q->h[i] = x;
    return 0;
}

static struct node pop(struct heap *q)
{
    struct node top = q->h[0], x = q->h[--q->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && before(&q->h[c + 1], &q->h[c]))
            c++;
        if (!before(&q->h[c], &x))
            break;
        q->h[i] = q->h[c];
        i = c;
    }
    if (q->n)
        q->h[i] = x;
    return top;
}

/* Room for one node's positions in the pool; its offset, or -1. */
static long reserve(struct heap *q, size_t width)
{
    if (q->npool + width > q->cappool) {
        size_t cap = q->cappool ? 2 * q->cappool : 1024 * width;
        uint32_t *v = gt_realloc(q->pool, cap * sizeof *v);
        if (!v)
            return -1;
        q->pool = v;
        q->cappool = cap;
    }
    q->npool += width;
    return (long)(q->npool - width);
}

static int push_children(const struct pred *p, const struct ladder *l, struct heap *q, struct node n)
{
    size_t w = p->ni + 1;
    for (size_t j = q->pool[n.at + p->ni]; j < p->ni; j++) {
        const uint32_t pos = q->pool[n.at + j];
        if (pos + 1 >= l->len[n.base * p->ni + j])
            continue;
        long at = reserve(q, w);
        if (at < 0)
            return -1;
        memcpy(q->pool + at, q->pool + n.at, w * sizeof *q->pool);
        q->pool[at + (long)j]++;
        q->pool[at + (long)p->ni] = (uint32_t)j;
        const double *d = l->d + n.base * p->m + p->off[j];
        if (push(q, (struct node){n.pred - d[pos] + d[pos + 1], n.base, (size_t)at}) != 0)
            return -1;
    }
    return 0;
}

/* Roots: each base with a time at its best value of every dimension. */
static int push_roots(const struct pred *p, struct ladder *l, struct heap *q, struct step *tmp)
{
    for (size_t i = 0; i < p->nb; i++) {
        const struct base *b = &p->bases[i];
        if (isnan(b->t))
            continue;
        build_ladder(p, b, l, tmp);
        long at = reserve(q, p->ni + 1);
        if (at < 0)
            return -1;
        memset(q->pool + at, 0, (p->ni + 1) * sizeof *q->pool);
        double pred = b->t;
        for (size_t j = 0; j < p->ni; j++)
            pred += l->d[b->row * p->m + p->off[j]];
        if (push(q, (struct node){pred, b->row, (size_t)at}) != 0)
            return -1;
    }
    return 0;
}

/* Fills p->best with the `top` best predicted valid configurations that
 * were not measured, best first. */
static void rank_top(struct gt_strategy *st, struct pred *p)
{
    struct ladder l = {gt_malloc(p->nb * p->m * sizeof *l.v + 1), gt_malloc(p->nb * p->m * sizeof *l.d + 1),
                       gt_malloc(p->nb * p->ni * sizeof *l.len + 1)};
    struct step *tmp = gt_malloc(p->m * sizeof *tmp + 1);
    struct heap q = {0};
    uint32_t *cfg = p->best;
    int ok = l.v && l.d && l.len && tmp && cfg && push_roots(p, &l, &q, tmp) == 0;
    for (size_t pops = 0; ok && q.n && p->ntop < p->top && pops < POP_LIMIT; pops++) {
        struct node n = pop(&q);
        cfg = p->best + p->ntop * p->nd;
        memcpy(cfg, p->cfg + n.base * p->nd, p->nd * sizeof *cfg);
        for (size_t j = 0; j < p->ni; j++)
            cfg[p->ind[j]] = l.v[n.base * p->m + p->off[j] + q.pool[n.at + j]];
        if (gt_search_valid(st, cfg) && !gt_search_tried(st, cfg))
            p->ntop++;
        ok = push_children(p, &l, &q, n) == 0;
    }
    free(l.v);
    free(l.d);
    free(l.len);
    free(tmp);
    free(q.h);
    free(q.pool);
}

/* ---- the strategy ---- */

static void pred_free(void *state)
{
    struct pred *p = state;
    if (!p)
        return;
    free(p->ind);
    free(p->off);
    free(p->bases);
    free(p->order);
    free(p->cfg);
    free(p->ts);
    free(p->scratch);
    free(p->best);
    free(p);
}

static int nomem(char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* Splits the dimensions into independent and shared (see the top comment
 * for strategy.assume). */
static int classify(struct gt_strategy *st, struct pred *p, char *err, size_t errlen)
{
    const char *assume = st->set ? gt_settings_param(st->set, "assume", NULL) : NULL;
    if (assume && strcmp(assume, "independent") && strcmp(assume, "shared")) {
        snprintf(err, errlen, "strategy.assume = %s: expected independent or shared", assume);
        return -1;
    }
    const struct gt_space *s = st->s;
    int none = 1;
    for (size_t d = 0; d < p->nd; d++)
        none &= !s->dims[d].independent;
    int all = none && assume && !strcmp(assume, "independent");
    p->ind = gt_malloc((2 * p->nd + 1) * sizeof *p->ind);
    p->off = gt_malloc((p->nd + 1) * sizeof *p->off);
    if (!p->ind || !p->off)
        return nomem(err, errlen);
    p->sh = p->ind + p->nd;
    for (size_t d = 0; d < p->nd; d++) {
        if (all || s->dims[d].independent) {
            p->off[p->ni] = p->m;
            p->m += s->dims[d].n;
            p->ind[p->ni++] = d;
        } else {
            p->sh[p->ns++] = d;
        }
    }
    return 0;
}

static int pred_init(struct gt_strategy *st, char *err, size_t errlen)
{
    if (gt_search_param_check(st, "top", 1, 1000, err, errlen) != 0)
        return -1;
    if (st->listed && st->budget > 0 && st->nranks <= (uint64_t)st->budget) {
        st->impl = &gt_search_exhaustive;
        return st->impl->init(st, err, errlen);
    }
    struct pred *p = gt_calloc(1, sizeof *p);
    if (!(st->state = p))
        return nomem(err, errlen);
    p->nd = st->s->ndims;
    p->top = (size_t)gt_search_param(st, "top", 5);
    if (classify(st, p, err, errlen) != 0)
        return -1;
    p->scratch = gt_malloc((2 * p->nd + 1) * sizeof *p->scratch);
    p->best = gt_malloc((p->top * p->nd + 1) * sizeof *p->best);
    if (!p->scratch || !p->best)
        return nomem(err, errlen);
    /* with fewer than two independent dimensions every configuration is a
     * base or a support: nothing to predict, no top to keep room for */
    long limit = st->budget > 0 ? st->budget - (long)(p->ni > 1 ? p->top : 0) : (long)NO_BUDGET;
    if (choose_bases(st, p, limit > 1 ? (uint64_t)limit : 1) != 0)
        return nomem(err, errlen);
    if (!(p->ts = gt_malloc((p->nb * p->m + 1) * sizeof *p->ts)))
        return nomem(err, errlen);
    for (size_t i = 0; i < p->nb * p->m; i++)
        p->ts[i] = NAN;
    return 0;
}

/* The next base to measure; the original's time comes from the engine. */
static int next_base(struct gt_strategy *st, struct pred *p, uint32_t *cfg)
{
    while (p->at < p->nb) {
        memcpy(cfg, p->cfg + p->order[p->at++].row * p->nd, p->nd * sizeof *cfg);
        if (!is_default(st, cfg))
            return 1;
        base_of(st, p, cfg)->t = st->baseline_us > 0 ? st->baseline_us : NAN;
    }
    return 0;
}

/* The next support of a base that has a time, the fastest bases' first
 * (should the seconds run out, those are the likeliest to matter). */
static int next_support(struct gt_strategy *st, struct pred *p, uint32_t *cfg)
{
    for (; p->at < p->nb * p->m; p->at++) {
        const struct base *b = &p->order[p->at / p->m];
        double *t = &p->ts[b->row * p->m + p->at % p->m];
        if (isnan(b->t) || !support(st->s, p, p->cfg + b->row * p->nd, p->at % p->m, cfg))
            continue;
        if (is_default(st, cfg))
            *t = st->baseline_us > 0 ? st->baseline_us : NAN;
        else if (gt_search_valid(st, cfg) && !gt_search_tried(st, cfg)) {
            p->at++;
            return 1;
        }
    }
    return 0;
}

static int pred_next(struct gt_strategy *st, uint32_t *cfg)
{
    struct pred *p = st->state;
    for (;;) {
        int got = p->phase == BASES ? next_base(st, p, cfg) : p->phase == SUPPORTS ? next_support(st, p, cfg) : 0;
        if (got) {
            p->pending++;
            return 1;
        }
        if (p->pending)
            return -1;
        if (p->phase == TOP) {
            if (p->at >= p->ntop)
                return 0;
            memcpy(cfg, p->best + p->at++ * p->nd, p->nd * sizeof *cfg);
            return 1;
        }
        p->phase++;
        p->at = 0;
        if (p->phase == SUPPORTS && p->nb) {
            memcpy(p->order, p->bases, p->nb * sizeof *p->order);
            qsort(p->order, p->nb, sizeof *p->order, by_time);
        }
        if (p->phase == TOP)
            rank_top(st, p);
    }
}

static void pred_report(struct gt_strategy *st, const uint32_t *cfg, double us, enum gt_trial_status status)
{
    struct pred *p = st->state;
    struct base *b = base_of(st, p, cfg);
    p->pending -= p->pending > 0;
    if (!b || p->phase == TOP)
        return;
    int j = differs(p, p->cfg + b->row * p->nd, cfg);
    double t = status == GT_TRIAL_OK ? us : status == GT_TRIAL_ABORTED ? fmax(us, b->t) : NAN;
    if (j == -1)
        b->t = status == GT_TRIAL_OK ? us : NAN;
    else if (j >= 0)
        p->ts[b->row * p->m + p->off[j] + cfg[p->ind[j]]] = t;
}

/* Bases run whole: every prediction of their group starts from them. */
static int pred_may_cut(const struct gt_strategy *st, const uint32_t *cfg)
{
    const struct pred *p = st->state;
    const struct base *b = base_of(st, p, cfg);
    return !b || differs(p, p->cfg + b->row * p->nd, cfg) != -1;
}

/* A support's group best; -1 (the best so far) for the top. */
static double pred_cut_base(const struct gt_strategy *st, const uint32_t *cfg)
{
    const struct pred *p = st->state;
    const struct base *b = p->phase == TOP ? NULL : base_of(st, p, cfg);
    if (!b || !(b->t > 0))
        return -1;
    double best = b->t;
    for (size_t i = 0; i < p->m; i++) {
        double t = p->ts[b->row * p->m + i];
        if (t > 0 && t < best)
            best = t;
    }
    return best;
}

static const char *const pred_params[] = {"top", "assume", NULL};

const struct gt_search gt_search_predictor = {
    .name = "predictor", .params = pred_params, .init = pred_init, .next = pred_next,
    .report = pred_report, .may_cut = pred_may_cut, .cut_base = pred_cut_base, .free = pred_free,
};
