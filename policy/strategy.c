/* strategy.c: search strategies behind one interface.
 *
 * A strategy proposes configurations one at a time (gt_strategy_next: 1
 * and a configuration, 0 when it has nothing more to try, -1 when it must
 * see results of what it proposed first) and is told how each went
 * (gt_strategy_report: a time, or invalid, or aborted).  The trial engine
 * compiles ahead what strategies propose and stops them at the budget.
 * Only valid configurations are proposed: launch-independent constraints
 * and, given the launch, launch-dependent ones hold for every one of them.
 * The space's default configuration is the original kernel, which the
 * engine measures as the baseline: it is never proposed.
 *
 *   exhaustive  every valid configuration in enumeration order
 *   random      valid configurations drawn without repetition, seeded
 *   auto        exhaustive when the valid space fits the budget, else random */
#include "strategy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIST_LIMIT (1u << 20)   /* valid configurations enumerated up front at most */
#define COUNT_VISITS (1u << 22) /* nodes visited to count a space */

struct gt_strategy {
    const char *name;
    const struct gt_space *s;
    const struct gt_launch *launch;
    uint64_t rng;
    uint64_t valid;            /* valid configurations, or LIST_LIMIT+ if more */
    uint64_t default_rank;
    uint64_t *ranks;           /* the valid configurations, in the order to propose them */
    uint64_t nranks, at;
    /* sampling when the space is too large to list */
    uint64_t *seen;
    size_t nseen, capseen;
    int sampling;
};

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Lists up to `limit` valid configurations by rank; returns how many, with
 * *more set when there were more. */
static uint64_t list_valid(struct gt_strategy *st, uint64_t limit, int *more)
{
    struct gt_space_iter it;
    uint64_t n = 0;
    *more = 0;
    if (gt_space_iter_init(&it, st->s, st->launch) != 0)
        return 0;
    st->ranks = malloc((size_t)(limit ? limit : 1) * sizeof *st->ranks);
    while (st->ranks && gt_space_iter_next(&it) == 1) {
        uint64_t r = gt_space_rank(st->s, it.cfg);
        if (r == st->default_rank)
            continue;
        if (n == limit) {
            *more = 1;
            break;
        }
        st->ranks[n++] = r;
    }
    gt_space_iter_clear(&it);
    return n;
}

static void shuffle(struct gt_strategy *st)
{
    for (uint64_t i = st->nranks; i > 1; i--) {
        uint64_t j = next_random(&st->rng) % i, t = st->ranks[i - 1];
        st->ranks[i - 1] = st->ranks[j];
        st->ranks[j] = t;
    }
}

struct gt_strategy *gt_strategy_new(const char *name, const struct gt_space *s, const struct gt_launch *launch,
                                    long budget, uint64_t seed, char *err, size_t errlen)
{
    if (!name || !strcmp(name, "auto"))
        name = "auto";
    else if (strcmp(name, "exhaustive") && strcmp(name, "random")) {
        snprintf(err, errlen, "strategy '%s' is not available yet; use auto, exhaustive or random", name);
        return NULL;
    }
    struct gt_strategy *st = calloc(1, sizeof *st);
    uint32_t *def = calloc(s->ndims + 1, sizeof *def);
    if (!st || !def) {
        free(st);
        free(def);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    st->s = s;
    st->launch = launch;
    st->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
    gt_space_default(s, def);
    st->default_rank = gt_space_rank(s, def);
    free(def);
    int more;
    st->nranks = list_valid(st, LIST_LIMIT, &more);
    st->valid = st->nranks + (uint64_t)more;
    if (!strcmp(name, "auto"))
        name = !more && (budget <= 0 || st->nranks <= (uint64_t)budget) ? "exhaustive" : "random";
    st->name = name;
    if (!strcmp(name, "random") && !more)
        shuffle(st);
    st->sampling = more && !strcmp(name, "random");
    return st;
}

static int seen_before(struct gt_strategy *st, uint64_t r)
{
    for (size_t i = 0; i < st->nseen; i++)
        if (st->seen[i] == r)
            return 1;
    if (st->nseen == st->capseen) {
        size_t cap = st->capseen ? st->capseen * 2 : 64;
        uint64_t *v = realloc(st->seen, cap * sizeof *v);
        if (!v)
            return 1;
        st->seen = v;
        st->capseen = cap;
    }
    st->seen[st->nseen++] = r;
    return 0;
}

/* A valid, new configuration drawn from a space too large to list. */
static int sample(struct gt_strategy *st, uint32_t *cfg)
{
    for (int tries = 0; tries < 10000; tries++) {
        uint64_t r = next_random(&st->rng) % st->s->size;
        if (r == st->default_rank)
            continue;
        gt_space_unrank(st->s, r, cfg);
        if (gt_space_check(st->s, cfg, st->launch, NULL) == 1 && !seen_before(st, r))
            return 1;
    }
    return 0;
}

int gt_strategy_next(struct gt_strategy *st, uint32_t *cfg)
{
    if (st->sampling)
        return sample(st, cfg);
    if (st->at >= st->nranks)
        return 0;
    gt_space_unrank(st->s, st->ranks[st->at++], cfg);
    return 1;
}

void gt_strategy_report(struct gt_strategy *st, const uint32_t *cfg, double us, enum gt_trial_status status)
{
    (void)st, (void)cfg, (void)us, (void)status; /* neither strategy here learns from results */
}

/* Whether the watchdog may cut cfg's trial short (a cut trial's time only
 * says "slower than the deadline").  The strategies here need no more than
 * that of any configuration; a model-based one keeps its base and support
 * configurations whole. */
int gt_strategy_may_cut(const struct gt_strategy *st, const uint32_t *cfg)
{
    (void)st;
    (void)cfg;
    return 1;
}

const char *gt_strategy_name(const struct gt_strategy *st)
{
    return st->name;
}

/* Valid configurations besides the default (a lower bound when sampling). */
uint64_t gt_strategy_space_size(const struct gt_strategy *st)
{
    return st->valid;
}

void gt_strategy_free(struct gt_strategy *st)
{
    if (!st)
        return;
    free(st->ranks);
    free(st->seen);
    free(st);
}
