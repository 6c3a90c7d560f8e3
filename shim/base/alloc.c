/* alloc.c: every allocation the shim makes, through one door that counts
 * failures.
 *
 * An allocation that fails deep inside a parser or a table degrades what
 * needed it (a kernel left untracked, a search cut short) in ways the code
 * there cannot describe to the user.  The count is the process's sticky
 * out-of-memory state, as SQLite's mallocFailed: the layers that decide
 * read it, stop tuning once it is non-zero, keep no result produced while
 * it changed, and say so once (shim/log.c). */
#include "alloc.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_ulong failures;

static void *counted(void *p)
{
    if (!p)
        atomic_fetch_add_explicit(&failures, 1, memory_order_relaxed);
    return p;
}

void *gt_malloc(size_t n)
{
    return counted(malloc(n));
}

void *gt_calloc(size_t n, size_t size)
{
    return counted(calloc(n, size));
}

/* A request of 0 bytes may be answered with NULL: that is no failure. */
void *gt_realloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    return n ? counted(q) : q;
}

void *gt_aligned_alloc(size_t align, size_t n)
{
    return counted(aligned_alloc(align, n));
}

char *gt_strdup(const char *s)
{
    return counted(strdup(s));
}

char *gt_strndup(const char *s, size_t n)
{
    return counted(strndup(s, n));
}

int gt_vasprintf(char **out, const char *fmt, va_list ap)
{
    int r = vasprintf(out, fmt, ap);
    if (r < 0) {
        *out = NULL;
        atomic_fetch_add_explicit(&failures, 1, memory_order_relaxed);
    }
    return r;
}

int gt_asprintf(char **out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = gt_vasprintf(out, fmt, ap);
    va_end(ap);
    return r;
}

unsigned long gt_alloc_failures(void)
{
    return atomic_load_explicit(&failures, memory_order_relaxed);
}
