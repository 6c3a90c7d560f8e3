/* search_basic.c: the two strategies that learn nothing from results.
 *
 *   exhaustive  every valid configuration, in enumeration order
 *   random      valid configurations drawn uniformly without repetition
 *               (seeded: GPUTUNE_SEED mixed with the kernel and signature) */
#include "strategies.h"
#include "alloc.h"

#include <stdlib.h>

struct walk {
    uint64_t at;
};

static int exhaustive_init(struct gt_strategy *st, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    st->state = gt_calloc(1, sizeof(struct walk));
    return st->state ? 0 : -1;
}

/* In enumeration order; a space too large to list is walked by rank. */
static int exhaustive_next(struct gt_strategy *st, uint32_t *cfg)
{
    struct walk *w = st->state;
    if (st->listed) {
        if (w->at >= st->nranks)
            return 0;
        gt_space_unrank(st->s, st->ranks[w->at++], cfg);
        return 1;
    }
    for (; w->at < st->s->size; w->at++) {
        gt_space_unrank(st->s, w->at, cfg);
        if (gt_search_valid(st, cfg)) {
            w->at++;
            return 1;
        }
    }
    return 0;
}

const struct gt_search gt_search_exhaustive = {
    .name = "exhaustive", .init = exhaustive_init, .next = exhaustive_next, .free = free,
};

static int random_init(struct gt_strategy *st, char *err, size_t errlen)
{
    (void)st, (void)err, (void)errlen;
    return 0;
}

static int random_next(struct gt_strategy *st, uint32_t *cfg)
{
    return gt_search_random(st, cfg);
}

const struct gt_search gt_search_random_search = {
    .name = "random", .init = random_init, .next = random_next,
};
