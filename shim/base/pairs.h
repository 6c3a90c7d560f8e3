/* pairs.h: whether a configuration is faster than the original, from
 * launches timed in pairs of one of each (see pairs.c). */
#ifndef GT_PAIRS_H
#define GT_PAIRS_H

#define GT_PAIRS_MAX 64     /* pairs judged at most */
#define GT_PAIRS_GAIN 0.002 /* the least gain a configuration is kept for once its pairs are many */

enum gt_pairs_verdict { GT_PAIRS_MORE, GT_PAIRS_FASTER, GT_PAIRS_NOT_FASTER };

/* State between judgements of a growing set of pairs. */
struct gt_pairs {
    int looked; /* judged at the first look (pairs.c) */
};

/* The verdict on the first n pairs (n <= GT_PAIRS_MAX), l[k] the k-th
 * pair's log time of the original less the configuration's: faster, not
 * faster, or more pairs wanted.  *ratio: the configuration's time over
 * the original's, as the pairs estimate it (unchanged while more are
 * wanted and no estimate was needed).  Judged once per count of pairs. */
enum gt_pairs_verdict gt_pairs_judge(struct gt_pairs *st, const double *l, int n, double *ratio);

#endif
