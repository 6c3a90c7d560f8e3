/* cart.c: CART regression trees (Breiman et al.) over configurations as
 * value-index vectors, for the tree strategy.
 *
 * Greedy top-down growth: a node takes the split `x[dim] < cut` that most
 * reduces the squared error of its samples about their side's mean, with
 * at least `leaf` samples on each side; cuts fall halfway between
 * neighbouring indices seen in the node, so a region widens evenly over
 * values nobody sampled.  No pruning: the strategy wants the small leaves
 * (it re-fits on more samples each round).  Each node owns a contiguous
 * run of a permutation of the samples, split in place, and nodes are grown
 * in creation order, so no recursion is needed.
 *
 * The results a tree is fitted to are log times: kernel times vary by
 * factors (each dimension multiplies the time), and a tail of
 * configurations 100x slower would otherwise dominate the squared errors
 * the splits minimize.  A trial cut short ran longer than watchdog.factor
 * times the best so far, and how long it ran is only a lower bound, which
 * makes slow regions look middling: it counts as the upper quartile of the
 * measured times when that is more.  (The slowest measured time instead
 * made a region near coulomb's optimum look as bad as the worst: 99% of its
 * optimum took the tree strategy a median 1068 trials, not 82.) */
#include "cart.h"
#include "alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct fit {
    const uint32_t *x;
    const double *y;
    size_t ndims, leaf;
    size_t *idx;           /* the samples, each node's a contiguous run */
    size_t *from, *to;     /* per node: its run idx[from, to) */
    size_t *cnt;           /* per value index: samples of the node there */
    double *sum;           /* and the sum of their y */
};

struct split {
    int dim;
    uint32_t cut;
    double gain;
};

static uint32_t at(const struct fit *f, size_t sample, int dim)
{
    return f->x[sample * f->ndims + (size_t)dim];
}

/* The best cut of one dimension over the node's run, if it beats *best. */
static void best_cut(struct fit *f, size_t from, size_t to, int dim, double total, struct split *best)
{
    uint32_t lo = at(f, f->idx[from], dim), hi = lo;
    for (size_t i = from + 1; i < to; i++) {
        uint32_t v = at(f, f->idx[i], dim);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    if (lo == hi)
        return;
    for (uint32_t v = lo; v <= hi; v++) {
        f->cnt[v] = 0;
        f->sum[v] = 0;
    }
    for (size_t i = from; i < to; i++) {
        uint32_t v = at(f, f->idx[i], dim);
        f->cnt[v]++;
        f->sum[v] += f->y[f->idx[i]];
    }
    size_t n = to - from, nl = f->cnt[lo];
    double sl = f->sum[lo];
    uint32_t prev = lo;
    for (uint32_t w = lo + 1; w <= hi; w++) {
        if (!f->cnt[w])
            continue;
        size_t nr = n - nl;
        /* the drop in squared error: sl²/nl + sr²/nr - total²/n */
        double gain = sl * sl / (double)nl + (total - sl) * (total - sl) / (double)nr - total * total / (double)n;
        if (nl >= f->leaf && nr >= f->leaf && gain > best->gain)
            *best = (struct split){dim, prev + (w - prev + 1) / 2, gain};
        nl += f->cnt[w];
        sl += f->sum[w];
        prev = w;
    }
}

/* Splits node k when a cut reduces its squared error; appends the two
 * children. */
static void grow(struct gt_cart *t, struct fit *f, size_t k)
{
    size_t from = f->from[k], to = f->to[k], n = to - from;
    double total = 0, squares = 0;
    for (size_t i = from; i < to; i++) {
        total += f->y[f->idx[i]];
        squares += f->y[f->idx[i]] * f->y[f->idx[i]];
    }
    t->nodes[k].n = n;
    t->nodes[k].mean = n ? total / (double)n : 0;
    if (n < 2 * f->leaf)
        return;
    /* gains below rounding noise of the node's error are no split */
    double sse = squares - total * total / (double)n;
    struct split best = {-1, 0, 1e-9 * (sse > 0 ? sse : 0) + 1e-300};
    for (size_t d = 0; d < f->ndims; d++)
        best_cut(f, from, to, (int)d, total, &best);
    if (best.dim < 0)
        return;
    size_t mid = from;
    for (size_t i = from; i < to; i++)
        if (at(f, f->idx[i], best.dim) < best.cut) {
            size_t s = f->idx[i];
            f->idx[i] = f->idx[mid];
            f->idx[mid++] = s;
        }
    size_t l = t->nnodes++, r = t->nnodes++;
    t->nodes[k].dim = best.dim;
    t->nodes[k].cut = best.cut;
    t->nodes[k].left = (int)l;
    t->nodes[k].right = (int)r;
    t->nodes[l] = t->nodes[r] = (struct gt_cart_node){.dim = -1, .left = -1, .right = -1, .parent = (int)k};
    f->from[l] = from, f->to[l] = mid;
    f->from[r] = mid, f->to[r] = to;
}

int gt_cart_fit(struct gt_cart *t, const uint32_t *x, const double *y, size_t n, size_t ndims, size_t leaf)
{
    uint32_t top = 0;
    for (size_t i = 0; i < n * ndims; i++)
        top = x[i] > top ? x[i] : top;
    size_t cap = 2 * n + 1;   /* every leaf holds a sample, so at most 2n - 1 nodes */
    struct fit f = {.x = x, .y = y, .ndims = ndims, .leaf = leaf ? leaf : 1};
    f.idx = gt_malloc((n + 1) * sizeof *f.idx);
    f.from = gt_malloc(cap * sizeof *f.from);
    f.to = gt_malloc(cap * sizeof *f.to);
    f.cnt = gt_malloc(((size_t)top + 1) * sizeof *f.cnt);
    f.sum = gt_malloc(((size_t)top + 1) * sizeof *f.sum);
    *t = (struct gt_cart){.nodes = gt_malloc(cap * sizeof *t->nodes), .nnodes = 1};
    int ok = f.idx && f.from && f.to && f.cnt && f.sum && t->nodes;
    if (ok) {
        for (size_t i = 0; i < n; i++)
            f.idx[i] = i;
        t->nodes[0] = (struct gt_cart_node){.dim = -1, .left = -1, .right = -1, .parent = -1};
        f.from[0] = 0, f.to[0] = n;
        for (size_t k = 0; k < t->nnodes; k++)
            grow(t, &f, k);
    } else {
        gt_cart_free(t);
    }
    free(f.idx);
    free(f.from);
    free(f.to);
    free(f.cnt);
    free(f.sum);
    return ok ? 0 : -1;
}

int gt_cart_best_leaf(const struct gt_cart *t)
{
    int best = 0;
    for (size_t k = 0; k < t->nnodes; k++) {
        const struct gt_cart_node *c = &t->nodes[k], *b = &t->nodes[best];
        if (c->dim < 0 && c->n && (b->dim >= 0 || !b->n || c->mean < b->mean))
            best = (int)k;
    }
    return best;
}

void gt_cart_region(const struct gt_cart *t, int node, uint32_t *lo, uint32_t *hi)
{
    for (int k = node; k >= 0 && t->nodes[k].parent >= 0; k = t->nodes[k].parent) {
        const struct gt_cart_node *p = &t->nodes[t->nodes[k].parent];
        if (p->left == k && p->cut < hi[p->dim])
            hi[p->dim] = p->cut;
        if (p->right == k && p->cut > lo[p->dim])
            lo[p->dim] = p->cut;
    }
}

double gt_cart_predict(const struct gt_cart *t, const uint32_t *x)
{
    int k = 0;
    while (t->nodes[k].dim >= 0)
        k = x[t->nodes[k].dim] < t->nodes[k].cut ? t->nodes[k].left : t->nodes[k].right;
    return t->nodes[k].mean;
}

void gt_cart_free(struct gt_cart *t)
{
    free(t->nodes);
    *t = (struct gt_cart){0};
}

void gt_cart_data_add(struct gt_cart_data *d, const uint32_t *cfg, double us, int cut)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        uint32_t *x = gt_realloc(d->x, cap * d->k * sizeof *x + 1);
        if (x)
            d->x = x;
        double *y = gt_realloc(d->y, cap * sizeof *y);
        if (y)
            d->y = y;
        unsigned char *c = gt_realloc(d->cut, cap);
        if (c)
            d->cut = c;
        if (!x || !y || !c)
            return;
        d->cap = cap;
    }
    memcpy(d->x + d->n * d->k, cfg, d->k * sizeof *cfg);
    d->cut[d->n] = (unsigned char)cut;
    d->y[d->n++] = us > 0 ? log(us) : NAN;
}

static int ascending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double *gt_cart_data_targets(const struct gt_cart_data *d)
{
    double *y = gt_malloc(d->n * sizeof *y + 1), *ok = gt_malloc(d->n * sizeof *ok + 1);
    size_t n = 0;
    for (size_t i = 0; y && ok && i < d->n; i++)
        if (!d->cut[i])
            ok[n++] = d->y[i];
    if (y && ok && n)
        qsort(ok, n, sizeof *ok, ascending);
    for (size_t i = 0; y && ok && i < d->n; i++)
        y[i] = d->cut[i] && n && ok[n * 3 / 4] > d->y[i] ? ok[n * 3 / 4] : d->y[i];
    if (!ok) {
        free(y);
        y = NULL;
    }
    free(ok);
    return y;
}

void gt_cart_data_free(struct gt_cart_data *d)
{
    free(d->x);
    free(d->y);
    free(d->cut);
    *d = (struct gt_cart_data){.k = d->k};
}
