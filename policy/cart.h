/* cart.h: CART regression trees over configurations (value indices), and
 * the results they are fitted to, for the tree and guided strategies
 * (search_tree.c, search_guided.c); see cart.c. */
#ifndef GT_CART_H
#define GT_CART_H

#include <stddef.h>
#include <stdint.h>

/* A node splits on `x[dim] < cut` (left) against `x[dim] >= cut` (right);
 * a leaf has dim -1.  Node 0 is the root. */
struct gt_cart_node {
    int dim;
    uint32_t cut;
    int left, right, parent;  /* -1: none */
    size_t n;                 /* samples in the node */
    double mean;              /* of their y (0 without samples) */
};

struct gt_cart {
    struct gt_cart_node *nodes;
    size_t nnodes;
};

/* Fits a tree to n samples: x holds n rows of ndims value indices, y their
 * targets.  A node splits where the split reduces the squared error most,
 * both sides keeping at least `leaf` samples (>= 1); it stays a leaf when no
 * split reduces it.  Returns 0, or -1 without memory (t then empty). */
int gt_cart_fit(struct gt_cart *t, const uint32_t *x, const double *y, size_t n, size_t ndims, size_t leaf);
/* The leaf with the lowest mean among leaves with samples (the root when
 * there are none). */
int gt_cart_best_leaf(const struct gt_cart *t);
/* The region of a node: lo[d] <= x[d] < hi[d], where lo and hi come in as
 * the whole space's bounds and are narrowed by the splits on the path from
 * the root. */
void gt_cart_region(const struct gt_cart *t, int node, uint32_t *lo, uint32_t *hi);
/* The mean of the leaf x falls in (x: ndims value indices). */
double gt_cart_predict(const struct gt_cart *t, const uint32_t *x);
void gt_cart_free(struct gt_cart *t);

/* Results to fit to: configurations and the log of their time; a trial
 * cut short by the watchdog ran at least its time, so it is a lower bound. */
struct gt_cart_data {
    size_t k;                /* dimensions */
    uint32_t *x;             /* n rows of k value indices */
    double *y;               /* log time */
    unsigned char *cut;      /* 1: cut short */
    size_t n, cap;
};

/* Adds a result, its log time NAN where it has none (us <= 0); without
 * memory it is lost, not the search. */
void gt_cart_data_add(struct gt_cart_data *d, const uint32_t *cfg, double us, int cut);
/* What a tree is fitted to: y, those cut short raised to the upper
 * quartile of the measured ones at least.  NULL without memory. */
double *gt_cart_data_targets(const struct gt_cart_data *d);
void gt_cart_data_free(struct gt_cart_data *d);

#endif
