/* diag.c: located error messages for the policy layer.
 *
 * Library code never prints: parsers and evaluators append messages here
 * and the caller (the gputune command, the shim's log) decides where they
 * go.  Values continued over several lines are parsed as one text, so a
 * source map turns an offset in that text back into a file position. */
#include "diag.h"
#include "alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gt_diags_add(struct gt_diags *d, struct gt_loc loc, const char *fmt, ...)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 8;
        struct gt_diag *v = gt_realloc(d->v, cap * sizeof *v);
        if (!v)
            return;
        d->v = v;
        d->cap = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    int r = gt_vasprintf(&msg, fmt, ap);
    va_end(ap);
    if (r < 0)
        return;
    char *file = gt_strdup(loc.file ? loc.file : "");
    if (!file) {
        free(msg);
        return;
    }
    d->v[d->n++] = (struct gt_diag){file, loc.line, loc.col, msg};
}

/* Files keep the order in which they were read; within a file, by place. */
static int same_file_by_place(const void *a, const void *b)
{
    const struct gt_diag *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return 0;
}

/* A stable sort: messages at one place keep the order they were found in. */
void gt_diags_sort(struct gt_diags *d)
{
    size_t i = 0;
    while (i < d->n) {
        size_t j = i + 1;
        while (j < d->n && strcmp(d->v[j].file, d->v[i].file) == 0)
            j++;
        for (size_t k = i + 1; k < j; k++) {
            struct gt_diag t = d->v[k];
            size_t m = k;
            while (m > i && same_file_by_place(&d->v[m - 1], &t) > 0) {
                d->v[m] = d->v[m - 1];
                m--;
            }
            d->v[m] = t;
        }
        i = j;
    }
}

void gt_diags_clear(struct gt_diags *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->v[i].file);
        free(d->v[i].msg);
    }
    free(d->v);
    *d = (struct gt_diags){0};
}

size_t gt_diags_count_in(const struct gt_diags *d, const char *file)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n; i++)
        n += strcmp(d->v[i].file, file) == 0;
    return n;
}

int gt_diag_format(const struct gt_diag *g, char *buf, size_t len)
{
    if (!g->file || !*g->file) /* text of the shim's own, such as the automatic space's constraints */
        return snprintf(buf, len, "%s", g->msg);
    if (g->line <= 0)
        return snprintf(buf, len, "%s: %s", g->file, g->msg);
    if (g->col <= 0)
        return snprintf(buf, len, "%s:%d: %s", g->file, g->line, g->msg);
    return snprintf(buf, len, "%s:%d:%d: %s", g->file, g->line, g->col, g->msg);
}

struct gt_loc gt_srcmap_loc(const struct gt_srcmap *m, size_t off)
{
    if (!m || m->n == 0)
        return (struct gt_loc){m ? m->file : NULL, 0, 0};
    size_t i = m->n - 1;
    while (i > 0 && m->piece[i].off > off)
        i--;
    const struct gt_srcpiece *p = &m->piece[i];
    return (struct gt_loc){m->file, p->line, p->col + (int)(off - p->off)};
}

int gt_srcmap_copy(struct gt_srcmap *dst, const struct gt_srcmap *src)
{
    *dst = (struct gt_srcmap){src->file, NULL, 0};
    if (src->n == 0)
        return 0;
    dst->piece = gt_malloc(src->n * sizeof *dst->piece);
    if (!dst->piece)
        return -1;
    memcpy(dst->piece, src->piece, src->n * sizeof *dst->piece);
    dst->n = src->n;
    return 0;
}

void gt_srcmap_clear(struct gt_srcmap *m)
{
    free(m->piece);
    m->piece = NULL;
    m->n = 0;
}

/* Levenshtein distance, giving up once it exceeds limit (names are short). */
static size_t edit_distance(const char *a, const char *b, size_t limit)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return limit + 1;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0], best = row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t v = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < v)
                v = up + 1;
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            row[j] = v;
            diag = up;
            if (v < best)
                best = v;
        }
        if (best > limit)
            return limit + 1;
    }
    return row[lb];
}

const char *gt_nearest(const char *word, const char *const *cand, size_t n)
{
    size_t len = strlen(word);
    size_t limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
    const char *best = NULL;
    size_t bestd = limit + 1;
    for (size_t i = 0; i < n; i++) {
        size_t d = edit_distance(word, cand[i], limit);
        if (d < bestd && d < strlen(cand[i])) {
            best = cand[i];
            bestd = d;
        }
    }
    return best;
}
