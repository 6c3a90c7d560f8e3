/* expr.c: the policy expression language: a recursive-descent compiler to a
 * small stack bytecode, and its evaluator.
 *
 * Spaces of hundreds of thousands of configurations are filtered by these
 * expressions, so names are resolved to slots once, && || ?: become jumps,
 * and evaluation is one loop over an array with a fixed-size stack.  Every
 * instruction keeps the offset of the text it came from, so that an error
 * found while evaluating points at the operator or name that failed. */
#include "expr.h"
#include "alloc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NEST 100  /* parser recursion; bounds the stack depth too */
#define MAX_STACK 256
#define MAX_ARGPOS 4096

enum op {
    OP_CONST, OP_DIM, OP_ORIG, OP_ARG, OP_ARGN, OP_BLOCK,
    OP_NEG, OP_NOT,
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
    OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
    OP_MIN, OP_MAX, OP_CEILDIV, OP_ISPOW2, OP_LOG2, OP_POW2, OP_ABS,
    OP_JZ, OP_JNZ, OP_JMP,
};

enum eval_error {
    E_DIV0 = 1, E_MOD0, E_CEILDIV0, E_OVERFLOW, E_LOG2, E_POW2,
    E_NOLAUNCH, E_NOARG, E_NOTSCALAR, E_NONAME, E_NOBLOCK,
};

struct insn {
    uint8_t op;
    uint32_t off; /* in the source text */
    int64_t k;
};

struct gt_expr {
    struct insn *code;
    size_t n, cap;
    unsigned uses;
    int max_dim;
    int depth, max_depth;
    char *text;
    size_t text_off; /* of text within the map's text */
    struct gt_srcmap map;
    char **names; /* arg.NAME as written, for messages; k of OP_ARGN indexes the scope's table */
    int *name_of; /* per OP_ARGN table index: index in names */
    size_t nnames;
};

/* ---- interned names ---- */

int gt_names_intern(struct gt_names *t, const char *s, size_t len)
{
    for (size_t i = 0; i < t->n; i++)
        if (strlen(t->v[i]) == len && memcmp(t->v[i], s, len) == 0)
            return (int)i;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 4;
        char **v = gt_realloc(t->v, cap * sizeof *v);
        if (!v)
            return -1;
        t->v = v;
        t->cap = cap;
    }
    char *c = gt_strndup(s, len);
    if (!c)
        return -1;
    t->v[t->n] = c;
    return (int)t->n++;
}

int gt_names_find(const struct gt_names *t, const char *s)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->v[i], s) == 0)
            return (int)i;
    return -1;
}

void gt_names_clear(struct gt_names *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
    *t = (struct gt_names){0};
}

/* ---- lexer ---- */

enum tok {
    T_END, T_INT, T_NAME, T_LP, T_RP, T_LB, T_RB, T_COMMA, T_QUEST, T_COLON,
    T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PCT, T_NOT,
    T_LT, T_LE, T_GT, T_GE, T_EQ, T_NE, T_AND, T_OR, T_BAD,
};

struct parser {
    const char *s;
    size_t len, pos;          /* pos: start of the current token */
    enum tok t;
    size_t tlen;              /* length of the current token */
    int64_t ival;
    int int_overflow;
    const struct gt_expr_scope *scope;
    struct gt_expr *e;
    struct gt_diags *d;
    int failed;
    int nest;
};

static int name_char(int c, int first)
{
    return c == '_' || isalpha(c) || (!first && isdigit(c));
}

static int lex_int(struct parser *p, size_t i)
{
    const char *s = p->s;
    uint64_t v = 0;
    int base = 10, over = 0;
    size_t j = i;
    if (s[j] == '0' && j + 1 < p->len && (s[j + 1] == 'x' || s[j + 1] == 'X') && j + 2 < p->len &&
        isxdigit((unsigned char)s[j + 2])) {
        base = 16;
        j += 2;
    }
    for (; j < p->len && (base == 16 ? isxdigit((unsigned char)s[j]) : isdigit((unsigned char)s[j])); j++) {
        int dgt = isdigit((unsigned char)s[j]) ? s[j] - '0' : tolower((unsigned char)s[j]) - 'a' + 10;
        if (v > (UINT64_C(0x7fffffffffffffff) - (uint64_t)dgt) / (uint64_t)base)
            over = 1;
        else
            v = v * (uint64_t)base + (uint64_t)dgt;
    }
    p->ival = (int64_t)v;
    p->int_overflow = over;
    return (int)(j - i);
}

/* A name may be dotted (orig.grid.x, arg.n): one token. */
static size_t lex_name(const struct parser *p, size_t i)
{
    size_t j = i;
    for (;;) {
        while (j < p->len && name_char((unsigned char)p->s[j], 0))
            j++;
        if (j + 1 < p->len && p->s[j] == '.' && name_char((unsigned char)p->s[j + 1], 1))
            j++;
        else
            return j - i;
    }
}

static void next(struct parser *p)
{
    size_t i = p->pos + p->tlen;
    while (i < p->len && isspace((unsigned char)p->s[i]))
        i++;
    p->pos = i;
    p->tlen = 1;
    if (i >= p->len) {
        p->t = T_END;
        p->tlen = 0;
        return;
    }
    char c = p->s[i], c2 = i + 1 < p->len ? p->s[i + 1] : 0;
    if (isdigit((unsigned char)c)) {
        p->t = T_INT;
        p->tlen = (size_t)lex_int(p, i);
        return;
    }
    if (name_char((unsigned char)c, 1)) {
        p->t = T_NAME;
        p->tlen = lex_name(p, i);
        return;
    }
    static const char singles[] = "()[],?:+-*/%";
    static const enum tok single_tok[] = {T_LP, T_RP, T_LB, T_RB, T_COMMA, T_QUEST, T_COLON,
                                          T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PCT};
    const char *f = c ? strchr(singles, c) : NULL;
    if (f) {
        p->t = single_tok[f - singles];
        return;
    }
    p->tlen = 2;
    if (c == '<' && c2 == '=') p->t = T_LE;
    else if (c == '>' && c2 == '=') p->t = T_GE;
    else if (c == '=' && c2 == '=') p->t = T_EQ;
    else if (c == '!' && c2 == '=') p->t = T_NE;
    else if (c == '&' && c2 == '&') p->t = T_AND;
    else if (c == '|' && c2 == '|') p->t = T_OR;
    else {
        p->tlen = 1;
        p->t = c == '<' ? T_LT : c == '>' ? T_GT : c == '!' ? T_NOT : T_BAD;
    }
}

/* ---- errors and code emission ---- */

__attribute__((format(printf, 3, 4))) static void error_at(struct parser *p, size_t at, const char *fmt, ...)
{
    if (p->failed)
        return; /* one message per expression: later ones follow from the first */
    p->failed = 1;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gt_diags_add(p->d, gt_srcmap_loc(&p->e->map, p->e->text_off + at), "%s", msg);
}

/* The current token as the user wrote it, for "unexpected ..." messages. */
static const char *tok_desc(const struct parser *p, char *buf, size_t len)
{
    if (p->t == T_END)
        return "end of expression";
    if (p->t == T_BAD) {
        unsigned char c = (unsigned char)p->s[p->pos];
        if (isprint(c))
            snprintf(buf, len, "'%c'", c);
        else
            snprintf(buf, len, "byte 0x%02x", c);
        return buf;
    }
    int n = p->tlen > 40 ? 40 : (int)p->tlen;
    snprintf(buf, len, "'%.*s'", n, p->s + p->pos);
    return buf;
}

static void expected(struct parser *p, const char *what)
{
    char b[64];
    if (p->t == T_BAD && p->s[p->pos] == '=')
        error_at(p, p->pos, "expected %s, found '='; comparison is '=='", what);
    else if (p->t == T_BAD && (p->s[p->pos] == '&' || p->s[p->pos] == '|'))
        error_at(p, p->pos, "expected %s, found '%c'; logical operators are '&&' and '||'", what, p->s[p->pos]);
    else
        error_at(p, p->pos, "expected %s, found %s", what, tok_desc(p, b, sizeof b));
}

static int stack_effect(enum op op)
{
    switch (op) {
    case OP_CONST: case OP_DIM: case OP_ORIG: case OP_ARG: case OP_ARGN: case OP_BLOCK:
        return 1;
    case OP_NEG: case OP_NOT: case OP_ISPOW2: case OP_LOG2: case OP_POW2: case OP_ABS: case OP_JMP:
        return 0;
    default:
        return -1; /* binary operators and conditional jumps pop one */
    }
}

static size_t emit(struct parser *p, enum op op, int64_t k, size_t off)
{
    struct gt_expr *e = p->e;
    if (e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 16;
        struct insn *c = gt_realloc(e->code, cap * sizeof *c);
        if (!c) {
            error_at(p, off, "out of memory");
            return e->n;
        }
        e->code = c;
        e->cap = cap;
    }
    e->code[e->n] = (struct insn){(uint8_t)op, (uint32_t)off, k};
    e->depth += stack_effect(op);
    if (e->depth > e->max_depth)
        e->max_depth = e->depth;
    return e->n++;
}

static void patch(struct parser *p, size_t at)
{
    if (at < p->e->n)
        p->e->code[at].k = (int64_t)p->e->n;
}

/* ---- names ---- */

struct func {
    const char *name;
    enum op op;
    int min, max; /* arguments; max 0: any number */
};

static const struct func funcs[] = {
    {"min", OP_MIN, 1, 0},       {"max", OP_MAX, 1, 0},       {"ceil_div", OP_CEILDIV, 2, 2},
    {"is_pow2", OP_ISPOW2, 1, 1}, {"log2", OP_LOG2, 1, 1},    {"pow2", OP_POW2, 1, 1},
    {"abs", OP_ABS, 1, 1},
};
#define NFUNCS (sizeof funcs / sizeof funcs[0])

static const char *const orig_names[GT_ORIG_N] = {
    "orig.grid.x", "orig.grid.y", "orig.grid.z", "orig.block.x", "orig.block.y", "orig.block.z", "orig.smem",
};
static const char *const block_names[3] = {"block.x", "block.y", "block.z"};

static int name_is(const struct parser *p, size_t at, size_t len, const char *s)
{
    return strlen(s) == len && memcmp(p->s + at, s, len) == 0;
}

static int allowed(struct parser *p, unsigned use, size_t at, size_t len)
{
    if (p->scope->allow & use)
        return 1;
    error_at(p, at, "'%.*s' cannot be used in %s", (int)len, p->s + at, p->scope->what ? p->scope->what : "this expression");
    return 0;
}

/* Everything a name could have meant, for "did you mean". */
static const char *suggest_name(const struct parser *p, const char *word)
{
    const struct gt_expr_scope *sc = p->scope;
    size_t n = 0;
    const char **cand = gt_malloc((sc->ndims + GT_ORIG_N + 3 + NFUNCS) * sizeof *cand);
    if (!cand)
        return NULL;
    for (size_t i = 0; i < sc->ndims; i++)
        cand[n++] = sc->dims[i];
    if (sc->allow & GT_USES_ORIG)
        for (int i = 0; i < GT_ORIG_N; i++)
            cand[n++] = orig_names[i];
    if (sc->allow & GT_USES_BLOCK)
        for (int i = 0; i < 3; i++)
            cand[n++] = block_names[i];
    const char *s = gt_nearest(word, cand, n);
    free(cand);
    return s;
}

static void unknown_name(struct parser *p, size_t at, size_t len)
{
    char word[128];
    snprintf(word, sizeof word, "%.*s", (int)(len < 100 ? len : 100), p->s + at);
    const char *s = suggest_name(p, word);
    if (s)
        error_at(p, at, "unknown name '%s'; did you mean '%s'?", word, s);
    else if (p->scope->ndims)
        error_at(p, at, "unknown name '%s' (not a parameter, knob, orig.* or arg.*)", word);
    else
        error_at(p, at, "unknown name '%s'", word);
}

/* argN (positional), arg.NAME (by the PTX parameter's name). */
static int arg_name(struct parser *p, size_t at, size_t len)
{
    const char *s = p->s + at;
    if (len > 3 && memcmp(s, "arg", 3) == 0 && isdigit((unsigned char)s[3])) {
        int64_t v = 0;
        for (size_t i = 3; i < len; i++) {
            if (!isdigit((unsigned char)s[i]))
                return 0;
            v = v * 10 + (s[i] - '0');
            if (v >= MAX_ARGPOS) {
                error_at(p, at, "argument position %.*s is too large (at most %d)", (int)(len - 3), s + 3, MAX_ARGPOS - 1);
                return 1;
            }
        }
        if (allowed(p, GT_USES_ARG, at, len))
            emit(p, OP_ARG, v, at);
        return 1;
    }
    if (len > 4 && memcmp(s, "arg.", 4) == 0) {
        if (!allowed(p, GT_USES_ARG, at, len))
            return 1;
        if (!p->scope->argnames) {
            error_at(p, at, "arguments by name cannot be used in %s", p->scope->what ? p->scope->what : "this expression");
            return 1;
        }
        if (memchr(s + 4, '.', len - 4)) {
            error_at(p, at, "'%.*s' is not an argument name (one name after 'arg.')", (int)len, s);
            return 1;
        }
        int k = gt_names_intern(p->scope->argnames, s + 4, len - 4);
        struct gt_expr *e = p->e;
        char **nv = gt_realloc(e->names, (e->nnames + 1) * sizeof *nv);
        int *no = nv ? gt_realloc(e->name_of, (e->nnames + 1) * sizeof *no) : NULL;
        if (nv)
            e->names = nv;
        if (no)
            e->name_of = no;
        if (k < 0 || !nv || !no || !(nv[e->nnames] = gt_strndup(s + 4, len - 4))) {
            error_at(p, at, "out of memory");
            return 1;
        }
        no[e->nnames++] = k;
        emit(p, OP_ARGN, k, at);
        return 1;
    }
    return 0;
}

static int builtin_name(struct parser *p, size_t at, size_t len)
{
    for (int i = 0; i < GT_ORIG_N; i++)
        if (name_is(p, at, len, orig_names[i])) {
            if (allowed(p, GT_USES_ORIG, at, len))
                emit(p, OP_ORIG, i, at);
            return 1;
        }
    for (int i = 0; i < 3; i++)
        if (name_is(p, at, len, block_names[i])) {
            if (allowed(p, GT_USES_BLOCK, at, len))
                emit(p, OP_BLOCK, i, at);
            return 1;
        }
    if (name_is(p, at, len, "arg")) {
        error_at(p, at, "expected '[POSITION]' or '.NAME' after 'arg'");
        return 1;
    }
    if (len > 5 && (memcmp(p->s + at, "orig.", 5) == 0 || (len > 6 && memcmp(p->s + at, "block.", 6) == 0))) {
        const char *hint = memcmp(p->s + at, "orig.", 5) == 0
                               ? "orig.grid.x|y|z, orig.block.x|y|z or orig.smem"
                               : "block.x, block.y or block.z";
        error_at(p, at, "unknown name '%.*s'; expected %s", (int)(len > 60 ? 60 : len), p->s + at, hint);
        return 1;
    }
    return arg_name(p, at, len);
}

static void name_ref(struct parser *p, size_t at, size_t len)
{
    const struct gt_expr_scope *sc = p->scope;
    for (size_t i = 0; i < sc->ndims; i++)
        if (name_is(p, at, len, sc->dims[i])) {
            if (sc->opaque && sc->opaque[i])
                error_at(p, at, "'%s' has symbolic values and cannot be used in an expression", sc->dims[i]);
            else if (allowed(p, GT_USES_DIM, at, len)) {
                emit(p, OP_DIM, (int64_t)i, at);
                if ((int)i > p->e->max_dim)
                    p->e->max_dim = (int)i;
            }
            return;
        }
    if (!builtin_name(p, at, len))
        unknown_name(p, at, len);
}

/* ---- grammar ---- */

static void parse_expr(struct parser *p);

static int accept(struct parser *p, enum tok t)
{
    if (p->t != t)
        return 0;
    next(p);
    return 1;
}

static const struct func *find_func(const struct parser *p, size_t at, size_t len)
{
    for (size_t i = 0; i < NFUNCS; i++)
        if (name_is(p, at, len, funcs[i].name))
            return &funcs[i];
    return NULL;
}

static void unknown_func(struct parser *p, size_t at, size_t len)
{
    char word[128];
    snprintf(word, sizeof word, "%.*s", (int)(len < 100 ? len : 100), p->s + at);
    const char *names[NFUNCS];
    for (size_t i = 0; i < NFUNCS; i++)
        names[i] = funcs[i].name;
    const char *s = gt_nearest(word, names, NFUNCS);
    if (s)
        error_at(p, at, "unknown function '%s'; did you mean '%s'?", word, s);
    else
        error_at(p, at, "unknown function '%s' (functions: min, max, ceil_div, is_pow2, log2, pow2, abs)", word);
}

/* f(a, b, ...): min and max fold pairwise so the stack stays shallow. */
static void parse_call(struct parser *p, size_t at, size_t len)
{
    const struct func *f = find_func(p, at, len);
    if (!f) {
        unknown_func(p, at, len);
        return;
    }
    size_t lp = p->pos;
    next(p); /* '(' */
    int nargs = 0;
    if (p->t != T_RP) {
        for (;;) {
            parse_expr(p);
            if (p->failed)
                return;
            nargs++;
            if (nargs > 1 && (f->op == OP_MIN || f->op == OP_MAX))
                emit(p, f->op, 0, at);
            if (!accept(p, T_COMMA))
                break;
        }
    }
    if (p->t != T_RP) {
        char what[96];
        snprintf(what, sizeof what, "',' or ')' after argument %d of '%s' (its '(' is at column %d)", nargs, f->name,
                 gt_srcmap_loc(&p->e->map, p->e->text_off + lp).col);
        expected(p, what);
        return;
    }
    if (nargs < f->min || (f->max && nargs > f->max)) {
        if (f->min == f->max)
            error_at(p, at, "'%s' takes %d argument%s, not %d", f->name, f->min, f->min == 1 ? "" : "s", nargs);
        else
            error_at(p, at, "'%s' takes at least %d argument%s", f->name, f->min, f->min == 1 ? "" : "s");
        return;
    }
    next(p);
    if (f->op != OP_MIN && f->op != OP_MAX)
        emit(p, f->op, 0, at);
}

/* arg[INT] */
static void parse_arg_index(struct parser *p, size_t at)
{
    next(p); /* '[' */
    if (p->t != T_INT) {
        expected(p, "an argument position (a number) after 'arg['");
        return;
    }
    if (p->int_overflow || p->ival >= MAX_ARGPOS) {
        error_at(p, p->pos, "argument position is too large (at most %d)", MAX_ARGPOS - 1);
        return;
    }
    int64_t k = p->ival;
    next(p);
    if (p->t != T_RB) {
        expected(p, "']' after the argument position");
        return;
    }
    next(p);
    if (allowed(p, GT_USES_ARG, at, 3))
        emit(p, OP_ARG, k, at);
}

static void parse_primary(struct parser *p)
{
    size_t at = p->pos, len = p->tlen;
    switch (p->t) {
    case T_INT:
        if (p->int_overflow) {
            error_at(p, at, "number too large (at most 9223372036854775807)");
            return;
        }
        emit(p, OP_CONST, p->ival, at);
        next(p);
        if (p->t == T_NAME)
            expected(p, "an operator after the number");
        return;
    case T_NAME:
        next(p);
        if (p->t == T_LP)
            parse_call(p, at, len);
        else if (p->t == T_LB && name_is(p, at, len, "arg"))
            parse_arg_index(p, at);
        else
            name_ref(p, at, len);
        return;
    case T_LP: {
        next(p);
        parse_expr(p);
        if (p->failed)
            return;
        if (p->t != T_RP) {
            char what[64];
            snprintf(what, sizeof what, "')' to close the '(' at column %d", gt_srcmap_loc(&p->e->map, p->e->text_off + at).col);
            expected(p, what);
            return;
        }
        next(p);
        return;
    }
    default:
        expected(p, "a number, a name or '('");
    }
}

static void parse_unary(struct parser *p)
{
    if (++p->nest > MAX_NEST) {
        error_at(p, p->pos, "expression nested too deeply (more than %d levels)", MAX_NEST);
        return;
    }
    size_t at = p->pos;
    if (accept(p, T_MINUS)) {
        parse_unary(p);
        emit(p, OP_NEG, 0, at);
    } else if (accept(p, T_NOT)) {
        parse_unary(p);
        emit(p, OP_NOT, 0, at);
    } else if (accept(p, T_PLUS)) {
        parse_unary(p);
    } else {
        parse_primary(p);
    }
    p->nest--;
}

/* Binary levels, loosest last; each is left-associative. */
struct level {
    enum tok t[4];
    enum op op[4];
};

static const struct level levels[] = {
    {{T_STAR, T_SLASH, T_PCT}, {OP_MUL, OP_DIV, OP_MOD}},
    {{T_PLUS, T_MINUS}, {OP_ADD, OP_SUB}},
    {{T_LT, T_LE, T_GT, T_GE}, {OP_LT, OP_LE, OP_GT, OP_GE}},
    {{T_EQ, T_NE}, {OP_EQ, OP_NE}},
};

static void parse_binary(struct parser *p, int lvl)
{
    if (lvl < 0) {
        parse_unary(p);
        return;
    }
    parse_binary(p, lvl - 1);
    for (;;) {
        const struct level *L = &levels[lvl];
        int i = 0;
        while (i < 4 && L->t[i] != T_END && L->t[i] != p->t)
            i++;
        if (i == 4 || L->t[i] == T_END || p->failed)
            return;
        size_t at = p->pos;
        next(p);
        parse_binary(p, lvl - 1);
        emit(p, L->op[i], 0, at);
    }
}

/* Jumps still to be aimed are chained through their k fields (-1 ends the
 * chain), so a chain of && or || of any length needs no bookkeeping. */
static void patch_chain(struct parser *p, int64_t head)
{
    if (p->failed)
        return;
    while (head >= 0) {
        int64_t next_jump = p->e->code[head].k;
        p->e->code[head].k = (int64_t)p->e->n;
        head = next_jump;
    }
}

/* a && b && c: any zero jumps to the result 0, else 1; || likewise with 1. */
static void parse_logic(struct parser *p, enum tok t)
{
    if (t == T_OR)
        parse_logic(p, T_AND);
    else
        parse_binary(p, 3);
    if (p->t != t || p->failed)
        return;
    enum op jump = t == T_AND ? OP_JZ : OP_JNZ;
    int64_t decided = t == T_OR, chain = -1;
    while (p->t == t && !p->failed) {
        chain = (int64_t)emit(p, jump, chain, p->pos);
        next(p);
        if (t == T_OR)
            parse_logic(p, T_AND);
        else
            parse_binary(p, 3);
    }
    if (p->failed)
        return;
    chain = (int64_t)emit(p, jump, chain, p->pos);
    emit(p, OP_CONST, !decided, p->pos);
    size_t end = emit(p, OP_JMP, 0, p->pos);
    patch_chain(p, chain);
    p->e->depth--; /* the two constants are alternatives */
    emit(p, OP_CONST, decided, p->pos);
    patch(p, end);
}

static void parse_cond(struct parser *p)
{
    parse_logic(p, T_OR);
    if (p->t != T_QUEST || p->failed)
        return;
    size_t q = p->pos;
    next(p);
    size_t jz = emit(p, OP_JZ, 0, q);
    parse_expr(p);
    if (p->failed)
        return;
    if (p->t != T_COLON) {
        char what[64];
        snprintf(what, sizeof what, "':' for the '?' at column %d", gt_srcmap_loc(&p->e->map, p->e->text_off + q).col);
        expected(p, what);
        return;
    }
    next(p);
    size_t jmp = emit(p, OP_JMP, 0, q);
    patch(p, jz);
    p->e->depth--; /* the branches are alternatives */
    parse_cond(p);
    patch(p, jmp);
}

static void parse_expr(struct parser *p)
{
    if (++p->nest > MAX_NEST) {
        error_at(p, p->pos, "expression nested too deeply (more than %d levels)", MAX_NEST);
        return;
    }
    parse_cond(p);
    p->nest--;
}

int gt_expr_compile(const char *text, size_t len, size_t off, const struct gt_srcmap *map,
                    const struct gt_expr_scope *scope, struct gt_expr **out, struct gt_diags *d)
{
    *out = NULL;
    struct gt_expr *e = gt_calloc(1, sizeof *e);
    if (!e)
        return -1;
    e->max_dim = -1;
    e->text_off = off;
    e->text = gt_strndup(text, len);
    struct gt_srcmap none = {NULL, NULL, 0};
    if (!e->text || gt_srcmap_copy(&e->map, map ? map : &none) < 0) {
        gt_expr_free(e);
        return -1;
    }
    struct parser p = {.s = e->text, .len = strlen(e->text), .scope = scope, .e = e, .d = d};
    if (p.len != len) {
        size_t at = p.len;
        p.pos = at;
        error_at(&p, at, "NUL byte in expression");
        gt_expr_free(e);
        return -1;
    }
    p.tlen = 0;
    next(&p);
    if (p.t == T_END)
        error_at(&p, p.pos, "expected an expression");
    else
        parse_expr(&p);
    if (!p.failed && p.t != T_END) {
        char b[64];
        if (p.t == T_RP)
            error_at(&p, p.pos, "unmatched ')'");
        else if (p.t == T_BAD && p.s[p.pos] == '=')
            error_at(&p, p.pos, "unexpected '='; comparison is '=='");
        else if (p.t == T_BAD && (p.s[p.pos] == '&' || p.s[p.pos] == '|'))
            error_at(&p, p.pos, "unexpected '%c'; logical operators are '&&' and '||'", p.s[p.pos]);
        else
            error_at(&p, p.pos, "unexpected %s after the expression; expected an operator", tok_desc(&p, b, sizeof b));
    }
    if (!p.failed && e->max_depth > MAX_STACK)
        error_at(&p, 0, "expression too large");
    if (p.failed) {
        gt_expr_free(e);
        return -1;
    }
    for (size_t i = 0; i < e->n; i++) {
        enum op op = e->code[i].op;
        e->uses |= op == OP_DIM ? GT_USES_DIM : op == OP_ORIG ? GT_USES_ORIG
                   : op == OP_ARG || op == OP_ARGN ? GT_USES_ARG : op == OP_BLOCK ? GT_USES_BLOCK : 0;
    }
    *out = e;
    return 0;
}

void gt_expr_free(struct gt_expr *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->nnames; i++)
        free(e->names[i]);
    free(e->names);
    free(e->name_of);
    free(e->code);
    free(e->text);
    gt_srcmap_clear(&e->map);
    free(e);
}

unsigned gt_expr_uses(const struct gt_expr *e) { return e->uses; }
int gt_expr_max_dim(const struct gt_expr *e) { return e->max_dim; }
const char *gt_expr_text(const struct gt_expr *e) { return e->text; }
struct gt_loc gt_expr_loc(const struct gt_expr *e) { return gt_srcmap_loc(&e->map, e->text_off); }

/* ---- evaluation ---- */

static int fail(struct gt_expr_err *err, int code, size_t pc, int64_t a)
{
    if (err)
        *err = (struct gt_expr_err){code, (uint32_t)pc, a};
    return -1;
}

static int load_arg(const struct gt_expr_env *env, int64_t pos, int64_t *v, int *code)
{
    const struct gt_launch *l = env->launch;
    if (!l) {
        *code = E_NOLAUNCH;
        return -1;
    }
    if (pos >= l->nargs) {
        *code = E_NOARG;
        return -1;
    }
    if (!l->args || (l->arg_ok && !l->arg_ok[pos])) {
        *code = E_NOTSCALAR;
        return -1;
    }
    *v = l->args[pos];
    return 0;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) == (b < 0)))
        q++;
    return q;
}

static int binary(enum op op, int64_t a, int64_t b, int64_t *r, int *code)
{
    switch (op) {
    case OP_ADD: if (__builtin_add_overflow(a, b, r)) goto over; return 0;
    case OP_SUB: if (__builtin_sub_overflow(a, b, r)) goto over; return 0;
    case OP_MUL: if (__builtin_mul_overflow(a, b, r)) goto over; return 0;
    case OP_DIV:
    case OP_MOD:
    case OP_CEILDIV:
        if (b == 0) {
            *code = op == OP_DIV ? E_DIV0 : op == OP_MOD ? E_MOD0 : E_CEILDIV0;
            return -1;
        }
        if (a == INT64_MIN && b == -1) {
            if (op == OP_MOD) { *r = 0; return 0; }
            goto over;
        }
        *r = op == OP_DIV ? a / b : op == OP_MOD ? a % b : ceil_div(a, b);
        return 0;
    case OP_LT: *r = a < b; return 0;
    case OP_LE: *r = a <= b; return 0;
    case OP_GT: *r = a > b; return 0;
    case OP_GE: *r = a >= b; return 0;
    case OP_EQ: *r = a == b; return 0;
    case OP_NE: *r = a != b; return 0;
    case OP_MIN: *r = a < b ? a : b; return 0;
    case OP_MAX: *r = a > b ? a : b; return 0;
    default: break;
    }
over:
    *code = E_OVERFLOW;
    return -1;
}

static int unary(enum op op, int64_t a, int64_t *r, int *code)
{
    switch (op) {
    case OP_NEG:
    case OP_ABS:
        if (a == INT64_MIN) {
            *code = E_OVERFLOW;
            return -1;
        }
        *r = op == OP_NEG || a < 0 ? -a : a;
        return 0;
    case OP_NOT: *r = !a; return 0;
    case OP_ISPOW2: *r = a > 0 && (a & (a - 1)) == 0; return 0;
    case OP_LOG2:
        if (a <= 0) {
            *code = E_LOG2;
            return -1;
        }
        *r = 63 - __builtin_clzll((unsigned long long)a);
        return 0;
    case OP_POW2:
        if (a < 0 || a > 62) {
            *code = E_POW2;
            return -1;
        }
        *r = INT64_C(1) << a;
        return 0;
    default:
        return -1;
    }
}

int gt_expr_eval(const struct gt_expr *e, const struct gt_expr_env *env, int64_t *out, struct gt_expr_err *err)
{
    int64_t st[MAX_STACK];
    int sp = 0, code = 0;
    const struct insn *c = e->code;
    for (size_t pc = 0; pc < e->n; pc++) {
        const struct insn *in = &c[pc];
        switch ((enum op)in->op) {
        case OP_CONST: st[sp++] = in->k; break;
        case OP_DIM: st[sp++] = env->dims[in->k]; break;
        case OP_ORIG:
            if (!env->launch)
                return fail(err, E_NOLAUNCH, pc, 0);
            st[sp++] = env->launch->orig[in->k];
            break;
        case OP_BLOCK:
            if (!env->block)
                return fail(err, E_NOBLOCK, pc, 0);
            st[sp++] = env->block[in->k];
            break;
        case OP_ARG:
            if (load_arg(env, in->k, &st[sp], &code) < 0)
                return fail(err, code, pc, env->launch ? env->launch->nargs : 0);
            sp++;
            break;
        case OP_ARGN: {
            const struct gt_launch *l = env->launch;
            if (!l)
                return fail(err, E_NOLAUNCH, pc, 0);
            int pos = (size_t)in->k < l->nargpos && l->argpos ? l->argpos[in->k] : -1;
            if (pos < 0)
                return fail(err, E_NONAME, pc, 0);
            if (load_arg(env, pos, &st[sp], &code) < 0)
                return fail(err, code, pc, l->nargs);
            sp++;
            break;
        }
        case OP_JZ:
            if (!st[--sp])
                pc = (size_t)in->k - 1;
            break;
        case OP_JNZ:
            if (st[--sp])
                pc = (size_t)in->k - 1;
            break;
        case OP_JMP: pc = (size_t)in->k - 1; break;
        case OP_NEG: case OP_NOT: case OP_ISPOW2: case OP_LOG2: case OP_POW2: case OP_ABS:
            if (unary(in->op, st[sp - 1], &st[sp - 1], &code) < 0)
                return fail(err, code, pc, st[sp - 1]);
            break;
        default:
            if (binary(in->op, st[sp - 2], st[sp - 1], &st[sp - 2], &code) < 0)
                return fail(err, code, pc, 0);
            sp--;
        }
    }
    *out = st[sp - 1];
    return 0;
}

static const char *op_text(enum op op)
{
    switch (op) {
    case OP_ADD: return "'+'";
    case OP_SUB: return "'-'";
    case OP_MUL: return "'*'";
    case OP_NEG: return "unary '-'";
    case OP_ABS: return "'abs'";
    case OP_CEILDIV: return "'ceil_div'";
    default: return "'/'";
    }
}

/* The name an OP_ARG or OP_ARGN instruction was written as. */
static void arg_ref_text(const struct gt_expr *e, const struct insn *in, char *buf, size_t len)
{
    if (in->op == OP_ARGN) {
        for (size_t i = 0; i < e->nnames; i++)
            if (e->name_of[i] == in->k) {
                snprintf(buf, len, "arg.%s", e->names[i]);
                return;
            }
    }
    snprintf(buf, len, "arg[%lld]", (long long)in->k);
}

int gt_expr_error_text(const struct gt_expr *e, const struct gt_expr_err *err, char *buf, size_t len)
{
    const struct insn *in = err->pc < e->n ? &e->code[err->pc] : NULL;
    char ref[128] = "";
    if (in && (in->op == OP_ARG || in->op == OP_ARGN))
        arg_ref_text(e, in, ref, sizeof ref);
    switch (err->code) {
    case E_DIV0: return snprintf(buf, len, "division by zero");
    case E_MOD0: return snprintf(buf, len, "remainder of a division by zero");
    case E_CEILDIV0: return snprintf(buf, len, "ceil_div by zero");
    case E_OVERFLOW: return snprintf(buf, len, "integer overflow in %s", in ? op_text(in->op) : "expression");
    case E_LOG2: return snprintf(buf, len, "log2 of %lld (needs a positive number)", (long long)err->a);
    case E_POW2: return snprintf(buf, len, "pow2 of %lld (needs 0 to 62)", (long long)err->a);
    case E_NOLAUNCH:
        if (in && in->op == OP_ORIG)
            return snprintf(buf, len, "'%s' needs a launch", orig_names[in->k]);
        return snprintf(buf, len, "'%s' needs a launch", ref);
    case E_NOARG:
        return snprintf(buf, len, "%s: the kernel has %lld parameter%s", ref, (long long)err->a, err->a == 1 ? "" : "s");
    case E_NOTSCALAR:
        return snprintf(buf, len, "%s is not a scalar integer argument", ref);
    case E_NONAME: return snprintf(buf, len, "%s: the kernel has no parameter of that name", ref);
    case E_NOBLOCK: return snprintf(buf, len, "block.* is not known yet here");
    default: return snprintf(buf, len, "evaluation failed");
    }
}

struct gt_loc gt_expr_error_loc(const struct gt_expr *e, const struct gt_expr_err *err)
{
    size_t off = err->pc < e->n ? e->code[err->pc].off : 0;
    return gt_srcmap_loc(&e->map, e->text_off + off);
}
