/* search_pareto.c: static Pareto pruning (Ryoo et al., CGO 2008), strategy
 * `pareto`.
 *
 * First it asks for estimates (GT_NEXT_ESTIMATE: built and loaded, not run)
 * of strategy.sample configurations (default 256, drawn uniformly; the whole
 * space when it is smaller).  From each estimate (shim/tune/estimate.c) come two
 * metrics, higher is better:
 *
 *   efficiency  = 1 / (I x T)
 *   utilization = I / R x [(W - 1) / 2 + (B - 1) x W]
 *
 * with I the estimated dynamic instructions per thread, T the threads of
 * the launch, R the regions between blocking points (loads' first uses,
 * barriers) plus one, W the warps per block and B the resident blocks per
 * SM from the occupancy calculator.  A configuration that cannot be
 * resident (B = 0) is never tried.
 *
 * Trials then go front by front: the Pareto-optimal points first (none is
 * at least as good in both metrics and better in one), then the front of
 * what is left, and so on; in a front, by efficiency.  Points with the same
 * two metrics form a cluster whose first member stands for it: the others
 * come after every front.  Configurations without an estimate come last.
 * The search ends when the sample is tried or at the budget.
 *
 * The metrics ignore memory bandwidth (the method screens out
 * bandwidth-bound variants beforehand, which needs a roofline the shim does
 * not have): on memory-bound kernels the fronts only order the trials. */
#include "strategies.h"
#include "alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SAMPLE 256

enum { P_ASKED, P_OK, P_NONE, P_NOT_RESIDENT };

struct point {
    uint64_t rank;
    double eff, util;
    int state;
    int dup;          /* same metrics as an earlier point */
    size_t layer;
};

struct pareto {
    struct point *pt;
    size_t n, out, done;
    size_t *by_rank;     /* indices of pt sorted by rank, for the estimates' lookups */
    size_t *order;       /* the trials' order, once planned */
    size_t norder, next;
    int planned;
};

static void pareto_free(void *state)
{
    struct pareto *p = state;
    if (!p)
        return;
    free(p->pt);
    free(p->by_rank);
    free(p->order);
    free(p);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The sample's ranks into r (room for want): a partial shuffle of the list,
 * or draws without repeats from a space too large to list.  Returns how
 * many. */
static size_t draw_sample(struct gt_strategy *st, uint64_t *r, size_t want, uint32_t *cfg)
{
    if (st->listed) {
        uint64_t *all = gt_malloc((st->nranks + 1) * sizeof *all);
        if (!all)
            return 0;
        memcpy(all, st->ranks, st->nranks * sizeof *all);
        size_t n = want < st->nranks ? want : (size_t)st->nranks;
        for (size_t i = 0; i < n; i++) {
            size_t j = i + (size_t)(gt_search_rand(st) % (st->nranks - i));
            uint64_t t = all[i];
            all[i] = all[j], all[j] = t;
            r[i] = all[i];
        }
        free(all);
        return n;
    }
    size_t n = 0;
    for (size_t i = 0; i < want && gt_search_random(st, cfg); i++)
        r[n++] = gt_space_rank(st->s, cfg);
    qsort(r, n, sizeof *r, cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || r[i] != r[u - 1])
            r[u++] = r[i];
    return u;
}

static int cmp_by_rank(const void *a, const void *b, void *ctx)
{
    const struct point *pt = ((const struct pareto *)ctx)->pt;
    uint64_t x = pt[*(const size_t *)a].rank, y = pt[*(const size_t *)b].rank;
    return (x > y) - (x < y);
}

static int pareto_init(struct gt_strategy *st, char *err, size_t errlen)
{
    if (gt_search_param_check(st, "sample", 1, 1e7, err, errlen) != 0)
        return -1;
    size_t want = (size_t)gt_search_param(st, "sample", DEFAULT_SAMPLE);
    struct pareto *p = gt_calloc(1, sizeof *p);
    uint64_t *r = gt_malloc((want + 1) * sizeof *r);
    uint32_t *cfg = gt_calloc(st->s->ndims + 1, sizeof *cfg);
    st->state = p;
    if (p && r && cfg)
        p->n = draw_sample(st, r, want, cfg);
    if (p && r && cfg) {
        p->pt = gt_calloc(p->n + 1, sizeof *p->pt);
        p->by_rank = gt_malloc((p->n + 1) * sizeof *p->by_rank);
    }
    int ok = p && r && cfg && p->pt && p->by_rank;
    for (size_t i = 0; ok && i < p->n; i++) {
        p->pt[i] = (struct point){.rank = r[i], .state = P_ASKED};
        p->by_rank[i] = i;
    }
    if (ok)
        qsort_r(p->by_rank, p->n, sizeof *p->by_rank, cmp_by_rank, p);
    free(r);
    free(cfg);
    if (!ok)
        snprintf(err, errlen, "out of memory");
    return ok ? 0 : -1;
}

static struct point *find_point(struct pareto *p, uint64_t rank)
{
    size_t lo = 0, hi = p->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (p->pt[p->by_rank[mid]].rank < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->n && p->pt[p->by_rank[lo]].rank == rank ? &p->pt[p->by_rank[lo]] : NULL;
}

static void pareto_estimated(struct gt_strategy *st, const uint32_t *cfg, const struct gt_estimate *e)
{
    struct pareto *p = st->state;
    struct point *q = find_point(p, gt_space_rank(st->s, cfg));
    if (!q || q->state != P_ASKED)
        return;
    p->done++;
    if (!e || !(e->instr > 0) || !(e->threads > 0) || !e->block_threads) {
        q->state = P_NONE;
        return;
    }
    if (e->blocks_per_sm <= 0) {
        q->state = P_NOT_RESIDENT;
        return;
    }
    double w = ceil(e->block_threads / 32.0), b = e->blocks_per_sm;
    double regions = e->regions >= 1 ? e->regions : 1;
    q->state = P_OK;
    q->eff = 1.0 / (e->instr * e->threads);
    q->util = e->instr / regions * ((w - 1) / 2 + (b - 1) * w);
}

/* By efficiency, then utilization, both descending; then sample order. */
static int cmp_metrics(const void *a, const void *b, void *ctx)
{
    const struct point *pt = ((const struct pareto *)ctx)->pt, *x = &pt[*(const size_t *)a], *y = &pt[*(const size_t *)b];
    if (x->eff != y->eff)
        return x->eff < y->eff ? 1 : -1;
    if (x->util != y->util)
        return x->util < y->util ? 1 : -1;
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/* By front, then efficiency; cluster members after every front. */
static int cmp_order(const void *a, const void *b, void *ctx)
{
    const struct point *pt = ((const struct pareto *)ctx)->pt, *x = &pt[*(const size_t *)a], *y = &pt[*(const size_t *)b];
    if (x->dup != y->dup)
        return x->dup - y->dup;
    if (x->layer != y->layer)
        return (x->layer > y->layer) - (x->layer < y->layer);
    return cmp_metrics(a, b, ctx);
}

/* Fronts of the points sorted by cmp_metrics: each point, met in that order,
 * is dominated by a front exactly when the front's best utilization so far
 * is at least its own (all met before are at least as efficient, and equal
 * pairs are clusters, not domination).  Those bests fall from front to
 * front, so a binary search finds its front. */
static int assign_fronts(struct pareto *p, const size_t *idx, size_t m)
{
    double *best = gt_malloc((m + 1) * sizeof *best);
    size_t nfronts = 0;
    const struct point *prev = NULL;
    if (!best)
        return -1;
    for (size_t i = 0; i < m; i++) {
        struct point *q = &p->pt[idx[i]];
        if (prev && q->eff == prev->eff && q->util == prev->util) {
            q->dup = 1;
            q->layer = prev->layer;
            continue;
        }
        size_t lo = 0, hi = nfronts;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (best[mid] >= q->util)
                lo = mid + 1;
            else
                hi = mid;
        }
        q->layer = lo;
        if (lo == nfronts)
            best[nfronts++] = q->util;
        else if (q->util > best[lo])
            best[lo] = q->util;
        prev = q;
    }
    free(best);
    return 0;
}

static int plan(struct pareto *p)
{
    p->order = gt_malloc((p->n + 1) * sizeof *p->order);
    if (!p->order)
        return -1;
    size_t m = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->pt[i].state == P_OK)
            p->order[m++] = i;
    qsort_r(p->order, m, sizeof *p->order, cmp_metrics, p);
    if (assign_fronts(p, p->order, m) != 0)
        return -1;
    qsort_r(p->order, m, sizeof *p->order, cmp_order, p);
    p->norder = m;
    for (size_t i = 0; i < p->n; i++)
        if (p->pt[i].state == P_NONE)
            p->order[p->norder++] = i;
    return 0;
}

static int pareto_next(struct gt_strategy *st, uint32_t *cfg)
{
    struct pareto *p = st->state;
    if (p->out < p->n) {
        gt_space_unrank(st->s, p->pt[p->out++].rank, cfg);
        return GT_NEXT_ESTIMATE;
    }
    if (p->done < p->n)
        return GT_NEXT_WAIT;
    if (!p->planned) {
        p->planned = 1;
        if (plan(p) != 0)
            return GT_NEXT_DONE;
    }
    while (p->next < p->norder) {
        gt_space_unrank(st->s, p->pt[p->order[p->next++]].rank, cfg);
        if (!gt_search_tried(st, cfg))
            return GT_NEXT_TRIAL;
    }
    return GT_NEXT_DONE;
}

static const char *const pareto_params[] = {"sample", NULL};

const struct gt_search gt_search_pareto = {
    .name = "pareto", .params = pareto_params, .init = pareto_init, .next = pareto_next,
    .estimated = pareto_estimated, .free = pareto_free,
};
