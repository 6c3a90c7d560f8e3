/* strategy.c: search strategies behind one interface.
 *
 * A strategy proposes configurations one at a time (gt_strategy_next: a
 * configuration to try, or to build and estimate without running it; done;
 * or wait, when it must see results of what it proposed first) and is told
 * how each went (gt_strategy_report: a time, or invalid, or cut short by the
 * watchdog, with how long it ran; gt_strategy_estimated: the variant's
 * resources and PTX estimates).  The trial engine compiles ahead what strategies
 * propose, in batches, and stops them at the budget (trials or seconds).
 * Only valid configurations are proposed, each at most once: launch-
 * independent constraints and, given the launch, launch-dependent ones
 * hold for every one of them.  The space's default configuration is the
 * original kernel, which the engine measures as the baseline
 * (gt_strategy_baseline): it is never proposed.
 *
 * This file dispatches to a strategy's `struct gt_search` (strategies.h) and
 * gives every strategy its services; each strategy is in its own file
 * (search_*.c).  `auto` picks one from the space and the budget. */
#include "strategies.h"
#include "alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIST_LIMIT (1u << 20)   /* valid configurations enumerated up front at most */
#define ESTIMATE_SHARE (1.0 / 3) /* of a session's time, what building for estimates may start within */

static const struct gt_search *const searches[] = {
    &gt_search_exhaustive, &gt_search_random_search, &gt_search_greedy,    &gt_search_hillclimb,
    &gt_search_anneal,     &gt_search_evolution,     &gt_search_predictor, &gt_search_tree,
    &gt_search_pareto,     &gt_search_staged,     &gt_search_guided,     &gt_search_staged_guided,
    &gt_search_bayes,
};

/* ---- services ---- */

uint64_t gt_search_rand(struct gt_strategy *st)
{
    uint64_t *s = &st->rng;
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

double gt_search_uniform(struct gt_strategy *st)
{
    return (double)(gt_search_rand(st) >> 11) * (1.0 / 9007199254740992.0);
}

int gt_search_valid(const struct gt_strategy *st, const uint32_t *cfg)
{
    return gt_space_rank(st->s, cfg) != st->default_rank && gt_space_check(st->s, cfg, st->launch, NULL) == 1;
}

static size_t slot(uint64_t key, size_t cap)
{
    key *= 0x9e3779b97f4a7c15ULL;
    return (size_t)(key >> 17) & (cap - 1);
}

int gt_search_tried(const struct gt_strategy *st, const uint32_t *cfg)
{
    if (!st->captried)
        return 0;
    uint64_t key = gt_space_rank(st->s, cfg) + 1;
    for (size_t i = slot(key, st->captried);; i = (i + 1) & (st->captried - 1)) {
        if (st->tried[i] == key)
            return 1;
        if (!st->tried[i])
            return 0;
    }
}

static int grow_tried(struct gt_strategy *st)
{
    size_t cap = st->captried ? st->captried * 2 : 256;
    uint64_t *v = gt_calloc(cap, sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < st->captried; i++)
        if (st->tried[i]) {
            size_t j = slot(st->tried[i], cap);
            while (v[j])
                j = (j + 1) & (cap - 1);
            v[j] = st->tried[i];
        }
    free(st->tried);
    st->tried = v;
    st->captried = cap;
    return 0;
}

int gt_search_mark(struct gt_strategy *st, const uint32_t *cfg)
{
    if (gt_search_tried(st, cfg))
        return 0;
    if (2 * (st->ntried + 1) > st->captried && grow_tried(st) != 0)
        return -1;
    uint64_t key = gt_space_rank(st->s, cfg) + 1;
    size_t i = slot(key, st->captried);
    while (st->tried[i])
        i = (i + 1) & (st->captried - 1);
    st->tried[i] = key;
    st->ntried++;
    return 0;
}

int gt_search_random(struct gt_strategy *st, uint32_t *cfg)
{
    if (st->listed) {
        uint64_t left = st->nranks > st->ntried ? st->nranks - st->ntried : 0;
        /* draw among the list; when most is tried, walk from a random start */
        for (int tries = 0; left && tries < 64; tries++) {
            gt_space_unrank(st->s, st->ranks[gt_search_rand(st) % st->nranks], cfg);
            if (!gt_search_tried(st, cfg))
                return 1;
        }
        uint64_t start = st->nranks ? gt_search_rand(st) % st->nranks : 0;
        for (uint64_t i = 0; left && i < st->nranks; i++) {
            gt_space_unrank(st->s, st->ranks[(start + i) % st->nranks], cfg);
            if (!gt_search_tried(st, cfg))
                return 1;
        }
        return 0;
    }
    for (int tries = 0; tries < 10000; tries++) {
        gt_space_unrank(st->s, gt_search_rand(st) % st->s->size, cfg);
        if (gt_search_valid(st, cfg) && !gt_search_tried(st, cfg))
            return 1;
    }
    return 0;
}

static const char *param_text(const struct gt_strategy *st, const char *name)
{
    return st->set ? gt_settings_param(st->set, name, NULL) : NULL;
}

static int parse_real(const char *v, double *out)
{
    char *end;
    *out = strtod(v, &end);
    return end != v && !*end && isfinite(*out) ? 0 : -1;
}

double gt_search_param(const struct gt_strategy *st, const char *name, double dflt)
{
    const char *v = param_text(st, name);
    double x;
    return v && parse_real(v, &x) == 0 ? x : dflt;
}

int gt_search_param_check(const struct gt_strategy *st, const char *name, double lo, double hi, char *err,
                          size_t errlen)
{
    const char *v = param_text(st, name);
    double x;
    if (!v || (parse_real(v, &x) == 0 && x >= lo && x <= hi))
        return 0;
    snprintf(err, errlen, "strategy.%s = %s: expected a number from %g to %g", name, v, lo, hi);
    return -1;
}

int gt_search_param_word(const struct gt_strategy *st, const char *name, const char *const *words, int dflt,
                         char *err, size_t errlen)
{
    const char *v = param_text(st, name);
    if (!v)
        return dflt;
    for (int i = 0; words[i]; i++)
        if (!strcmp(words[i], v))
            return i;
    int at = snprintf(err, errlen, "strategy.%s = %s: expected ", name, v);
    for (int i = 0; words[i] && at >= 0 && (size_t)at < errlen; i++)
        at += snprintf(err + at, errlen - (size_t)at, "%s%s", words[i],
                       !words[i + 1] ? "" : !words[i + 2] ? " or " : ", ");
    return -1;
}

int gt_search_neighbour(struct gt_strategy *st, const uint32_t *cfg, uint32_t *out)
{
    const struct gt_space *s = st->s;
    uint64_t moves = 0;   /* (dimension, value) pairs, the current values included */
    for (size_t d = 0; d < s->ndims; d++)
        moves += s->dims[d].n;
    if (!moves)
        return 0;
    /* a few uniform draws, then a walk from a random start, as gt_search_random */
    uint64_t start = gt_search_rand(st) % moves;
    for (uint64_t i = 0; i < moves + 16; i++) {
        uint64_t m = i < 16 ? gt_search_rand(st) % moves : (start + i - 16) % moves;
        size_t d = 0;
        for (; m >= s->dims[d].n; d++)
            m -= s->dims[d].n;
        if (m == cfg[d])
            continue;
        memcpy(out, cfg, s->ndims * sizeof *out);
        out[d] = (uint32_t)m;
        if (gt_search_valid(st, out) && !gt_search_tried(st, out))
            return 1;
    }
    return 0;
}

static int by_value(const void *a, const void *b, void *ctx)
{
    const double *v = ctx;
    double x = v[*(const size_t *)a], y = v[*(const size_t *)b];
    return (x > y) - (x < y);
}

size_t *gt_search_order(const double *v, size_t n)
{
    size_t *idx = gt_malloc(n * sizeof *idx + 1);
    for (size_t i = 0; idx && i < n; i++)
        idx[i] = i;
    if (idx)
        qsort_r(idx, n, sizeof *idx, by_value, (void *)v);
    return idx;
}

size_t gt_search_left(const struct gt_strategy *st, size_t want)
{
    if (st->budget <= 0)
        return want;
    size_t left = st->ntried < (size_t)st->budget ? (size_t)st->budget - st->ntried : 0;
    return left < want ? left : want;
}

void gt_search_neighbours(struct gt_strategy *st, const uint32_t *cfg, uint32_t *out,
                          void (*fn)(void *ctx, const uint32_t *cfg), void *ctx)
{
    size_t k = st->s->ndims;
    for (size_t d = 0; d < k; d++)
        for (uint32_t v = 0; v < st->s->dims[d].n; v++) {
            memcpy(out, cfg, k * sizeof *cfg);
            out[d] = v;
            if (v != cfg[d] && gt_search_valid(st, out) && !gt_search_tried(st, out))
                fn(ctx, out);
        }
}

/* ---- batches ---- */

int gt_search_batch_add(struct gt_strategy *st, struct gt_search_batch *b, const uint32_t *cfg)
{
    size_t nd = st->s->ndims;
    if (!gt_search_valid(st, cfg) || gt_search_tried(st, cfg))
        return 0;
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        uint32_t *c = gt_realloc(b->cfg, cap * (nd + 1) * sizeof *c);
        if (c)
            b->cfg = c;
        double *us = gt_realloc(b->us, cap * sizeof *us);
        if (us)
            b->us = us;
        if (!c || !us)
            return -1;
        b->cap = cap;
    }
    if (gt_search_mark(st, cfg) != 0)
        return -1;
    memcpy(b->cfg + b->n * nd, cfg, nd * sizeof *cfg);
    b->us[b->n++] = NAN;
    return 1;
}

int gt_search_batch_next(struct gt_strategy *st, struct gt_search_batch *b, int (*plan)(struct gt_strategy *st),
                         uint32_t *cfg)
{
    for (;;) {
        if (b->out < b->n) {
            memcpy(cfg, b->cfg + b->out++ * st->s->ndims, st->s->ndims * sizeof *cfg);
            return 1;
        }
        if (b->done < b->n)
            return -1;
        if (!plan(st))
            return 0;
    }
}

void gt_search_batch_report(struct gt_strategy *st, const uint32_t *cfg, double us, enum gt_trial_status status)
{
    struct gt_search_batch *b = st->state;
    size_t nd = st->s->ndims;
    for (size_t i = 0; i < b->out; i++)
        if (isnan(b->us[i]) && !memcmp(b->cfg + i * nd, cfg, nd * sizeof *cfg)) {
            b->us[i] = status == GT_TRIAL_OK && us >= 0 ? us : INFINITY;
            b->done++;
            return;
        }
}

long gt_search_batch_best(const struct gt_search_batch *b)
{
    long best = -1;
    for (size_t i = 0; i < b->n; i++)
        if (isfinite(b->us[i]) && (best < 0 || b->us[i] < b->us[best]))
            best = (long)i;
    return best;
}

void gt_search_batch_fill(struct gt_strategy *st, struct gt_search_batch *b, uint32_t *scratch, size_t want)
{
    while (b->n < want && gt_search_random(st, scratch) && gt_search_batch_add(st, b, scratch) > 0)
        continue;
}

void gt_search_batch_clear(struct gt_search_batch *b)
{
    b->n = b->out = b->done = 0;
}

void gt_search_batch_free(struct gt_search_batch *b)
{
    free(b->cfg);
    free(b->us);
}

/* ---- the interface ---- */

/* Lists the valid configurations by rank, unless there are more than
 * LIST_LIMIT; sets st->listed. */
static int list_valid(struct gt_strategy *st)
{
    struct gt_space_iter it;
    if (gt_space_iter_init(&it, st->s, st->launch) != 0)
        return -1;
    uint64_t cap = 1024;
    st->ranks = gt_malloc(cap * sizeof *st->ranks);
    st->listed = st->ranks != NULL;
    while (st->listed && gt_space_iter_next(&it) == 1) {
        uint64_t r = gt_space_rank(st->s, it.cfg);
        if (r == st->default_rank)
            continue;
        if (st->nranks == LIST_LIMIT) {
            st->listed = 0;
            break;
        }
        if (st->nranks == cap) {
            uint64_t *v = gt_realloc(st->ranks, 2 * cap * sizeof *v);
            if (!v) {
                st->listed = 0;
                break;
            }
            st->ranks = v;
            cap *= 2;
        }
        st->ranks[st->nranks++] = r;
    }
    gt_space_iter_clear(&it);
    return st->ranks ? 0 : -1;
}

static const struct gt_search *find(const char *name)
{
    for (size_t i = 0; i < sizeof searches / sizeof *searches; i++)
        if (!strcmp(searches[i]->name, name))
            return searches[i];
    return NULL;
}

/* auto: a tiny space is tried whole, since its builds all fit a couple of
 * parallel compile batches and an adaptive search would only serialize
 * them.  Any other is pruned statically, then searched guided by a forest
 * of regression trees (`pareto-guided`, search_staged.c): chosen with its
 * parameters by leave-one-out on the recorded landscapes, own and public
 * (bench/replay --loo, bench/results/replay-public.md), where the choices
 * made without each landscape meet the held-out bar on 8 of 9, `bayes`
 * and its variants among the candidates; convolution_milo, whose optimum
 * no single change leads to, misses it.  The pruning's
 * estimates cost builds, so a budget under AUTO_PRUNE
 * trials goes to regression-tree sampling alone. */
#define AUTO_EXHAUSTIVE 32
#define AUTO_PRUNE 32

static const struct gt_search *choose(const struct gt_strategy *st)
{
    if (st->listed && st->nranks <= AUTO_EXHAUSTIVE && (st->budget <= 0 || st->nranks <= (uint64_t)st->budget))
        return &gt_search_exhaustive;
    if (st->budget > 0 && st->budget < AUTO_PRUNE)
        return &gt_search_tree;
    return &gt_search_staged_guided;
}

/* Every strategy.NAME of the settings must be one the strategy reads. */
static int known_params(const struct gt_strategy *st, char *err, size_t errlen)
{
    for (size_t i = 0; st->set && i < st->set->nsparams; i++) {
        const char *name = st->set->sparams[i].key;
        int known = 0;
        for (const char *const *p = st->impl->params; p && *p && !known; p++)
            known = !strcmp(*p, name);
        if (!known) {
            snprintf(err, errlen, "strategy %s has no parameter '%s'", st->impl->name, name);
            return -1;
        }
    }
    return 0;
}

void gt_strategy_list(char *buf, size_t len)
{
    size_t n = sizeof searches / sizeof *searches, at = (size_t)snprintf(buf, len, "auto");
    for (size_t i = 0; i < n && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i + 1 < n ? ", " : " or ", searches[i]->name);
}

struct gt_strategy *gt_strategy_new(const char *name, const struct gt_space *s, const struct gt_launch *launch,
                                    const struct gt_settings *set, long budget, uint64_t seed, char *err,
                                    size_t errlen)
{
    int is_auto = !name || !strcmp(name, "auto");
    const struct gt_search *impl = is_auto ? NULL : find(name);
    if (!is_auto && !impl) {
        char names[256];
        gt_strategy_list(names, sizeof names);
        snprintf(err, errlen, "there is no strategy '%s'; use %s", name, names);
        return NULL;
    }
    struct gt_strategy *st = gt_calloc(1, sizeof *st);
    uint32_t *def = gt_calloc(s->ndims + 1, sizeof *def);
    if (!st || !def) {
        free(st);
        free(def);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    *st = (struct gt_strategy){.s = s, .launch = launch, .set = set, .budget = budget, .baseline_us = -1,
                               .rng = seed ? seed : 0x9e3779b97f4a7c15ULL};
    gt_space_default(s, def);
    st->default_rank = gt_space_rank(s, def);
    free(def);
    if (list_valid(st) != 0) {
        snprintf(err, errlen, "out of memory");
        gt_strategy_free(st);
        return NULL;
    }
    st->impl = impl ? impl : choose(st);
    if (errlen)
        err[0] = '\0';
    if (known_params(st, err, errlen) != 0 || st->impl->init(st, err, errlen) != 0) {
        if (errlen && !err[0]) /* an init says what is wrong with its parameters; one that says nothing ran out of memory */
            snprintf(err, errlen, "out of memory");
        gt_strategy_free(st);
        return NULL;
    }
    return st;
}

void gt_strategy_baseline(struct gt_strategy *st, double us)
{
    st->baseline_us = us;
}

void gt_strategy_pace(struct gt_strategy *st, size_t width)
{
    st->pace = width;
}

int gt_strategy_may_estimate(double spent, double seconds)
{
    return spent < seconds * ESTIMATE_SHARE;
}

size_t gt_strategy_width(long left, double seconds, double build_s, double trial_s, size_t most)
{
    if (build_s <= 0 || left <= 0)
        return 0;
    double steps = floor((seconds - (double)left * trial_s) / build_s);
    double width = steps >= 1 ? ceil((double)left / steps) : (double)most;
    return width < (double)most ? (size_t)width : most;
}

int gt_strategy_next(struct gt_strategy *st, uint32_t *cfg)
{
    int r = st->impl->next(st, cfg);
    if (r == GT_NEXT_TRIAL && gt_search_mark(st, cfg) != 0)
        return GT_NEXT_DONE;
    return r;
}

void gt_strategy_report(struct gt_strategy *st, const uint32_t *cfg, double us, enum gt_trial_status status)
{
    if (st->impl->report)
        st->impl->report(st, cfg, us, status);
}

void gt_strategy_estimated(struct gt_strategy *st, const uint32_t *cfg, const struct gt_estimate *e)
{
    if (st->impl->estimated)
        st->impl->estimated(st, cfg, e);
}

int gt_strategy_may_cut(const struct gt_strategy *st, const uint32_t *cfg)
{
    return st->impl->may_cut ? st->impl->may_cut(st, cfg) : 1;
}

double gt_strategy_cut_base(const struct gt_strategy *st, const uint32_t *cfg)
{
    return st->impl->cut_base ? st->impl->cut_base(st, cfg) : -1;
}

const char *gt_strategy_name(const struct gt_strategy *st)
{
    return st->impl->name;
}

const char *gt_strategy_names(size_t i)
{
    return i < sizeof searches / sizeof *searches ? searches[i]->name : NULL;
}

uint64_t gt_strategy_space_size(const struct gt_strategy *st)
{
    return st->listed ? st->nranks : st->nranks + 1;
}

void gt_strategy_free(struct gt_strategy *st)
{
    if (!st)
        return;
    if (st->impl && st->impl->free)
        st->impl->free(st->state);
    free(st->ranks);
    free(st->tried);
    free(st);
}
