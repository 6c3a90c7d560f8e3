/* test_strategy_nomem: every strategy made and driven to its end while its
 * N-th allocation fails, for every N it makes: it must give up cleanly (no
 * strategy, with an out-of-memory message) or go on, never touch what it
 * freed (run it under ASan: make SANITIZE=1 test) and never crash.  The
 * allocations come from this file's stand-ins for shim/base/alloc.c, which
 * take that file's place in the link. */
#include "alloc.h"
#include "keys.h"
#include "strategy.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long calls, fail_at, failures;

/* Whether this allocation is the one to fail. */
static int fails(void)
{
    if (++calls != fail_at)
        return 0;
    failures++;
    return 1;
}

void *gt_malloc(size_t n)
{
    return fails() ? NULL : malloc(n);
}

void *gt_calloc(size_t n, size_t size)
{
    return fails() ? NULL : calloc(n, size);
}

void *gt_realloc(void *p, size_t n)
{
    return fails() ? NULL : realloc(p, n);
}

void *gt_aligned_alloc(size_t align, size_t n)
{
    return fails() ? NULL : aligned_alloc(align, n);
}

char *gt_strdup(const char *s)
{
    return fails() ? NULL : strdup(s);
}

char *gt_strndup(const char *s, size_t n)
{
    return fails() ? NULL : strndup(s, n);
}

int gt_vasprintf(char **out, const char *fmt, va_list ap)
{
    if (fails()) {
        *out = NULL;
        return -1;
    }
    return vasprintf(out, fmt, ap);
}

int gt_asprintf(char **out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = gt_vasprintf(out, fmt, ap);
    va_end(ap);
    return n;
}

unsigned long gt_alloc_failures(void)
{
    return failures;
}

/* 24 x 24 values: large enough that auto searches rather than tries all. */
static struct gt_space *space(void)
{
    struct gt_space *s = gt_space_new();
    int64_t a[24], b[24];
    for (int i = 0; i < 24; i++)
        a[i] = i + 1, b[i] = 10 * (i + 1);
    struct gt_loc loc = {"test", 1, 1};
    gt_space_add_dim(s, "A", GT_DIM_PARAM, a, 24, 0, loc);
    gt_space_add_dim(s, "B", GT_DIM_PARAM, b, 24, 0, loc);
    return s;
}

/* Makes the strategy and runs it to its end, every trial answered at once
 * from a smooth landscape and every estimate with made-up counts; returns
 * 0, or -1 when it was not made for a reason other than memory. */
static char why[256]; /* why the last strategy was not made */

static int drive(const char *name, const struct gt_space *s)
{
    why[0] = '\0';
    struct gt_strategy *st = gt_strategy_new(name, s, NULL, NULL, 40, 1, why, sizeof why);
    if (!st)
        return strstr(why, "out of memory") ? 0 : -1;
    gt_strategy_baseline(st, 100);
    uint32_t cfg[3];
    int r;
    for (int n = 0; n < 200 && (r = gt_strategy_next(st, cfg)) != GT_NEXT_DONE && r != GT_NEXT_WAIT; n++) {
        struct gt_estimate e = {100 + 10.0 * cfg[1], 2, 1e5, 32u << (cfg[0] % 8), 4, 32};
        if (r == GT_NEXT_ESTIMATE)
            gt_strategy_estimated(st, cfg, &e);
        else
            gt_strategy_report(st, cfg, 10 + 3.0 * cfg[0] + (cfg[1] > 12 ? cfg[1] - 12 : 12 - cfg[1]), GT_TRIAL_OK);
    }
    gt_strategy_free(st);
    return 0;
}

static void sweep(const char *name, const struct gt_space *s)
{
    calls = fail_at = 0;
    int clean = drive(name, s);
    unsigned long total = calls, bad = 0, first_bad = 0;
    char first_why[sizeof why] = "";
    for (fail_at = 1; fail_at <= total; fail_at++) {
        calls = 0;
        if (drive(name, s) != 0 && !bad++) {
            first_bad = fail_at;
            snprintf(first_why, sizeof first_why, "%s", why);
        }
    }
    fail_at = 0;
    ok(clean == 0 && total > 0, "%s: made and run without a fault (%lu allocations)", name, total);
    ok(bad == 0, "  each of them failing in turn: no strategy and an out-of-memory message, or a search that goes on");
    if (bad)
        diag("allocation %lu failing: the strategy was not made: %s", first_bad, first_why);
}

int main(void)
{
    struct gt_space *s = space();
    sweep("auto", s);
    for (size_t i = 0; gt_strategy_names(i); i++)
        sweep(gt_strategy_names(i), s);
    gt_space_free(s);
    return done_testing();
}
