/* ptx.c: what a PTX module declares and where its loops start.
 *
 * One pass over the text, without building a syntax tree: the module's
 * version and target, every .entry and .func with its parameters and
 * performance directives, every module-scope .global and .const variable,
 * which variables each function uses (directly or through the functions it
 * calls), each function's loop heads (labels that a later statement of the
 * same function branches back to), its block barriers and which kinds of
 * collective instructions it uses.  The variant builder needs parameter
 * layouts and variables, the watchdog the rest.
 *
 * The text is untrusted: every read is bounded by its size, names are
 * copied out, and anything not understood is skipped to the end of its
 * statement rather than guessed at. */
#include "ptx.h"
#include "alloc.h"
#include "ptxlex.h"
#include "strtab.h"
#include "errmsg.h"
#include "arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct label {
    size_t off, back;
    unsigned line;
    int is_loop;
    const char *name;
    size_t n;
};

#define VEC(T) struct { T *v; size_t n, cap; }

struct parser {
    struct gt_ptx_lex lx;
    struct gt_ptx_module *m;
    char *err;
    size_t errlen;
    int failed;
    struct gt_strtab funcs_by_name, vars_by_name, labels;
    VEC(struct gt_ptx_func) funcs;
    VEC(struct gt_ptx_var) vars;
    VEC(unsigned) fvars;     /* variables referenced by the current function */
    VEC(unsigned) fcalls;    /* functions it calls */
    VEC(struct label) flabels;
    VEC(struct gt_ptx_barrier) fbarriers;
    unsigned fuses;          /* GT_PTX_USES_* of the current function */
    VEC(struct gt_ptx_param) params;
    VEC(unsigned) marks;     /* per variable, per function: last function that noted it */
    VEC(unsigned) fmarks;
};

#define PUSH(P, vec, item) \
    (gt_grow((void **)&(vec).v, &(vec).cap, (vec).n + 1, sizeof *(vec).v) ? oom(P) : ((vec).v[(vec).n++] = (item), 0))

__attribute__((format(printf, 2, 3))) static int fail(struct parser *P, const char *fmt, ...)
{
    if (P->failed)
        return -1;
    P->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    gt_verrf(P->err, P->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int oom(struct parser *P)
{
    return fail(P, "out of memory");
}

/* ---- tokens ---- */

static int is(const struct gt_ptx_tok *t, const char *s)
{
    size_t n = strlen(s);
    return t->n == n && memcmp(t->s, s, n) == 0;
}

static int is_punct(const struct gt_ptx_tok *t, char c)
{
    return t->kind == GT_PTX_PUNCT && t->s[0] == c;
}

static int is_directive(const struct gt_ptx_tok *t)
{
    return t->kind == GT_PTX_WORD && t->s[0] == '.';
}

static int is_name(const struct gt_ptx_tok *t)
{
    return t->kind == GT_PTX_WORD && t->s[0] != '.' && t->s[0] != '%';
}

static int peek_is(struct gt_ptx_lex *lx, char c)
{
    struct gt_ptx_tok t = gt_ptx_peek(lx);
    return is_punct(&t, c);
}

/* Decimal or 0x hexadecimal; saturates instead of overflowing. */
static uint64_t number(const struct gt_ptx_tok *t)
{
    uint64_t v = 0;
    size_t i = 0;
    unsigned base = 10;
    if (t->n > 2 && t->s[0] == '0' && (t->s[1] == 'x' || t->s[1] == 'X')) {
        base = 16;
        i = 2;
    }
    for (; i < t->n; i++) {
        char c = t->s[i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (base == 16 && c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (base == 16 && c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            break;
        if (v > (UINT64_MAX - d) / base)
            return UINT64_MAX;
        v = v * base + d;
    }
    return v;
}

/* ---- declarations ---- */

static uint32_t type_size(const struct gt_ptx_tok *t)
{
    static const struct { const char *name; uint32_t size; } types[] = {
        {".b8", 1},   {".u8", 1},     {".s8", 1},      {".pred", 1},    {".b16", 2},     {".u16", 2},
        {".s16", 2},  {".f16", 2},    {".bf16", 2},    {".b32", 4},     {".u32", 4},     {".s32", 4},
        {".f32", 4},  {".f16x2", 4},  {".bf16x2", 4},  {".tf32", 4},    {".b64", 8},     {".u64", 8},
        {".s64", 8},  {".f64", 8},    {".b128", 16},   {".texref", 8},  {".samplerref", 8}, {".surfref", 8},
        {".e4m3x2", 2}, {".e5m2x2", 2},
    };
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (is(t, types[i].name))
            return types[i].size;
    return 0;
}

static uint32_t vector_width(const struct gt_ptx_tok *t)
{
    if (is(t, ".v2"))
        return 2;
    if (is(t, ".v4"))
        return 4;
    if (is(t, ".v8"))
        return 8;
    return 0;
}

/* Skips a balanced (...) or {...} group whose opener was just read. */
static int skip_group(struct parser *P, char open, char close)
{
    unsigned depth = 1;
    while (depth) {
        struct gt_ptx_tok t = gt_ptx_next(&P->lx);
        if (t.kind == GT_PTX_EOF)
            return fail(P, "line %u: unbalanced '%c'", P->lx.line, open);
        if (is_punct(&t, open))
            depth++;
        else if (is_punct(&t, close))
            depth--;
    }
    return 0;
}

/* Skips to the end of a statement: its ';', or its block if it has one.
 * Braces after '=' belong to an initializer. */
static int skip_statement(struct parser *P)
{
    int init = 0;
    for (;;) {
        struct gt_ptx_tok t = gt_ptx_next(&P->lx);
        if (t.kind == GT_PTX_EOF || is_punct(&t, ';'))
            return 0;
        if (is_punct(&t, '='))
            init = 1;
        if (is_punct(&t, '{')) {
            if (skip_group(P, '{', '}') != 0)
                return -1;
            if (!init)
                return 0;
        }
    }
}

/* "[N]" suffixes of a declared name: multiplies *count, 0 for "[]". */
static int read_dims(struct parser *P, uint64_t *count)
{
    while (peek_is(&P->lx, '[')) {
        gt_ptx_next(&P->lx);
        struct gt_ptx_tok t = gt_ptx_next(&P->lx);
        if (is_punct(&t, ']')) {
            *count = 0;
            continue;
        }
        uint64_t n = number(&t);
        *count = n && *count <= UINT32_MAX && n <= UINT32_MAX ? *count * n : 0;
        t = gt_ptx_next(&P->lx);
        if (!is_punct(&t, ']'))
            return fail(P, "line %u: expected ']'", t.line);
    }
    return 0;
}

/* Past an initializer, up to (not including) the ',' or ';' that ends it. */
static int skip_initializer(struct parser *P)
{
    for (;;) {
        struct gt_ptx_tok t = gt_ptx_peek(&P->lx);
        if (t.kind == GT_PTX_EOF || is_punct(&t, ',') || is_punct(&t, ';'))
            return 0;
        gt_ptx_next(&P->lx);
        if (is_punct(&t, '{') && skip_group(P, '{', '}') != 0)
            return -1;
    }
}

static int add_var(struct parser *P, const struct gt_ptx_tok *name, struct gt_ptx_var *v)
{
    uint32_t h = gt_strtab_hash(name->s, name->n);
    unsigned idx = 0;
    if (gt_strtab_get(&P->vars_by_name, name->s, name->n, h, &idx)) {
        /* An extern declaration followed by the definition: keep one. */
        if (!v->is_extern)
            P->vars.v[idx] = *v;
        return 0;
    }
    if (PUSH(P, P->vars, *v) != 0 || PUSH(P, P->marks, 0u) != 0)
        return -1;
    if (gt_strtab_put(&P->vars_by_name, name->s, name->n, h, (unsigned)(P->vars.n - 1)) != 0)
        return oom(P);
    return 0;
}

/* A module-scope variable declaration, after its state space. */
static int parse_var(struct parser *P, enum gt_ptx_space space, int is_extern)
{
    uint32_t align = 0, elem = 0, vec = 1;
    for (;;) {
        struct gt_ptx_tok t = gt_ptx_next(&P->lx);
        if (t.kind == GT_PTX_EOF)
            return fail(P, "line %u: unterminated variable declaration", t.line);
        if (is_punct(&t, ';'))
            return 0;
        if (is(&t, ".align")) {
            struct gt_ptx_tok n = gt_ptx_next(&P->lx);
            align = (uint32_t)(number(&n) > UINT32_MAX ? 0 : number(&n));
        } else if (vector_width(&t)) {
            vec = vector_width(&t);
        } else if (type_size(&t)) {
            elem = type_size(&t);
        } else if (is(&t, ".attribute")) {
            struct gt_ptx_tok o = gt_ptx_next(&P->lx);
            if (is_punct(&o, '(') && skip_group(P, '(', ')') != 0)
                return -1;
        } else if (is_name(&t)) {
            uint64_t count = 1;
            if (read_dims(P, &count) != 0)
                return -1;
            struct gt_ptx_var v = {0};
            v.name = gt_arena_strndup(P->m->arena, t.s, t.n);
            if (!v.name)
                return oom(P);
            v.space = space;
            v.size = (uint64_t)(elem ? elem : 8) * vec * count;
            v.align = align ? align : elem * vec;
            v.is_extern = is_extern;
            struct gt_ptx_tok after = gt_ptx_peek(&P->lx);
            if (is_punct(&after, '=')) {
                gt_ptx_next(&P->lx);
                v.has_init = 1;
                if (skip_initializer(P) != 0)
                    return -1;
            }
            if (add_var(P, &t, &v) != 0)
                return -1;
        } else if (!is_punct(&t, ',') && !is_directive(&t)) {
            return skip_statement(P);
        }
    }
}

/* One kernel parameter, up to the ',' or ')' that ends it. */
static int parse_param(struct parser *P, struct gt_ptx_param *p, struct gt_ptx_tok *end)
{
    uint32_t elem = 0;
    uint64_t count = 1;
    int after_ptr = 0;
    memset(p, 0, sizeof *p);
    for (;;) {
        struct gt_ptx_tok t = gt_ptx_next(&P->lx);
        if (t.kind == GT_PTX_EOF)
            return fail(P, "line %u: unterminated parameter list", t.line);
        if (is_punct(&t, ',') || is_punct(&t, ')')) {
            *end = t;
            break;
        }
        if (is(&t, ".align")) {
            struct gt_ptx_tok n = gt_ptx_next(&P->lx);
            if (!after_ptr)
                p->align = number(&n) > 4096 ? 0 : (uint32_t)number(&n);
        } else if (is(&t, ".ptr")) {
            p->is_ptr = after_ptr = 1;
        } else if (type_size(&t) && !elem) {
            elem = type_size(&t);
            p->type = gt_arena_strndup(P->m->arena, t.s + 1, t.n - 1);
            if (!p->type)
                return oom(P);
        } else if (is_name(&t) && !p->name) {
            p->name = gt_arena_strndup(P->m->arena, t.s, t.n);
            if (!p->name || read_dims(P, &count) != 0)
                return p->name ? -1 : oom(P);
        }
    }
    uint64_t size = (uint64_t)elem * count;
    p->size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
    if (!p->align)
        p->align = elem ? elem : 1;
    return 0;
}

static uint32_t align_up(uint32_t v, uint32_t a)
{
    if (a == 0 || (a & (a - 1)))
        return v;
    uint64_t r = ((uint64_t)v + a - 1) & ~(uint64_t)(a - 1);
    return r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

/* The parameter list of an entry, after its '('. */
static int parse_params(struct parser *P, struct gt_ptx_func *f)
{
    P->params.n = 0;
    uint32_t offset = 0;
    if (peek_is(&P->lx, ')')) {
        gt_ptx_next(&P->lx);
        return 0;
    }
    for (;;) {
        struct gt_ptx_param p;
        struct gt_ptx_tok end = {0};
        if (parse_param(P, &p, &end) != 0)
            return -1;
        p.offset = align_up(offset, p.align);
        offset = p.offset + p.size < p.offset ? UINT32_MAX : p.offset + p.size;
        if (PUSH(P, P->params, p) != 0)
            return -1;
        if (is_punct(&end, ')'))
            break;
    }
    f->param_bytes = offset;
    f->nparams = (unsigned)P->params.n;
    f->params = gt_arena_memdup(P->m->arena, P->params.v, P->params.n * sizeof *f->params);
    if (!f->params)
        return oom(P);
    return 0;
}

static void read_triple(struct parser *P, unsigned out[3])
{
    for (int i = 0; i < 3; i++) {
        struct gt_ptx_tok t = gt_ptx_next(&P->lx);
        uint64_t v = number(&t);
        out[i] = v > UINT32_MAX ? UINT32_MAX : (unsigned)v;
        if (!peek_is(&P->lx, ','))
            break;
        gt_ptx_next(&P->lx);
    }
}

static unsigned read_count(struct parser *P)
{
    struct gt_ptx_tok t = gt_ptx_next(&P->lx);
    uint64_t v = number(&t);
    return v > UINT32_MAX ? UINT32_MAX : (unsigned)v;
}

/* Performance directives between the parameters and the body, from `t`
 * on; returns the token that ends them ('{' or ';'). */
static struct gt_ptx_tok parse_perf(struct parser *P, struct gt_ptx_func *f, struct gt_ptx_tok t)
{
    for (;; t = gt_ptx_next(&P->lx)) {
        if (is(&t, ".maxntid"))
            read_triple(P, f->maxntid);
        else if (is(&t, ".reqntid"))
            read_triple(P, f->reqntid);
        else if (is(&t, ".minnctapersm"))
            f->minnctapersm = read_count(P);
        else if (is(&t, ".maxnreg"))
            f->maxnreg = read_count(P);
        else if (is(&t, ".reqnctapercluster")) {
            unsigned ignored[3];
            read_triple(P, ignored);
            f->uses |= GT_PTX_USES_CLUSTER;
        } else if (is(&t, ".explicitcluster") || is(&t, ".maxclusterrank")) {
            f->uses |= GT_PTX_USES_CLUSTER;
        } else if (is(&t, ".pragma")) {
            if (skip_statement(P) != 0)
                return (struct gt_ptx_tok){GT_PTX_EOF, t.s, 0, t.off, t.line};
        } else if (is(&t, ".attribute")) {
            struct gt_ptx_tok o = gt_ptx_next(&P->lx);
            if (is_punct(&o, '(') && skip_group(P, '(', ')') != 0)
                return (struct gt_ptx_tok){GT_PTX_EOF, t.s, 0, t.off, t.line};
        } else if (is_directive(&t) || t.kind == GT_PTX_NUM || is_punct(&t, ',')) {
            continue;
        } else {
            return t;
        }
    }
}

static int func_index(struct parser *P, const struct gt_ptx_tok *name, int is_entry, unsigned *idx)
{
    uint32_t h = gt_strtab_hash(name->s, name->n);
    if (gt_strtab_get(&P->funcs_by_name, name->s, name->n, h, idx))
        return 0;
    struct gt_ptx_func f = {0};
    f.name = gt_arena_strndup(P->m->arena, name->s, name->n);
    if (!f.name)
        return oom(P);
    f.is_entry = is_entry;
    f.is_extern = 1;
    if (PUSH(P, P->funcs, f) != 0 || PUSH(P, P->fmarks, 0u) != 0)
        return -1;
    *idx = (unsigned)(P->funcs.n - 1);
    return gt_strtab_put(&P->funcs_by_name, name->s, name->n, h, *idx) ? oom(P) : 0;
}

/* ---- bodies ---- */

static int note_loop(struct parser *P, unsigned label, size_t at)
{
    struct label *l = &P->flabels.v[label];
    l->is_loop = 1;
    l->back = at;
    return 0;
}

/* A name used in a statement: a label defined earlier (a backward branch),
 * a module variable, or a function. */
static int note_reference(struct parser *P, const struct gt_ptx_tok *t, unsigned self)
{
    uint32_t h = gt_strtab_hash(t->s, t->n);
    unsigned idx = 0;
    if (gt_strtab_get(&P->labels, t->s, t->n, h, &idx))
        return note_loop(P, idx, t->off);
    if (gt_strtab_get(&P->vars_by_name, t->s, t->n, h, &idx)) {
        if (P->marks.v[idx] == self + 1)
            return 0;
        P->marks.v[idx] = self + 1;
        return PUSH(P, P->fvars, idx);
    }
    if (gt_strtab_get(&P->funcs_by_name, t->s, t->n, h, &idx)) {
        if (P->fmarks.v[idx] == self + 1)
            return 0;
        P->fmarks.v[idx] = self + 1;
        return PUSH(P, P->fcalls, idx);
    }
    return 0;
}

/* "name:" in a body: a code label, or a table of branch or call targets. */
static int label_definition(struct parser *P, const struct gt_ptx_tok *name, unsigned self)
{
    gt_ptx_next(&P->lx); /* the ':' */
    struct gt_ptx_tok what = gt_ptx_peek(&P->lx);
    if (is(&what, ".callprototype") || is(&what, ".calltargets"))
        return skip_statement(P);
    if (is(&what, ".branchtargets")) {
        gt_ptx_next(&P->lx);
        for (;;) {
            struct gt_ptx_tok t = gt_ptx_next(&P->lx);
            if (t.kind == GT_PTX_EOF || is_punct(&t, ';'))
                return 0;
            if (is_name(&t) && note_reference(P, &t, self) != 0)
                return -1;
        }
    }
    struct label l = {name->off, 0, name->line, 0, name->s, name->n};
    if (PUSH(P, P->flabels, l) != 0)
        return -1;
    uint32_t h = gt_strtab_hash(name->s, name->n);
    return gt_strtab_put(&P->labels, name->s, name->n, h, (unsigned)(P->flabels.n - 1)) ? oom(P) : 0;
}

/* ---- what instructions need of other threads ---- */

/* Whether dotted component `part` is in the opcode ("sync" in "bar.sync"). */
static int has_part(const struct gt_ptx_tok *t, const char *part)
{
    size_t n = strlen(part);
    for (size_t i = 0; i + 1 + n <= t->n; i++)
        if (t->s[i] == '.' && memcmp(t->s + i + 1, part, n) == 0 && (i + 1 + n == t->n || t->s[i + 1 + n] == '.'))
            return 1;
    return 0;
}

/* Whether the opcode's first component is `base`. */
static int base_is(const struct gt_ptx_tok *t, const char *base)
{
    size_t n = strlen(base);
    return t->n >= n && memcmp(t->s, base, n) == 0 && (t->n == n || t->s[n] == '.');
}

static int contains(const struct gt_ptx_tok *t, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= t->n; i++)
        if (memcmp(t->s + i, s, n) == 0)
            return 1;
    return 0;
}

/* Special registers of thread block clusters. */
static int is_cluster_register(const struct gt_ptx_tok *t)
{
    static const char *const prefixes[] = {"%cluster", "%ncluster", "%is_explicit_cluster"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (t->n >= strlen(prefixes[i]) && memcmp(t->s, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* A block barrier: which kind, and the site when it is `bar.sync 0;`.
 * `bar.red` and `barrier.red` name their barrier after a destination. */
static int classify_barrier(struct parser *P, const struct gt_ptx_tok *op, size_t begin)
{
    struct gt_ptx_lex save = P->lx;
    struct gt_ptx_tok a = gt_ptx_next(&P->lx);
    if (has_part(op, "red")) {
        struct gt_ptx_tok comma = gt_ptx_next(&P->lx);
        a = is_punct(&comma, ',') ? gt_ptx_next(&P->lx) : comma;
    }
    struct gt_ptx_tok after = gt_ptx_next(&P->lx);
    int rc = 0;
    if (a.kind == GT_PTX_NUM && number(&a) != 0) {
        P->fuses |= GT_PTX_USES_BAR_NAMED;
    } else if (a.kind == GT_PTX_NUM && has_part(op, "sync") && is_punct(&after, ';')) {
        struct gt_ptx_barrier b = {begin, op->off, op->n, after.off + 1};
        P->fuses |= GT_PTX_USES_BAR0;
        rc = PUSH(P, P->fbarriers, b);
    } else {
        P->fuses |= GT_PTX_USES_BAR_MIXED;
    }
    P->lx = save;
    return rc;
}

static int classify(struct parser *P, const struct gt_ptx_tok *op, size_t begin)
{
    static const char *const warp[] = {"shfl", "vote", "match", "redux", "activemask", "wmma", "mma",
                                       "ldmatrix", "stmatrix", "movmatrix", "elect"};
    static const char *const async[] = {"wgmma", "mbarrier", "tcgen05", "setmaxnreg", "tensormap"};
    static const char *const cluster[] = {"mapa", "getctarank", "clusterlaunchcontrol"};
    if (contains(op, "::cluster"))
        P->fuses |= GT_PTX_USES_CLUSTER;
    if (has_part(op, "async"))
        P->fuses |= GT_PTX_USES_ASYNC;
    for (size_t i = 0; i < sizeof warp / sizeof *warp; i++)
        if (base_is(op, warp[i]))
            P->fuses |= GT_PTX_USES_WARP;
    for (size_t i = 0; i < sizeof async / sizeof *async; i++)
        if (base_is(op, async[i]))
            P->fuses |= GT_PTX_USES_ASYNC;
    for (size_t i = 0; i < sizeof cluster / sizeof *cluster; i++)
        if (base_is(op, cluster[i]))
            P->fuses |= GT_PTX_USES_CLUSTER;
    if (!base_is(op, "bar") && !base_is(op, "barrier"))
        return 0;
    if (has_part(op, "warp"))
        P->fuses |= GT_PTX_USES_WARP;
    else if (has_part(op, "cluster"))
        P->fuses |= GT_PTX_USES_CLUSTER;
    else
        return classify_barrier(P, op, begin);
    return 0;
}

/* The statements of a body, after its '{', through its matching '}'. */
static int scan_body(struct parser *P, unsigned self)
{
    unsigned depth = 1;
    int stmt_start = 1;
    size_t begin = 0;   /* of the current statement, its guard included */
    while (depth) {
        struct gt_ptx_tok t = gt_ptx_next(&P->lx);
        if (t.kind == GT_PTX_EOF)
            return fail(P, "line %u: unterminated body of %s", t.line, P->funcs.v[self].name);
        if (stmt_start == 1) {
            begin = t.off;
            stmt_start = 2;
        }
        if (t.kind == GT_PTX_PUNCT) {
            char c = t.s[0];
            depth += c == '{';
            depth -= c == '}';
            if (c == '{' || c == '}' || c == ';')
                stmt_start = 1;
            continue;
        }
        if (t.kind != GT_PTX_WORD)
            continue;
        if (is(&t, ".loc") || is(&t, ".file")) {
            gt_ptx_skip_line(&P->lx);
            stmt_start = 1;
            continue;
        }
        if (t.s[0] != '.' && t.s[0] != '%' && gt_ptx_colon_follows(&P->lx)) {
            if (label_definition(P, &t, self) != 0)
                return -1;
            stmt_start = 1;
            continue;
        }
        if (t.s[0] == '%' && is_cluster_register(&t))
            P->fuses |= GT_PTX_USES_CLUSTER;
        if (stmt_start) {
            if (t.s[0] == '%') /* a guard's predicate comes before the opcode */
                continue;
            stmt_start = 0;
            if (t.s[0] != '.' && classify(P, &t, begin) != 0)
                return -1;
            continue;
        }
        if (t.s[0] != '.' && t.s[0] != '%' && note_reference(P, &t, self) != 0)
            return -1;
    }
    return 0;
}

static int cmp_loop(const void *a, const void *b)
{
    const struct gt_ptx_loop *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int finish_body(struct parser *P, struct gt_ptx_func *f)
{
    struct gt_arena *A = P->m->arena;
    unsigned nloops = 0;
    for (size_t i = 0; i < P->flabels.n; i++)
        nloops += P->flabels.v[i].is_loop;
    f->loops = gt_arena_alloc(A, nloops * sizeof *f->loops);
    f->vars = gt_arena_memdup(A, P->fvars.v, P->fvars.n * sizeof *f->vars);
    f->calls = gt_arena_memdup(A, P->fcalls.v, P->fcalls.n * sizeof *f->calls);
    f->barriers = gt_arena_memdup(A, P->fbarriers.v, P->fbarriers.n * sizeof *f->barriers);
    if (!f->loops || !f->vars || !f->calls || !f->barriers)
        return oom(P);
    f->nvars = (unsigned)P->fvars.n;
    f->ncalls = (unsigned)P->fcalls.n;
    f->nbarriers = (unsigned)P->fbarriers.n;
    f->uses |= P->fuses;
    for (size_t i = 0; i < P->flabels.n; i++) {
        const struct label *l = &P->flabels.v[i];
        if (!l->is_loop)
            continue;
        struct gt_ptx_loop *lp = &f->loops[f->nloops++];
        lp->label = gt_arena_strndup(A, l->name, l->n);
        if (!lp->label)
            return oom(P);
        lp->offset = l->off;
        lp->back = l->back;
        lp->line = l->line;
    }
    if (f->nloops > 1)
        qsort(f->loops, f->nloops, sizeof *f->loops, cmp_loop);
    return 0;
}

static int parse_body(struct parser *P, unsigned idx, size_t body_off)
{
    if (!P->funcs.v[idx].is_extern)
        return fail(P, "line %u: %s is defined twice", P->lx.line, P->funcs.v[idx].name);
    P->fvars.n = P->fcalls.n = P->flabels.n = P->fbarriers.n = 0;
    P->fuses = 0;
    gt_strtab_clear(&P->labels);
    P->funcs.v[idx].is_extern = 0;
    P->funcs.v[idx].body = body_off;
    if (scan_body(P, idx) != 0)
        return -1;
    P->funcs.v[idx].end = P->lx.pos;
    return finish_body(P, &P->funcs.v[idx]);
}

/* .entry or .func, after the directive. */
static int parse_function(struct parser *P, int is_entry, size_t begin)
{
    struct gt_ptx_tok t = gt_ptx_next(&P->lx);
    if (!is_entry && is_punct(&t, '(')) {
        if (skip_group(P, '(', ')') != 0)
            return -1;
        t = gt_ptx_next(&P->lx);
    }
    if (!is_name(&t))
        return fail(P, "line %u: expected a function name", t.line);
    unsigned idx = 0;
    if (func_index(P, &t, is_entry, &idx) != 0)
        return -1;
    struct gt_ptx_func f = P->funcs.v[idx];
    f.is_entry = is_entry;
    t = gt_ptx_next(&P->lx);
    if (is_punct(&t, '(')) {
        if (is_entry ? parse_params(P, &f) : skip_group(P, '(', ')'))
            return -1;
        t = gt_ptx_next(&P->lx);
    }
    t = parse_perf(P, &f, t);
    if (t.kind == GT_PTX_EOF)
        return fail(P, "line %u: unterminated declaration of %s", t.line, f.name);
    if (is_punct(&t, ';')) {
        if (f.is_extern)
            P->funcs.v[idx] = f;
        return 0;
    }
    if (!is_punct(&t, '{'))
        return fail(P, "line %u: expected '{' or ';' after %s", t.line, f.name);
    f.begin = begin;
    f.is_extern = P->funcs.v[idx].is_extern;
    P->funcs.v[idx] = f;
    return parse_body(P, idx, t.off);
}

/* ---- module ---- */

static void parse_version(struct parser *P)
{
    struct gt_ptx_tok t = gt_ptx_next(&P->lx);
    int major = 0, minor = 0;
    size_t i = 0;
    for (; i < t.n && t.s[i] >= '0' && t.s[i] <= '9' && major < 1000; i++)
        major = major * 10 + (t.s[i] - '0');
    if (i < t.n && t.s[i] == '.')
        for (i++; i < t.n && t.s[i] >= '0' && t.s[i] <= '9' && minor < 10; i++)
            minor = minor * 10 + (t.s[i] - '0');
    P->m->version = major * 100 + minor;
}

static void target_of(const struct gt_ptx_tok *t, int *arch, char *suffix)
{
    if (t->n < 4 || memcmp(t->s, "sm_", 3) != 0)
        return;
    int a = 0;
    size_t i = 3;
    for (; i < t->n && t->s[i] >= '0' && t->s[i] <= '9' && a < 100000; i++)
        a = a * 10 + (t->s[i] - '0');
    *arch = a;
    *suffix = i < t->n && (t->s[i] == 'a' || t->s[i] == 'f') ? t->s[i] : 0;
}

static void parse_target(struct parser *P)
{
    for (;;) {
        struct gt_ptx_tok t = gt_ptx_next(&P->lx);
        target_of(&t, &P->m->target, &P->m->target_suffix);
        if (!peek_is(&P->lx, ','))
            return;
        gt_ptx_next(&P->lx);
    }
}

/* A module-scope statement that starts with a directive. */
static int parse_declaration(struct parser *P, struct gt_ptx_tok t)
{
    size_t begin = t.off;
    int is_extern = 0;
    while (is(&t, ".extern") || is(&t, ".visible") || is(&t, ".weak") || is(&t, ".common")) {
        is_extern |= is(&t, ".extern");
        t = gt_ptx_next(&P->lx);
    }
    if (is(&t, ".entry") || is(&t, ".func"))
        return parse_function(P, is(&t, ".entry"), begin);
    if (is(&t, ".global"))
        return parse_var(P, GT_PTX_GLOBAL, is_extern);
    if (is(&t, ".const"))
        return parse_var(P, GT_PTX_CONST, is_extern);
    if (is_punct(&t, ';'))
        return 0;
    return skip_statement(P);
}

static int parse_module(struct parser *P)
{
    for (;;) {
        struct gt_ptx_tok t = gt_ptx_next(&P->lx);
        if (t.kind == GT_PTX_EOF)
            return 0;
        if (is(&t, ".version") || is(&t, ".target") || is(&t, ".address_size")) {
            if (is(&t, ".version"))
                parse_version(P);
            else if (is(&t, ".target"))
                parse_target(P);
            else
                P->m->address_size = (int)read_count(P);
            P->m->header_end = P->lx.pos;
        } else if (is(&t, ".file"))
            gt_ptx_skip_line(&P->lx);
        else if (is(&t, ".section")) {
            struct gt_ptx_tok name = gt_ptx_next(&P->lx);
            struct gt_ptx_tok open = gt_ptx_next(&P->lx);
            (void)name;
            if (is_punct(&open, '{') && skip_group(P, '{', '}') != 0)
                return -1;
        } else if (is_directive(&t)) {
            if (parse_declaration(P, t) != 0)
                return -1;
        } else if (is_punct(&t, '{')) {
            if (skip_group(P, '{', '}') != 0)
                return -1;
        } else if (!is_punct(&t, ';')) {
            if (skip_statement(P) != 0)
                return -1;
        }
        if (P->failed)
            return -1;
    }
}

/* Variables each function reaches through the functions it calls. */
static int close_over_calls(struct parser *P)
{
    size_t nf = P->funcs.n, nv = P->vars.n;
    unsigned *seen_f = gt_calloc(nf ? nf : 1, sizeof *seen_f);
    unsigned *seen_v = gt_calloc(nv ? nv : 1, sizeof *seen_v);
    unsigned *stack = gt_malloc((nf ? nf : 1) * sizeof *stack);
    int r = (!seen_f || !seen_v || !stack) ? oom(P) : 0;
    for (size_t f = 0; r == 0 && f < nf; f++) {
        unsigned mark = (unsigned)f + 1, sp = 0;
        P->fvars.n = 0;
        stack[sp++] = (unsigned)f;
        seen_f[f] = mark;
        while (sp && r == 0) {
            const struct gt_ptx_func *g = &P->funcs.v[stack[--sp]];
            for (unsigned i = 0; i < g->nvars && r == 0; i++) {
                if (seen_v[g->vars[i]] != mark) {
                    seen_v[g->vars[i]] = mark;
                    r = PUSH(P, P->fvars, g->vars[i]);
                }
            }
            for (unsigned i = 0; i < g->ncalls; i++) {
                if (seen_f[g->calls[i]] != mark) {
                    seen_f[g->calls[i]] = mark;
                    stack[sp++] = g->calls[i];
                }
            }
        }
        if (r == 0 && P->fvars.n > P->funcs.v[f].nvars) {
            unsigned *v = gt_arena_memdup(P->m->arena, P->fvars.v, P->fvars.n * sizeof *v);
            if (!v) {
                r = oom(P);
                break;
            }
            P->funcs.v[f].vars = v;
            P->funcs.v[f].nvars = (unsigned)P->fvars.n;
        }
    }
    free(seen_f);
    free(seen_v);
    free(stack);
    return r;
}

static int cmp_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

static int publish(struct parser *P)
{
    struct gt_ptx_module *m = P->m;
    m->funcs = gt_arena_memdup(m->arena, P->funcs.v, P->funcs.n * sizeof *m->funcs);
    m->vars = gt_arena_memdup(m->arena, P->vars.v, P->vars.n * sizeof *m->vars);
    if (!m->funcs || !m->vars)
        return oom(P);
    m->nfuncs = P->funcs.n;
    m->nvars = P->vars.n;
    for (size_t i = 0; i < m->nfuncs; i++) {
        m->nentries += m->funcs[i].is_entry;
        if (m->funcs[i].nvars > 1)
            qsort(m->funcs[i].vars, m->funcs[i].nvars, sizeof(unsigned), cmp_unsigned);
    }
    return 0;
}

static void parser_free(struct parser *P)
{
    gt_strtab_free(&P->funcs_by_name);
    gt_strtab_free(&P->vars_by_name);
    gt_strtab_free(&P->labels);
    free(P->funcs.v);
    free(P->vars.v);
    free(P->fvars.v);
    free(P->fcalls.v);
    free(P->flabels.v);
    free(P->fbarriers.v);
    free(P->params.v);
    free(P->marks.v);
    free(P->fmarks.v);
}

/* Parses `size` bytes of PTX (a NUL ends the text early).  On success the
 * module owns everything it points at except nothing of `text`; free it with
 * gt_ptx_free.  On failure returns -1 with a message in err. */
int gt_ptx_parse(const char *text, size_t size, struct gt_ptx_module *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    struct parser P = {.lx = {text, size, 0, 1}, .m = m, .err = err, .errlen = errlen};
    m->arena = gt_arena_new();
    if (!m->arena) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    P.funcs_by_name.gen = P.vars_by_name.gen = P.labels.gen = 1;
    int r = parse_module(&P);
    if (r == 0 && !m->version && !m->target)
        r = fail(&P, "no .version or .target directive: not PTX");
    if (r == 0)
        r = close_over_calls(&P);
    if (r == 0)
        r = publish(&P);
    parser_free(&P);
    if (r != 0)
        gt_ptx_free(m);
    return r;
}

void gt_ptx_free(struct gt_ptx_module *m)
{
    gt_arena_free(m->arena);
    memset(m, 0, sizeof *m);
}

const struct gt_ptx_func *gt_ptx_find(const struct gt_ptx_module *m, const char *name)
{
    for (size_t i = 0; i < m->nfuncs; i++)
        if (strcmp(m->funcs[i].name, name) == 0)
            return &m->funcs[i];
    return NULL;
}

/* Marks in[] (nfuncs flags, zeroed) the function `f` and every function it
 * calls, directly or not.  Returns -1 when out of memory. */
int gt_ptx_reach(const struct gt_ptx_module *m, size_t f, unsigned char *in)
{
    size_t *stack = gt_malloc(m->nfuncs * sizeof *stack), sp = 0;
    if (!stack)
        return -1;
    in[f] = 1;
    stack[sp++] = f;
    while (sp) {
        const struct gt_ptx_func *g = &m->funcs[stack[--sp]];
        for (unsigned i = 0; i < g->ncalls; i++)
            if (!in[g->calls[i]]) {
                in[g->calls[i]] = 1;
                stack[sp++] = g->calls[i];
            }
    }
    free(stack);
    return 0;
}

/* Only the .version and .target of a module, cheaply: they come first.
 * Returns 0 when both were found. */
int gt_ptx_header(const char *text, size_t size, int *version, int *target, char *suffix)
{
    struct gt_ptx_module m = {0};
    struct parser P = {.lx = {text, size, 0, 1}, .m = &m};
    *version = *target = 0;
    *suffix = 0;
    for (int i = 0; i < 64 && !(m.version && m.target); i++) {
        struct gt_ptx_tok t = gt_ptx_next(&P.lx);
        if (t.kind == GT_PTX_EOF)
            break;
        if (is(&t, ".version"))
            parse_version(&P);
        else if (is(&t, ".target"))
            parse_target(&P);
    }
    *version = m.version;
    *target = m.target;
    *suffix = m.target_suffix;
    return m.version && m.target ? 0 : -1;
}
