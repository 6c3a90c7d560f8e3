/* diag.h: located error messages for the policy layer (see diag.c). */
#ifndef GT_DIAG_H
#define GT_DIAG_H

#include <stddef.h>

/* A place in a policy file; lines and columns count from 1. */
struct gt_loc {
    const char *file;
    int line, col;
};

/* One message, "file:line:col: msg" once formatted. */
struct gt_diag {
    char *file;
    int line, col;
    char *msg;
};

/* Messages in the order they were found; gt_diags_sort orders them by place. */
struct gt_diags {
    struct gt_diag *v;
    size_t n, cap;
};

void gt_diags_add(struct gt_diags *d, struct gt_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void gt_diags_sort(struct gt_diags *d);
void gt_diags_clear(struct gt_diags *d);
size_t gt_diags_count_in(const struct gt_diags *d, const char *file);
/* Writes "file:line:col: msg" (at most len bytes, NUL included); returns what it would need. */
int gt_diag_format(const struct gt_diag *g, char *buf, size_t len);

/* A text assembled from pieces of a file (a value continued on several
 * lines): where each byte of it came from.  Piece i starts at byte off of
 * the text and at (line, col) of the file. */
struct gt_srcpiece {
    size_t off;
    int line, col;
};

struct gt_srcmap {
    const char *file;
    struct gt_srcpiece *piece;
    size_t n;
};

struct gt_loc gt_srcmap_loc(const struct gt_srcmap *m, size_t off);
int gt_srcmap_copy(struct gt_srcmap *dst, const struct gt_srcmap *src);
void gt_srcmap_clear(struct gt_srcmap *m);

/* The candidate closest to word by edit distance, or NULL when none is close
 * enough to be a plausible typo. */
const char *gt_nearest(const char *word, const char *const *cand, size_t n);

#endif
