/* keys.c: the keys of a policy section and the syntax of their values.
 *
 * The key set is a table: adding a key is one row and one function.  Keys
 * are applied in two passes so that their order in a section does not
 * matter: first the dimensions (param NAME, the knobs, auto), then all that
 * may refer to them (constraints, geometry, baseline, independence).
 * Every mistake becomes one message at the byte that caused it. */
#include "keys.h"
#include "alloc.h"
#include "strategy.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_VALUES 65536
#define MAX_STRATEGIES 32   /* auto and the strategies of strategy.c's table, at most */


enum { K_KERNEL = 1, K_DEFAULTS = 2, K_BOTH = 3 };

struct ctx {
    struct gt_section *sec;
    int is_defaults;
    const char *dir;
    struct gt_diags *d;
    size_t errs;
    const struct gt_raw **first; /* per raw entry: the earlier one with the same key, for duplicates */
    signed char *indep;          /* per dimension: -1 unset, 0 shared, 1 independent */
    int auto_set;                /* auto = yes/no given */
};

struct key;
typedef void (*apply_fn)(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k);

struct key {
    const char *name;
    unsigned where;
    int pass;    /* 1: declares a dimension */
    int repeat;  /* may be given several times */
    apply_fn apply;
    int kind;    /* for knobs: enum gt_dim_kind */
};

/* ---- messages ---- */

__attribute__((format(printf, 4, 5))) static void err_at(struct ctx *c, const struct gt_raw *r, size_t off,
                                                         const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gt_diags_add(c->d, gt_srcmap_loc(&r->map, off), "%s", msg);
    c->errs++;
}

__attribute__((format(printf, 4, 5))) static void err_key(struct ctx *c, const struct gt_raw *r, int coloff,
                                                          const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct gt_loc l = r->keyloc;
    l.col += coloff;
    gt_diags_add(c->d, l, "%s", msg);
    c->errs++;
}

static int nomem(struct ctx *c, const struct gt_raw *r)
{
    err_key(c, r, 0, "out of memory");
    return -1;
}

/* ---- lexical helpers over a value ---- */

struct item {
    size_t off, len;
};

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n';
}

/* Splits r->value at top-level commas into trimmed items (at most max) in
 * *out, which the caller frees; returns the count, or -1 after a message. */
static int split(struct ctx *c, const struct gt_raw *r, struct item **out, int max, const char *what)
{
    const char *v = r->value;
    size_t n = strlen(v), i = 0, commas = 0;
    for (size_t k = 0; k < n; k++)
        commas += v[k] == ',';
    struct item *it = *out = gt_malloc((commas + 1) * sizeof *it);
    if (!it)
        return nomem(c, r);
    int count = 0;
    for (;;) {
        int depth = 0;
        size_t s = i;
        while (i < n && !(v[i] == ',' && depth == 0)) {
            depth += v[i] == '(' || v[i] == '[';
            depth -= (v[i] == ')' || v[i] == ']') && depth > 0;
            i++;
        }
        size_t a = s, b = i;
        while (a < b && is_blank(v[a]))
            a++;
        while (b > a && is_blank(v[b - 1]))
            b--;
        if (a == b) {
            if (count == 0 && i >= n)
                err_at(c, r, a, "expected %s", what);
            else
                err_at(c, r, a, "expected %s %s ','", what, s > 0 ? "after" : "before");
            return -1;
        }
        if (count == max) {
            err_at(c, r, a, "too many items: at most %d", max);
            return -1;
        }
        it[count++] = (struct item){a, b - a};
        if (i >= n)
            return count;
        i++;
    }
}

static int word_eq(const char *s, size_t len, const char *w)
{
    return strlen(w) == len && memcmp(s, w, len) == 0;
}

/* The whole value as one trimmed word. */
static struct item whole(const struct gt_raw *r)
{
    const char *v = r->value;
    size_t a = 0, b = strlen(v);
    while (a < b && is_blank(v[a]))
        a++;
    while (b > a && is_blank(v[b - 1]))
        b--;
    return (struct item){a, b - a};
}

/* An integer at v[*i..end): optional '-', decimal or 0x hex. */
static int scan_int(const char *v, size_t *i, size_t end, int64_t *out, int *overflow)
{
    size_t j = *i;
    int neg = 0;
    if (j < end && v[j] == '-')
        neg = 1, j++;
    int base = 10;
    if (j + 2 < end && v[j] == '0' && (v[j + 1] == 'x' || v[j + 1] == 'X') && isxdigit((unsigned char)v[j + 2]))
        base = 16, j += 2;
    size_t s = j;
    uint64_t x = 0;
    *overflow = 0;
    for (; j < end && (base == 16 ? isxdigit((unsigned char)v[j]) : isdigit((unsigned char)v[j])); j++) {
        unsigned dg = isdigit((unsigned char)v[j]) ? (unsigned)(v[j] - '0') : (unsigned)(tolower((unsigned char)v[j]) - 'a' + 10);
        if (x > (UINT64_C(0x7fffffffffffffff) - dg) / (uint64_t)base)
            *overflow = 1;
        else
            x = x * (uint64_t)base + dg;
    }
    if (j == s)
        return -1;
    *out = neg ? -(int64_t)x : (int64_t)x;
    *i = j;
    return 0;
}

static void skip_blanks(const char *v, size_t *i, size_t end)
{
    while (*i < end && is_blank(v[*i]))
        (*i)++;
}

static int int_item(struct ctx *c, const struct gt_raw *r, struct item it, int64_t lo, int64_t *out)
{
    size_t i = it.off;
    int over;
    if (scan_int(r->value, &i, it.off + it.len, out, &over) < 0 || i != it.off + it.len) {
        err_at(c, r, it.off, "expected an integer, found '%.*s'", (int)(it.len > 40 ? 40 : it.len), r->value + it.off);
        return -1;
    }
    if (over || *out < lo) {
        err_at(c, r, it.off, "expected an integer of at least %lld, found '%.*s'", (long long)lo,
               (int)(it.len > 40 ? 40 : it.len), r->value + it.off);
        return -1;
    }
    return 0;
}

static int real_item(struct ctx *c, const struct gt_raw *r, double lo, int open, double *out)
{
    struct item it = whole(r);
    char buf[64];
    if (it.len == 0 || it.len >= sizeof buf) {
        err_at(c, r, it.off, "expected a number");
        return -1;
    }
    memcpy(buf, r->value + it.off, it.len);
    buf[it.len] = 0;
    char *end;
    errno = 0;
    double x = strtod(buf, &end);
    if (*end || errno || !isfinite(x) || !(isdigit((unsigned char)buf[0]) || buf[0] == '.' || buf[0] == '-')) {
        err_at(c, r, it.off, "expected a number, found '%s'", buf);
        return -1;
    }
    if (open ? x <= lo : x < lo) {
        err_at(c, r, it.off, "expected a number %s %g, found '%s'", open ? "above" : "of at least", lo, buf);
        return -1;
    }
    *out = x;
    return 0;
}

/* One word out of a fixed set; returns its index or -1 after a message. */
static int choice(struct ctx *c, const struct gt_raw *r, const char *const *words, size_t n, const char *what)
{
    struct item it = whole(r);
    for (size_t i = 0; i < n; i++)
        if (word_eq(r->value + it.off, it.len, words[i]))
            return (int)i;
    char found[64];
    snprintf(found, sizeof found, "%.*s", (int)(it.len > 40 ? 40 : it.len), r->value + it.off);
    const char *near = gt_nearest(found, words, n);
    if (near)
        err_at(c, r, it.off, "expected %s, found '%s'; did you mean '%s'?", what, found, near);
    else
        err_at(c, r, it.off, "expected %s, found '%s'", what, found);
    return -1;
}

static int boolean(struct ctx *c, const struct gt_raw *r)
{
    static const char *const w[] = {"no", "yes", "off", "on", "false", "true", "0", "1"};
    int i = choice(c, r, w, 8, "yes or no");
    return i < 0 ? -1 : i % 2;
}

/* ---- dimensions ---- */

static const char *const reserved[] = {
    "orig", "arg", "block", "grid", "smem", "min", "max", "ceil_div", "is_pow2", "log2", "pow2", "abs",
    "cache", "carveout", "maxrreg", "dlcm", "bounds", "minblocks", "default",
};

static int find_dim(const struct gt_section *sec, const char *name, size_t len)
{
    for (size_t i = 0; i < sec->ndims; i++)
        if (word_eq(name, len, sec->dims[i].name))
            return (int)i;
    return -1;
}

static int add_dim(struct ctx *c, const struct gt_raw *r, const char *name, enum gt_dim_kind kind, int is_auto,
                   int64_t *values, size_t n)
{
    struct gt_section *sec = c->sec;
    struct gt_dimspec *v = gt_realloc(sec->dims, (sec->ndims + 1) * sizeof *v);
    char *nm = v ? gt_strdup(name) : NULL;
    if (v)
        sec->dims = v;
    if (!nm) {
        free(values);
        return nomem(c, r);
    }
    sec->dims[sec->ndims++] = (struct gt_dimspec){nm, kind, is_auto, values, n, 0, r ? r->keyloc : sec->loc};
    return 0;
}

static int push_value(struct ctx *c, const struct gt_raw *r, int64_t **vals, size_t *n, size_t *cap, int64_t x)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        int64_t *nv = gt_realloc(*vals, nc * sizeof *nv);
        if (!nv)
            return nomem(c, r);
        *vals = nv;
        *cap = nc;
    }
    (*vals)[(*n)++] = x;
    return 0;
}

/* Appends the values of "A", "A..B", "A..B step S" or "A..B *F". */
static int range_item(struct ctx *c, const struct gt_raw *r, struct item it, int64_t **vals, size_t *n,
                      size_t *cap)
{
    const char *v = r->value;
    size_t i = it.off, end = it.off + it.len;
    int64_t a, b, step = 1, factor = 0;
    int over;
    const char *form = "a value like '64', a range like '1..8', '1..64 step 4' or '8..256 *2'";
    if (scan_int(v, &i, end, &a, &over) < 0 || over) {
        err_at(c, r, i, over ? "number too large" : "expected %s", form);
        return -1;
    }
    b = a;
    skip_blanks(v, &i, end);
    if (i < end) {
        if (i + 1 >= end || v[i] != '.' || v[i + 1] != '.') {
            err_at(c, r, i, "expected ',' or '..' after %lld, found '%.*s'", (long long)a,
                   (int)(end - i > 20 ? 20 : end - i), v + i);
            return -1;
        }
        i += 2;
        skip_blanks(v, &i, end);
        if (scan_int(v, &i, end, &b, &over) < 0 || over) {
            err_at(c, r, i, "expected the end of the range after '..'");
            return -1;
        }
        skip_blanks(v, &i, end);
        size_t at = i;
        if (i + 4 <= end && memcmp(v + i, "step", 4) == 0 && (i + 4 == end || is_blank(v[i + 4]))) {
            i += 4;
            skip_blanks(v, &i, end);
            at = i;
            if (scan_int(v, &i, end, &step, &over) < 0 || over || step < 1) {
                err_at(c, r, at, "expected a positive step after 'step'");
                return -1;
            }
        } else if (i < end && v[i] == '*') {
            i++;
            skip_blanks(v, &i, end);
            at = i;
            if (scan_int(v, &i, end, &factor, &over) < 0 || over || factor < 2) {
                err_at(c, r, at, "expected a factor of at least 2 after '*'");
                return -1;
            }
            if (a < 1) {
                err_at(c, r, it.off, "a range with a factor needs a positive start");
                return -1;
            }
        } else if (i < end) {
            err_at(c, r, i, "expected 'step N', '*F' or ',' after the range, found '%.*s'",
                   (int)(end - i > 20 ? 20 : end - i), v + i);
            return -1;
        }
        skip_blanks(v, &i, end);
        if (i < end) {
            err_at(c, r, i, "expected ',' after the range, found '%.*s'", (int)(end - i > 20 ? 20 : end - i), v + i);
            return -1;
        }
        if (b < a) {
            err_at(c, r, it.off, "empty range %lld..%lld: write the smaller bound first", (long long)a, (long long)b);
            return -1;
        }
    }
    for (int64_t x = a;;) {
        if (*n == MAX_VALUES) {
            err_at(c, r, it.off, "more than %d values", MAX_VALUES);
            return -1;
        }
        if (push_value(c, r, vals, n, cap, x) < 0)
            return -1;
        int64_t next;
        if (factor ? __builtin_mul_overflow(x, factor, &next) : __builtin_add_overflow(x, step, &next))
            break;
        if (next > b)
            break;
        x = next;
    }
    return 0;
}

struct value_at {
    int64_t v;
    size_t i;
};

static int by_value_then_place(const void *a, const void *b)
{
    const struct value_at *x = a, *y = b;
    return x->v != y->v ? (x->v > y->v) - (x->v < y->v) : (x->i > y->i) - (x->i < y->i);
}

/* The first value that repeats one before it, said at the item that
 * lists it.  Sorted, not compared pairwise: a range may give 65536 values. */
static int no_duplicates(struct ctx *c, const struct gt_raw *r, const struct item *items, const size_t *first_of,
                         int nitems, const int64_t *vals, size_t n, enum gt_dim_kind kind, const char *name)
{
    if (n < 2)
        return 0;
    struct value_at *s = gt_malloc(n * sizeof *s);
    if (!s)
        return nomem(c, r);
    for (size_t i = 0; i < n; i++)
        s[i] = (struct value_at){vals[i], i};
    qsort(s, n, sizeof *s, by_value_then_place);
    size_t i = n;
    for (size_t k = 1; k < n; k++)
        if (s[k].v == s[k - 1].v && s[k].i < i)
            i = s[k].i;
    free(s);
    if (i == n)
        return 0;
    int k = 0;
    while (k + 1 < nitems && first_of[k + 1] <= i)
        k++;
    char t[32];
    gt_knob_format_value(kind, vals[i], t, sizeof t);
    err_at(c, r, items[k].off, "%s is listed twice in '%s'", t, name);
    return -1;
}

static int is_numeric(enum gt_dim_kind kind)
{
    return kind == GT_DIM_PARAM || kind == GT_DIM_CARVEOUT || kind == GT_DIM_MAXRREG || kind == GT_DIM_MINBLOCKS;
}

/* One item of a list: a word of the knob, or a value or range of numbers. */
static int list_item(struct ctx *c, const struct gt_raw *r, struct item it, enum gt_dim_kind kind, const char *name,
                     int64_t **vals, size_t *n, size_t *cap)
{
    const char *w = r->value + it.off, *expect = "a value";
    int64_t x;
    if (kind != GT_DIM_PARAM && gt_knob_parse_value(kind, w, it.len, &x, &expect) == 0)
        return push_value(c, r, vals, n, cap, x);
    if (kind != GT_DIM_PARAM && (!is_numeric(kind) || !memchr(w, '.', it.len))) {
        err_at(c, r, it.off, "expected %s, found '%.*s'", expect, (int)(it.len > 40 ? 40 : it.len), w);
        return -1;
    }
    size_t before = *n;
    if (range_item(c, r, it, vals, n, cap) < 0)
        return -1;
    for (size_t i = before; i < *n && kind != GT_DIM_PARAM; i++) {
        char t[32];
        int tl = snprintf(t, sizeof t, "%lld", (long long)(*vals)[i]);
        if (gt_knob_parse_value(kind, t, (size_t)tl, &x, &expect) < 0) {
            err_at(c, r, it.off, "the range reaches %s; '%s' takes %s", t, name, expect);
            return -1;
        }
    }
    return 0;
}

/* A list of values: integers and ranges for parameters and numeric knobs,
 * words for the others. */
static int value_list(struct ctx *c, const struct gt_raw *r, enum gt_dim_kind kind, const char *name,
                      int64_t **out, size_t *nout)
{
    struct item *items;
    int nitems = split(c, r, &items, MAX_VALUES, "a value");
    size_t *first_of = nitems > 0 ? gt_malloc((size_t)nitems * sizeof *first_of) : NULL;
    int64_t *vals = NULL;
    size_t n = 0, cap = 0;
    int rc = nitems > 0 && !first_of ? nomem(c, r) : nitems < 0 ? -1 : 0;
    for (int k = 0; k < nitems && rc == 0; k++) {
        first_of[k] = n;
        rc = list_item(c, r, items[k], kind, name, &vals, &n, &cap);
    }
    if (rc == 0)
        rc = no_duplicates(c, r, items, first_of, nitems, vals, n, kind, name);
    free(items);
    free(first_of);
    if (rc < 0) {
        free(vals);
        return -1;
    }
    *out = vals;
    *nout = n;
    return 0;
}

static int valid_name(const char *s, size_t len)
{
    if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < len; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return 0;
    return 1;
}

static int reserved_name(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (word_eq(s, len, reserved[i]))
            return 1;
    if (len > 3 && memcmp(s, "arg", 3) == 0) {
        size_t i = 3;
        while (i < len && isdigit((unsigned char)s[i]))
            i++;
        return i == len;
    }
    return 0;
}

static void apply_param(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)k;
    int off = (int)(arg - r->key);
    size_t len = strlen(arg);
    if (!len) {
        err_key(c, r, 0, "expected a name after 'param', as in 'param BLOCK = 64, 128'");
        return;
    }
    if (!valid_name(arg, len)) {
        err_key(c, r, off, "'%s' is not a parameter name (letters, digits and '_', not starting with a digit)", arg);
        return;
    }
    if (reserved_name(arg, len)) {
        err_key(c, r, off, "'%s' is a reserved name; choose another parameter name", arg);
        return;
    }
    int64_t *vals;
    size_t n;
    if (value_list(c, r, GT_DIM_PARAM, arg, &vals, &n) == 0)
        add_dim(c, r, arg, GT_DIM_PARAM, 0, vals, n);
}

static void apply_knob(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)arg;
    struct item it = whole(r);
    if (word_eq(r->value + it.off, it.len, "auto")) {
        add_dim(c, r, k->name, (enum gt_dim_kind)k->kind, 1, NULL, 0);
        return;
    }
    int64_t *vals;
    size_t n;
    if (value_list(c, r, (enum gt_dim_kind)k->kind, k->name, &vals, &n) == 0)
        add_dim(c, r, k->name, (enum gt_dim_kind)k->kind, 0, vals, n);
}

static void apply_auto(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)arg, (void)k;
    int b = boolean(c, r);
    if (b >= 0) {
        c->sec->auto_knobs = b;
        c->auto_set = 1;
    }
}

/* auto = yes (the default for a section that declares no dimension) adds the
 * knobs the section leaves out, with the values `auto` stands for. */
static void add_auto_dims(struct ctx *c)
{
    static const enum gt_dim_kind kinds[] = {GT_DIM_CACHE, GT_DIM_CARVEOUT, GT_DIM_MAXRREG, GT_DIM_DLCM, GT_DIM_BOUNDS};
    if (!c->auto_set)
        c->sec->auto_knobs = c->sec->ndims == 0;
    if (!c->sec->auto_knobs)
        return;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        const char *name = gt_knob_name(kinds[i]);
        if (find_dim(c->sec, name, strlen(name)) < 0)
            add_dim(c, NULL, name, kinds[i], 2, NULL, 0);
    }
}

/* ---- what refers to the dimensions ---- */

static void scope_of(struct ctx *c, struct gt_expr_scope *sc, const char **names, unsigned char *opaque,
                     unsigned allow, const char *what)
{
    for (size_t i = 0; i < c->sec->ndims; i++) {
        names[i] = c->sec->dims[i].name;
        opaque[i] = c->sec->dims[i].kind == GT_DIM_CACHE || c->sec->dims[i].kind == GT_DIM_DLCM;
    }
    *sc = (struct gt_expr_scope){names, opaque, c->sec->ndims, allow, &c->sec->argnames, what};
}

static struct gt_expr *compile(struct ctx *c, const struct gt_raw *r, struct item it, unsigned allow,
                               const char *what)
{
    const char **names = gt_malloc((c->sec->ndims + 1) * sizeof *names);
    unsigned char *opaque = gt_malloc(c->sec->ndims + 1);
    struct gt_expr *e = NULL;
    if (!names || !opaque) {
        nomem(c, r);
    } else {
        struct gt_expr_scope sc;
        scope_of(c, &sc, names, opaque, allow, what);
        size_t before = c->d->n;
        if (gt_expr_compile(r->value + it.off, it.len, it.off, &r->map, &sc, &e, c->d) < 0)
            c->errs += c->d->n > before ? c->d->n - before : 1;
    }
    free(names);
    free(opaque);
    return e;
}

static int push_expr(struct ctx *c, const struct gt_raw *r, struct gt_expr ***v, size_t *n, struct gt_expr *e)
{
    struct gt_expr **nv = gt_realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv) {
        gt_expr_free(e);
        return nomem(c, r);
    }
    nv[(*n)++] = e;
    *v = nv;
    return 0;
}

static void apply_constraint(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)arg, (void)k;
    struct gt_expr *e = compile(c, r, whole(r), GT_USES_DIM | GT_USES_ORIG | GT_USES_ARG, "a constraint");
    if (e)
        push_expr(c, r, &c->sec->constraints, &c->sec->nconstraints, e);
}

static void apply_geometry(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)arg;
    int grid = strcmp(k->name, "grid") == 0;
    struct item *items;
    int n = split(c, r, &items, 3, "an expression");
    struct gt_expr **dst = grid ? c->sec->grid : c->sec->block;
    unsigned allow = GT_USES_DIM | GT_USES_ORIG | GT_USES_ARG | (grid ? GT_USES_BLOCK : 0);
    int i = 0;
    while (i < n && (dst[i] = compile(c, r, items[i], allow, grid ? "'grid'" : "'block'")))
        i++;
    if (n > 0 && i == n)
        *(grid ? &c->sec->ngrid : &c->sec->nblock) = n;
    free(items);
}

static void apply_smem(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)arg, (void)k;
    c->sec->smem = compile(c, r, whole(r), GT_USES_DIM | GT_USES_ORIG | GT_USES_ARG | GT_USES_BLOCK, "'smem'");
}

static void apply_signature(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)arg, (void)k;
    struct item *items;
    int n = split(c, r, &items, 64, "an expression");
    for (int i = 0; i < n; i++) {
        struct gt_expr *e = compile(c, r, items[i], GT_USES_ORIG | GT_USES_ARG, "the signature");
        if (!e || push_expr(c, r, &c->sec->signature, &c->sec->nsignature, e) < 0)
            break;
    }
    free(items);
}

/* arg[N], argN or arg.NAME */
static int argref(struct ctx *c, const struct gt_raw *r, struct item it, struct gt_argref *out)
{
    const char *s = r->value + it.off;
    size_t len = it.len, i = 3;
    int64_t pos = -1;
    int over = 0;
    *out = (struct gt_argref){-1, -1, gt_srcmap_loc(&r->map, it.off)};
    if (len > 4 && memcmp(s, "arg.", 4) == 0 && valid_name(s + 4, len - 4)) {
        int k = gt_names_intern(&c->sec->argnames, s + 4, len - 4);
        if (k < 0)
            return nomem(c, r);
        out->name = k;
        return 0;
    }
    if (len > 3 && memcmp(s, "arg", 3) == 0) {
        int bracket = s[3] == '[';
        i += (size_t)bracket;
        if (scan_int(s, &i, len, &pos, &over) == 0 && !over && pos >= 0 && pos < 4096 &&
            (bracket ? i + 1 == len && s[i] == ']' : i == len)) {
            out->pos = (int)pos;
            return 0;
        }
    }
    err_at(c, r, it.off, "expected an argument: arg[N], argN or arg.NAME, found '%.*s'", (int)(len > 40 ? 40 : len), s);
    return -1;
}

static void apply_snapshot(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)arg;
    int add = strcmp(k->name, "snapshot.add") == 0;
    struct item *items;
    int n = split(c, r, &items, 256, "an argument");
    struct gt_argref **v = add ? &c->sec->snap_add : &c->sec->snap_skip;
    size_t *nv = add ? &c->sec->nsnap_add : &c->sec->nsnap_skip;
    for (int i = 0; i < n; i++) {
        struct gt_argref a, *g;
        if (argref(c, r, items[i], &a) < 0)
            break;
        if (!(g = gt_realloc(*v, (*nv + 1) * sizeof *g))) {
            nomem(c, r);
            break;
        }
        g[(*nv)++] = a;
        *v = g;
    }
    free(items);
}

static void apply_independence(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)arg;
    int indep = strcmp(k->name, "independent") == 0;
    struct item *items;
    int n = split(c, r, &items, MAX_VALUES, "a parameter or knob name");
    for (int i = 0; i < n; i++) {
        const char *s = r->value + items[i].off;
        int d = find_dim(c->sec, s, items[i].len);
        if (d < 0) {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(items[i].len > 60 ? 60 : items[i].len), s);
            const char **names = gt_malloc((c->sec->ndims + 1) * sizeof *names);
            for (size_t j = 0; names && j < c->sec->ndims; j++)
                names[j] = c->sec->dims[j].name;
            const char *near = names ? gt_nearest(name, names, c->sec->ndims) : NULL;
            if (near)
                err_at(c, r, items[i].off, "'%s' is not a dimension of this section; did you mean '%s'?", name, near);
            else
                err_at(c, r, items[i].off, "'%s' is not a dimension of this section", name);
            free(names);
            continue;
        }
        if (c->indep[d] >= 0 && c->indep[d] != indep) {
            err_at(c, r, items[i].off, "'%s' is declared both independent and shared", c->sec->dims[d].name);
            continue;
        }
        c->indep[d] = (signed char)indep;
        c->sec->dims[d].independent = indep;
    }
    free(items);
}

static void apply_baseline(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)arg, (void)k;
    const char *v = r->value;
    size_t i = 0, n = strlen(v);
    for (;;) {
        skip_blanks(v, &i, n);
        if (i >= n)
            return;
        size_t s = i;
        while (i < n && !is_blank(v[i]))
            i++;
        const char *eq = memchr(v + s, '=', i - s);
        if (!eq || eq == v + s || eq + 1 == v + i) {
            err_at(c, r, s, "expected NAME=VALUE, found '%.*s'", (int)(i - s > 40 ? 40 : i - s), v + s);
            return;
        }
        size_t nl = (size_t)(eq - (v + s));
        int d = find_dim(c->sec, v + s, nl);
        if (d < 0) {
            err_at(c, r, s, "'%.*s' is not a dimension of this section", (int)(nl > 60 ? 60 : nl), v + s);
            return;
        }
        for (size_t j = 0; j < c->sec->nbaseline; j++)
            if (strcmp(c->sec->baseline[j].key, c->sec->dims[d].name) == 0) {
                err_at(c, r, s, "'%s' is given twice", c->sec->dims[d].name);
                return;
            }
        struct gt_kv *b = gt_realloc(c->sec->baseline, (c->sec->nbaseline + 1) * sizeof *b);
        if (b)
            c->sec->baseline = b;
        char *key = b ? gt_strdup(c->sec->dims[d].name) : NULL, *val = key ? gt_strndup(eq + 1, (size_t)(v + i - eq - 1)) : NULL;
        if (!val) {
            free(key);
            nomem(c, r);
            return;
        }
        b[c->sec->nbaseline++] = (struct gt_kv){key, val, gt_srcmap_loc(&r->map, (size_t)(eq + 1 - v))};
    }
}

/* ---- what the section builds from ---- */

static void apply_source(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)arg, (void)k;
    struct item it = whole(r);
    if (!it.len) {
        err_at(c, r, 0, "expected the path of the kernel's CUDA source");
        return;
    }
    char *path = NULL;
    const char *s = r->value + it.off;
    if (s[0] == '/' ? gt_asprintf(&path, "%.*s", (int)it.len, s) < 0
                    : gt_asprintf(&path, "%s/%.*s", c->dir, (int)it.len, s) < 0) {
        nomem(c, r);
        return;
    }
    struct stat st;
    if (stat(path, &st) != 0 || access(path, R_OK) != 0) {
        err_at(c, r, it.off, "cannot read source '%s': %s", path, strerror(errno));
        free(path);
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        /* /dev/zero would never end, a FIFO never begin */
        err_at(c, r, it.off, "source '%s' is not a regular file", path);
        free(path);
        return;
    }
    c->sec->source = path;
}

/* Words separated by blanks; double quotes group ("-DNAME=a b"), \" inside them is a quote. */
static void apply_options(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)arg;
    int link = strcmp(k->name, "link.options") == 0;
    char ***v = link ? &c->sec->link_options : &c->sec->options;
    size_t *nv = link ? &c->sec->nlink_options : &c->sec->noptions;
    const char *s = r->value;
    size_t i = 0, n = strlen(s);
    for (;;) {
        skip_blanks(s, &i, n);
        if (i >= n)
            return;
        char *w = gt_malloc(n - i + 1);
        size_t o = 0, q = 0;
        int quoted = 0;
        if (!w) {
            nomem(c, r);
            return;
        }
        while (i < n && (quoted || !is_blank(s[i]))) {
            if (s[i] == '"') {
                quoted = !quoted;
                q = i++;
            } else if (quoted && s[i] == '\\' && i + 1 < n && s[i + 1] == '"') {
                w[o++] = '"';
                i += 2;
            } else {
                w[o++] = s[i++];
            }
        }
        w[o] = 0;
        if (quoted) {
            err_at(c, r, q, "expected '\"' to close this quote");
            free(w);
            return;
        }
        char **g = gt_realloc(*v, (*nv + 1) * sizeof *g);
        if (!g) {
            free(w);
            nomem(c, r);
            return;
        }
        g[(*nv)++] = w;
        *v = g;
    }
}

/* The entry's name expression: {NAME} holes must name parameters. */
static void apply_entry(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)arg, (void)k;
    struct item it = whole(r);
    const char *s = r->value;
    if (!it.len) {
        err_at(c, r, 0, "expected the kernel's name expression, e.g. 'gemm<{TILE}>'");
        return;
    }
    for (size_t i = it.off; i < it.off + it.len; i++) {
        if (s[i] == '}') {
            err_at(c, r, i, "'}' without '{'");
            return;
        }
        if (s[i] != '{')
            continue;
        const char *close = memchr(s + i, '}', it.off + it.len - i);
        if (!close) {
            err_at(c, r, i, "expected '}' to close this '{'");
            return;
        }
        int d = find_dim(c->sec, s + i + 1, (size_t)(close - s - i - 1));
        if (d < 0 || c->sec->dims[d].kind != GT_DIM_PARAM) {
            err_at(c, r, i + 1, "'%.*s' is not a parameter of this section", (int)(close - s - i - 1), s + i + 1);
            return;
        }
        i = (size_t)(close - s);
    }
    c->sec->entry = gt_strndup(s + it.off, it.len);
    if (!c->sec->entry)
        nomem(c, r);
}

/* ---- settings ---- */

static void apply_tune(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)arg, (void)k;
    int b = boolean(c, r);
    if (b >= 0)
        c->sec->set.tune = b;
}

static void apply_strategy(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)arg, (void)k;
    const char *names[MAX_STRATEGIES] = {"auto"};
    size_t n = 1;
    while (n < MAX_STRATEGIES && (names[n] = gt_strategy_names(n - 1)) != NULL)
        n++;
    char what[512] = "a strategy (";
    size_t at = strlen(what);
    gt_strategy_list(what + at, sizeof what - at - 1);
    strcat(what, ")");
    int i = choice(c, r, names, n, what);
    if (i >= 0 && !(c->sec->set.strategy = gt_strdup(names[i])))
        nomem(c, r);
}

static void apply_sparam(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)k;
    struct gt_settings *st = &c->sec->set;
    if (!valid_name(arg, strlen(arg))) {
        err_key(c, r, (int)(arg - r->key), "expected a parameter name after 'strategy.'");
        return;
    }
    struct item it = whole(r);
    if (!it.len) {
        err_at(c, r, 0, "expected a value for 'strategy.%s'", arg);
        return;
    }
    struct gt_kv *v = gt_realloc(st->sparams, (st->nsparams + 1) * sizeof *v);
    if (v)
        st->sparams = v;
    char *key = v ? gt_strdup(arg) : NULL, *val = key ? gt_strndup(r->value + it.off, it.len) : NULL;
    if (!val) {
        free(key);
        nomem(c, r);
        return;
    }
    v[st->nsparams++] = (struct gt_kv){key, val, gt_srcmap_loc(&r->map, it.off)};
}

static void apply_number(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)arg;
    struct gt_settings *st = &c->sec->set;
    const char *n = k->name;
    int64_t x;
    if (strcmp(n, "budget.trials") == 0 || strcmp(n, "timing.repeat") == 0 || strcmp(n, "timing.remeasure") == 0) {
        int64_t lo = strcmp(n, "timing.remeasure") == 0 ? 0 : 1;
        if (int_item(c, r, whole(r), lo, &x) == 0)
            *(n[0] == 'b' ? &st->budget_trials : strcmp(n, "timing.repeat") == 0 ? &st->timing_repeat
                                                                                 : &st->timing_remeasure) = x;
        return;
    }
    double y;
    if (strcmp(n, "budget.seconds") == 0 && real_item(c, r, 0, 1, &y) == 0)
        st->budget_seconds = y;
    else if (strcmp(n, "verify.abs") == 0 && real_item(c, r, 0, 0, &y) == 0)
        st->verify_abs = y;
    else if (strcmp(n, "verify.rel") == 0 && real_item(c, r, 0, 0, &y) == 0)
        st->verify_rel = y;
    else if (strcmp(n, "watchdog.factor") == 0 && real_item(c, r, 1, 0, &y) == 0)
        st->watchdog_factor = y;
    else if (strcmp(n, "watchdog.floor_ms") == 0 && real_item(c, r, 0, 0, &y) == 0)
        st->watchdog_floor_ms = y;
    else if (strcmp(n, "online.settle") == 0 && real_item(c, r, 0, 0, &y) == 0)
        st->online_settle = y;
}

static void apply_word(struct ctx *c, const struct gt_raw *r, const char *arg, const struct key *k)
{
    (void)arg;
    static const char *const verify[] = {"bitwise", "tolerance"}, *const vtype[] = {"f32", "f64", "f16", "bf16"},
                             *const watchdog[] = {"off", "entry", "loops"}, *const unnamed[] = {"skip", "auto"},
                             *const side_effects[] = {"refuse", "allow"};
    struct gt_settings *st = &c->sec->set;
    int i;
    if (strcmp(k->name, "verify") == 0 && (i = choice(c, r, verify, 2, "bitwise or tolerance")) >= 0)
        st->verify = i;
    else if (strcmp(k->name, "verify.type") == 0 && (i = choice(c, r, vtype, 4, "f32, f64, f16 or bf16")) >= 0)
        st->verify_type = i;
    else if (strcmp(k->name, "watchdog") == 0 && (i = choice(c, r, watchdog, 3, "off, entry or loops")) >= 0)
        st->watchdog = i;
    else if (strcmp(k->name, "unnamed") == 0 && (i = choice(c, r, unnamed, 2, "auto or skip")) >= 0)
        st->unnamed = i;
    else if (strcmp(k->name, "side_effects") == 0 && (i = choice(c, r, side_effects, 2, "refuse or allow")) >= 0)
        st->side_effects = i;
}

/* ---- the table ---- */

static const struct key keys[] = {
    {"param", K_KERNEL, 1, 0, apply_param, 0},
    {"cache", K_KERNEL, 1, 0, apply_knob, GT_DIM_CACHE},
    {"carveout", K_KERNEL, 1, 0, apply_knob, GT_DIM_CARVEOUT},
    {"maxrreg", K_KERNEL, 1, 0, apply_knob, GT_DIM_MAXRREG},
    {"dlcm", K_KERNEL, 1, 0, apply_knob, GT_DIM_DLCM},
    {"bounds", K_KERNEL, 1, 0, apply_knob, GT_DIM_BOUNDS},
    {"minblocks", K_KERNEL, 1, 0, apply_knob, GT_DIM_MINBLOCKS},
    {"auto", K_KERNEL, 1, 0, apply_auto, 0},
    {"source", K_KERNEL, 2, 0, apply_source, 0},
    {"options", K_KERNEL, 2, 1, apply_options, 0},
    {"link.options", K_KERNEL, 2, 1, apply_options, 0},
    {"entry", K_KERNEL, 2, 0, apply_entry, 0},
    {"baseline", K_KERNEL, 2, 0, apply_baseline, 0},
    {"constraint", K_KERNEL, 2, 1, apply_constraint, 0},
    {"block", K_KERNEL, 2, 0, apply_geometry, 0},
    {"grid", K_KERNEL, 2, 0, apply_geometry, 0},
    {"smem", K_KERNEL, 2, 0, apply_smem, 0},
    {"independent", K_KERNEL, 2, 1, apply_independence, 0},
    {"shared", K_KERNEL, 2, 1, apply_independence, 0},
    {"signature", K_KERNEL, 2, 1, apply_signature, 0},
    {"snapshot.add", K_KERNEL, 2, 1, apply_snapshot, 0},
    {"snapshot.skip", K_KERNEL, 2, 1, apply_snapshot, 0},
    {"tune", K_BOTH, 2, 0, apply_tune, 0},
    {"strategy", K_BOTH, 2, 0, apply_strategy, 0},
    {"strategy.", K_BOTH, 2, 0, apply_sparam, 0},
    {"budget.trials", K_BOTH, 2, 0, apply_number, 0},
    {"budget.seconds", K_BOTH, 2, 0, apply_number, 0},
    {"verify", K_BOTH, 2, 0, apply_word, 0},
    {"verify.abs", K_BOTH, 2, 0, apply_number, 0},
    {"verify.rel", K_BOTH, 2, 0, apply_number, 0},
    {"verify.type", K_BOTH, 2, 0, apply_word, 0},
    {"watchdog", K_BOTH, 2, 0, apply_word, 0},
    {"watchdog.factor", K_BOTH, 2, 0, apply_number, 0},
    {"watchdog.floor_ms", K_BOTH, 2, 0, apply_number, 0},
    {"timing.repeat", K_BOTH, 2, 0, apply_number, 0},
    {"timing.remeasure", K_BOTH, 2, 0, apply_number, 0},
    {"side_effects", K_BOTH, 2, 0, apply_word, 0},
    {"online.settle", K_BOTH, 2, 0, apply_number, 0},
    {"unnamed", K_DEFAULTS, 2, 0, apply_word, 0},
};
#define NKEYS (sizeof keys / sizeof keys[0])

/* The row for a key as written, and where its argument starts ("param NAME",
 * "strategy.NAME"). */
static const struct key *lookup(const char *key, const char **arg)
{
    *arg = key + strlen(key);
    if (strncmp(key, "param", 5) == 0 && (key[5] == ' ' || key[5] == '\t' || key[5] == 0)) {
        const char *a = key + 5;
        while (*a == ' ' || *a == '\t')
            a++;
        *arg = a;
        return &keys[0];
    }
    if (strncmp(key, "strategy.", 9) == 0) {
        *arg = key + 9;
        for (size_t i = 0; i < NKEYS; i++)
            if (strcmp(keys[i].name, "strategy.") == 0)
                return &keys[i];
    }
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].name, key) == 0)
            return &keys[i];
    return NULL;
}

static void unknown_key(struct ctx *c, const struct gt_raw *r)
{
    const char *names[NKEYS + 1];
    size_t n = 0;
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].name, "strategy.") != 0)
            names[n++] = keys[i].name;
    char first[64];
    size_t fl = strcspn(r->key, " \t");
    snprintf(first, sizeof first, "%.*s", (int)(fl > 60 ? 60 : fl), r->key);
    const char *near = gt_nearest(first, names, n);
    if (near && strcmp(near, "param") == 0 && r->key[fl])
        err_key(c, r, 0, "unknown key '%s'; did you mean 'param%s'?", r->key, r->key + fl);
    else if (near && !r->key[fl])
        err_key(c, r, 0, "unknown key '%s'; did you mean '%s'?", r->key, near);
    else if (r->key[fl] && !near)
        err_key(c, r, 0, "unknown key '%s' (a parameter is declared as 'param NAME = values')", r->key);
    else
        err_key(c, r, 0, "unknown key '%s'", r->key);
}

/* Single keys given twice: the first one is the earlier raw entry whose key
 * is the same; for params, the same parameter name. */
static int duplicate(struct ctx *c, const struct gt_raw *raw, size_t i, const struct key *k, const char *arg)
{
    if (k->repeat)
        return 0;
    for (size_t j = 0; j < i; j++) {
        const char *aj;
        if (raw[j].broken || lookup(raw[j].key, &aj) != k || strcmp(aj, arg) != 0)
            continue;
        if (k == &keys[0])
            err_key(c, &raw[i], (int)(arg - raw[i].key), "parameter '%s' is already declared at line %d", arg,
                    raw[j].keyloc.line);
        else
            err_key(c, &raw[i], 0, "'%s' is already set at line %d", raw[i].key, raw[j].keyloc.line);
        return 1;
    }
    return 0;
}

static void apply_one(struct ctx *c, const struct gt_raw *raw, size_t i, int pass)
{
    const struct gt_raw *r = &raw[i];
    const char *arg;
    const struct key *k = lookup(r->key, &arg);
    if (r->broken)
        return;
    if (!r->key[0]) {
        if (pass == 1)
            err_key(c, r, 0, "expected a key before '='");
        return;
    }
    if (!k) {
        if (pass == 1)
            unknown_key(c, r);
        return;
    }
    if (k->pass != pass)
        return;
    if (!(k->where & (c->is_defaults ? K_DEFAULTS : K_KERNEL))) {
        err_key(c, r, 0, "'%s' belongs in %s", r->key, c->is_defaults ? "a [kernel \"...\"] section" : "[defaults]");
        return;
    }
    if (duplicate(c, raw, i, k, arg))
        return;
    if (!whole(r).len) {
        err_at(c, r, 0, "expected a value for '%s'", r->key);
        return;
    }
    k->apply(c, r, arg, k);
}

size_t gt_keys_apply(struct gt_section *sec, int is_defaults, const char *dir, const struct gt_raw *raw, size_t n,
                     struct gt_diags *d)
{
    struct ctx c = {sec, is_defaults, dir, d, 0, NULL, NULL, 0};
    for (size_t i = 0; i < n; i++)
        apply_one(&c, raw, i, 1);
    if (!is_defaults)
        add_auto_dims(&c);
    c.indep = gt_malloc(sec->ndims + 1);
    if (!c.indep) {
        gt_diags_add(d, sec->loc, "out of memory");
        return c.errs + 1;
    }
    memset(c.indep, -1, sec->ndims + 1);
    for (size_t i = 0; i < n; i++)
        apply_one(&c, raw, i, 2);
    free(c.indep);
    return c.errs;
}

/* ---- settings and sections ---- */

void gt_settings_init(struct gt_settings *st)
{
    *st = (struct gt_settings){
        .tune = -1, .budget_trials = -1, .budget_seconds = -1, .verify = -1, .verify_abs = -1, .verify_rel = -1,
        .verify_type = -1, .watchdog = -1, .watchdog_factor = -1, .watchdog_floor_ms = -1, .timing_repeat = -1,
        .timing_remeasure = -1, .side_effects = -1, .online_settle = -1, .unnamed = -1,
    };
}

void gt_settings_clear(struct gt_settings *st)
{
    free(st->strategy);
    for (size_t i = 0; i < st->nsparams; i++) {
        free(st->sparams[i].key);
        free(st->sparams[i].value);
    }
    free(st->sparams);
    gt_settings_init(st);
}

#define FILL(f) \
    if (dst->f < 0) \
        dst->f = src->f

int gt_settings_merge(struct gt_settings *dst, const struct gt_settings *src)
{
    FILL(tune);
    FILL(budget_trials);
    FILL(budget_seconds);
    FILL(verify);
    FILL(verify_abs);
    FILL(verify_rel);
    FILL(verify_type);
    FILL(watchdog);
    FILL(watchdog_factor);
    FILL(watchdog_floor_ms);
    FILL(timing_repeat);
    FILL(timing_remeasure);
    FILL(side_effects);
    FILL(online_settle);
    FILL(unnamed);
    if (!dst->strategy && src->strategy && !(dst->strategy = gt_strdup(src->strategy)))
        return -1;
    for (size_t i = 0; i < src->nsparams; i++) {
        if (gt_settings_param(dst, src->sparams[i].key, NULL))
            continue;
        struct gt_kv *v = gt_realloc(dst->sparams, (dst->nsparams + 1) * sizeof *v);
        if (!v)
            return -1;
        dst->sparams = v;
        char *key = gt_strdup(src->sparams[i].key), *val = key ? gt_strdup(src->sparams[i].value) : NULL;
        if (!val) {
            free(key);
            return -1;
        }
        v[dst->nsparams++] = (struct gt_kv){key, val, src->sparams[i].loc};
    }
    return 0;
}

const char *gt_settings_param(const struct gt_settings *st, const char *name, const char *dflt)
{
    for (size_t i = 0; i < st->nsparams; i++)
        if (strcmp(st->sparams[i].key, name) == 0)
            return st->sparams[i].value;
    return dflt;
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void free_exprs(struct gt_expr **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        gt_expr_free(v[i]);
    free(v);
}

void gt_section_free(struct gt_section *sec)
{
    if (!sec)
        return;
    free(sec->pattern);
    free(sec->source);
    free_strings(sec->options, sec->noptions);
    free_strings(sec->link_options, sec->nlink_options);
    free(sec->entry);
    for (size_t i = 0; i < sec->ndims; i++) {
        free(sec->dims[i].name);
        free(sec->dims[i].values);
    }
    free(sec->dims);
    for (size_t i = 0; i < sec->nbaseline; i++) {
        free(sec->baseline[i].key);
        free(sec->baseline[i].value);
    }
    free(sec->baseline);
    free_exprs(sec->constraints, sec->nconstraints);
    for (int i = 0; i < 3; i++) {
        gt_expr_free(sec->block[i]);
        gt_expr_free(sec->grid[i]);
    }
    gt_expr_free(sec->smem);
    free_exprs(sec->signature, sec->nsignature);
    free(sec->snap_add);
    free(sec->snap_skip);
    gt_names_clear(&sec->argnames);
    gt_settings_clear(&sec->set);
    free(sec);
}
