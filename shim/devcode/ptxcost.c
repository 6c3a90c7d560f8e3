/* ptxcost.c: a kernel's dynamic instruction count and blocking regions,
 * estimated from its PTX, for static Pareto pruning (Ryoo et al., CGO 2008).
 *
 * The entry's body is decoded once into an array of instructions whose
 * operands are dense slots (registers, special registers and immediates
 * alike), then run for thread (0,0,0) of block (0,0,0) alone.  A slot holds
 * a 64-bit value or nothing known: integer and predicate arithmetic on
 * immediates, the launch's parameter values and its geometry is exact, so
 * a loop whose trip count depends on nothing else runs its true number of
 * times; whatever comes from memory or floating point is unknown.  A branch
 * on an unknown predicate is taken as not taken and counted as a guess; an
 * instruction under an unknown guard runs but leaves its destinations
 * unknown.  Calls are not followed.
 *
 * Regions follow Ryoo's blocking model adapted to a scoreboarded machine: a
 * global load does not stall where it issues but where its result is first
 * read, so a region ends at the first instruction that reads a register
 * loaded from global memory since the last region ended, or at a block
 * barrier or an asynchronous wait.
 *
 * The text is untrusted: reads are bounded by the function's extent, and a
 * statement not understood still counts, reads the registers it names and
 * leaves its destination unknown. */
#include "ptxcost.h"
#include "alloc.h"
#include "arena.h"
#include "errmsg.h"
#include "ptx.h"
#include "ptxlex.h"
#include "strtab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_STEPS 200000000L

/* ---- growable arrays ---- */

#define VEC(T) struct { T *v; size_t n, cap; }

/* Indices into every array are 32-bit. */
static int grow(void **v, size_t *cap, size_t need, size_t elem)
{
    return need > UINT32_MAX ? -1 : gt_grow(v, cap, need, elem);
}

#define PUSH(D, vec, item) \
    (grow((void **)&(vec).v, &(vec).cap, (vec).n + 1, sizeof *(vec).v) ? ((D)->oom = 1, -1) : ((vec).v[(vec).n++] = (item), 0))

/* ---- tokens (ptxlex.c) ---- */

static int is_punct(const struct gt_ptx_tok *t, char c)
{
    return t->kind == GT_PTX_PUNCT && t->s[0] == c;
}

static int is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(s, word, n) == 0;
}

/* An integer literal: decimal, 0x hexadecimal, 0b binary or 0 octal, with
 * an optional U.  Floating-point ones (0f3F800000) and overflow are not. */
static int integer(const struct gt_ptx_tok *t, uint64_t *v)
{
    const char *s = t->s;
    size_t n = t->n, i = 0;
    unsigned base = 10;
    if (n > 1 && (s[n - 1] == 'U' || s[n - 1] == 'u'))
        n--;
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X' || s[1] == 'b' || s[1] == 'B')) {
        base = s[1] == 'x' || s[1] == 'X' ? 16 : 2;
        i = 2;
    } else if (n > 1 && s[0] == '0') {
        base = 8;
        i = 1;
    }
    uint64_t x = 0;
    for (; i < n; i++) {
        char c = s[i];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                   : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 99;
        if (d >= base || x > (UINT64_MAX - d) / base)
            return 0;
        x = x * base + d;
    }
    *v = x;
    return 1;
}

/* ---- names (strtab.c) ---- */

static int table_get(struct gt_strtab *t, const char *s, size_t n, uint32_t *val)
{
    return gt_strtab_get(t, s, n, gt_strtab_hash(s, n), val);
}

static int table_put(struct gt_strtab *t, const char *s, size_t n, uint32_t val)
{
    return gt_strtab_put(t, s, n, gt_strtab_hash(s, n), val);
}

/* ---- instructions ---- */

enum op {
    OP_ANY,     /* not evaluated: its destinations become unknown */
    OP_COPY,    /* destination i takes source i: ld.param */
    OP_BRA, OP_END, OP_SETP,
    OP_MOV, OP_ADD, OP_SUB, OP_MUL, OP_MAD, OP_MUL24, OP_MAD24, OP_SHL, OP_SHR, OP_AND, OP_OR, OP_XOR,
    OP_NOT, OP_NEG, OP_ABS, OP_MIN, OP_MAX, OP_DIV, OP_REM, OP_CVT, OP_SELP,
};

enum { M_LO, M_HI, M_WIDE };
enum { CMP_NONE, CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_LO, CMP_LS, CMP_HI, CMP_HS };
enum { B_NONE, B_AND, B_OR, B_XOR };

enum {
    F_GNEG = 1,   /* the guard is @!p */
    F_NEGC = 2,   /* setp's combining predicate is !c */
    F_LOAD = 4,   /* destinations are pending until first read */
    F_BLOCK = 8,  /* a barrier or a wait */
};

struct insn {
    uint8_t op, flags;
    uint8_t w, sgn;     /* of the sources, as the type says */
    uint8_t dw, dsgn;   /* of the destination */
    uint8_t mode;       /* M_* of mul and mad, CMP_* of setp */
    uint8_t boolop;     /* B_* of setp */
    uint32_t guard;     /* slot of the guard predicate, 0 for none */
    uint32_t first;     /* operands in ops: nd destinations, then ns sources */
    uint32_t nd, ns;
    uint32_t target;    /* a branch's instruction index */
};

/* Slots below `first_reg` are read-only: a write to one goes to the sink. */
enum { SLOT_SINK, SLOT_UNKNOWN };

struct slot {
    uint64_t v;
    uint8_t known;
};

struct fixup {
    uint32_t insn;
    const char *s;
    size_t n;
};

struct dec {
    struct gt_ptx_body body;
    const struct gt_ptx_func *f;
    const struct gt_ptxcost_launch *l;
    struct gt_strtab regs, labels;
    VEC(struct insn) insns;
    VEC(uint32_t) ops;
    VEC(struct slot) slots;
    const struct gt_ptx_tok *toks;   /* the current statement's operands */
    VEC(struct fixup) fixups;
    uint32_t first_reg;
    int oom;
};

/* What the dotted parts of an opcode say. */
enum { P_ARRIVE = 1, P_WARP = 2, P_RED = 4, P_WAIT = 8, P_OTHER = 16 };
enum { SP_NONE, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_PARAM };

struct opc {
    const char *base;
    size_t bn;
    unsigned ntypes;
    uint8_t w[2], sgn[2];   /* integer types in order */
    uint8_t cmp, mode, boolop, space;
    unsigned parts;         /* P_* */
};

static uint64_t ext(uint64_t v, unsigned w, int sgn)
{
    if (w >= 64)
        return v;
    uint64_t m = ((uint64_t)1 << w) - 1;
    v &= m;
    if (sgn && ((v >> (w - 1)) & 1))
        v |= ~m;
    return v;
}

static uint32_t new_slot(struct dec *D, uint64_t v, int known)
{
    struct slot s = {v, (uint8_t)known};
    return PUSH(D, D->slots, s) ? SLOT_UNKNOWN : (uint32_t)(D->slots.n - 1);
}

/* Registers by name, on first use: scopes are ignored, and names that are
 * variables, parameters or functions become registers never written. */
static uint32_t reg_slot(struct dec *D, const struct gt_ptx_tok *t)
{
    uint32_t v;
    if (table_get(&D->regs, t->s, t->n, &v))
        return v;
    v = new_slot(D, 0, 0);
    if (v != SLOT_UNKNOWN && table_put(&D->regs, t->s, t->n, v) != 0)
        D->oom = 1;
    return v;
}

static uint32_t dest_slot(struct dec *D, const struct gt_ptx_tok *t)
{
    uint32_t s = reg_slot(D, t);
    return s < D->first_reg ? SLOT_SINK : s;
}

static uint32_t imm_slot(struct dec *D, const struct gt_ptx_tok *t, int negate)
{
    uint64_t v;
    if (!integer(t, &v))
        return SLOT_UNKNOWN;
    return new_slot(D, negate ? 0 - v : v, 1);
}

/* The special registers whose value thread 0 of block 0 knows. */
static int add_specials(struct dec *D)
{
    const unsigned *b = D->l->block, *g = D->l->grid;
    const struct { const char *name; uint64_t v; } sp[] = {
        {"%tid.x", 0},      {"%tid.y", 0},      {"%tid.z", 0},      {"%ntid.x", b[0]},   {"%ntid.y", b[1]},
        {"%ntid.z", b[2]},  {"%ctaid.x", 0},    {"%ctaid.y", 0},    {"%ctaid.z", 0},     {"%nctaid.x", g[0]},
        {"%nctaid.y", g[1]}, {"%nctaid.z", g[2]}, {"%laneid", 0},   {"%warpid", 0},      {"WARP_SZ", 32},
    };
    new_slot(D, 0, 0); /* SLOT_SINK */
    new_slot(D, 0, 0); /* SLOT_UNKNOWN */
    for (unsigned i = 0; i < sizeof sp / sizeof *sp; i++) {
        uint32_t s = new_slot(D, sp[i].v, 1);
        if (D->oom || table_put(&D->regs, sp[i].name, strlen(sp[i].name), s) != 0)
            return -1;
    }
    D->first_reg = (uint32_t)D->slots.n;
    return 0;
}

/* ---- opcodes ---- */

static void parse_part(struct opc *o, const char *p, size_t n)
{
    static const struct { const char *name; uint8_t w, sgn; } types[] = {
        {"pred", 1, 0}, {"b8", 8, 0},   {"u8", 8, 0},   {"s8", 8, 1},   {"b16", 16, 0}, {"u16", 16, 0}, {"s16", 16, 1},
        {"b32", 32, 0}, {"u32", 32, 0}, {"s32", 32, 1}, {"b64", 64, 0}, {"u64", 64, 0}, {"s64", 64, 1},
    };
    static const char *const cmps[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"};
    static const char *const bools[] = {"and", "or", "xor"};
    static const struct { const char *name; unsigned part; } named[] = {
        {"arrive", P_ARRIVE}, {"warp", P_WARP},      {"red", P_RED},           {"wait_group", P_WAIT},
        {"wait_all", P_WAIT}, {"try_wait", P_WAIT},  {"test_wait", P_WAIT},
    };
    static const char *const spaces[] = {"global", "shared", "local", "const", "param"};
    for (unsigned i = 0; i < sizeof types / sizeof *types; i++) {
        if (is(p, n, types[i].name)) {
            if (o->ntypes == 2) {
                o->parts |= P_OTHER;
            } else {
                o->w[o->ntypes] = types[i].w;
                o->sgn[o->ntypes++] = types[i].sgn;
            }
            return;
        }
    }
    for (unsigned i = 0; i < sizeof cmps / sizeof *cmps; i++) {
        if (is(p, n, cmps[i])) {
            o->cmp = (uint8_t)(CMP_EQ + i);
            if (is(p, n, "hi"))
                o->mode = M_HI; /* mul.hi; lo is the default */
            return;
        }
    }
    for (unsigned i = 0; i < sizeof bools / sizeof *bools; i++) {
        if (is(p, n, bools[i])) {
            o->boolop = (uint8_t)(B_AND + i);
            return;
        }
    }
    for (unsigned i = 0; i < sizeof spaces / sizeof *spaces; i++) {
        size_t k = strlen(spaces[i]);
        if (n >= k && memcmp(p, spaces[i], k) == 0 && (n == k || p[k] == ':')) {
            o->space = (uint8_t)(SP_GLOBAL + i);
            return;
        }
    }
    if (is(p, n, "wide"))
        o->mode = M_WIDE;
    else if (!is(p, n, "cc") && !is(p, n, "to") && !is(p, n, "uni") && !is(p, n, "v2") && !is(p, n, "v4") &&
             !is(p, n, "v8"))
        o->parts |= P_OTHER;
    for (unsigned i = 0; i < sizeof named / sizeof *named; i++)
        if (is(p, n, named[i].name))
            o->parts |= named[i].part;
}

static void parse_opcode(const struct gt_ptx_tok *t, struct opc *o)
{
    memset(o, 0, sizeof *o);
    o->base = t->s;
    size_t i = 0;
    while (i < t->n && t->s[i] != '.')
        i++;
    o->bn = i;
    while (i < t->n) {
        size_t j = i + 1;
        while (j < t->n && t->s[j] != '.')
            j++;
        parse_part(o, t->s + i + 1, j - i - 1);
        i = j;
    }
}

static int base_is(const struct opc *o, const char *name)
{
    return is(o->base, o->bn, name);
}

/* ---- statements ---- */

static const struct gt_ptx_tok *tok_at(const struct dec *D, const struct gt_ptx_range *r, uint32_t i)
{
    return &D->toks[r->b + i];
}

static uint32_t range_len(const struct gt_ptx_range *r)
{
    return r->e - r->b;
}

/* Every name in an operand as a slot: what it reads, or what it writes. */
static void push_words(struct dec *D, const struct gt_ptx_range *r, int dest)
{
    for (uint32_t i = r->b; i < r->e; i++) {
        const struct gt_ptx_tok *t = &D->toks[i];
        if (t->kind == GT_PTX_WORD)
            PUSH(D, D->ops, dest ? dest_slot(D, t) : reg_slot(D, t));
    }
}

/* A register or an immediate, or !p where `neg` may be set: 0 with its slot. */
static int simple(struct dec *D, const struct gt_ptx_range *r, uint32_t *slot, int *neg)
{
    uint32_t n = range_len(r);
    if (!n)
        return -1;
    const struct gt_ptx_tok *t = tok_at(D, r, 0);
    *neg = n == 2 && is_punct(t, '!') && t[1].kind == GT_PTX_WORD;
    if (*neg || (n == 2 && is_punct(t, '-') && t[1].kind == GT_PTX_NUM)) {
        *slot = *neg ? reg_slot(D, t + 1) : imm_slot(D, t + 1, 1);
        return 0;
    }
    if (n != 1 || (t->kind != GT_PTX_WORD && t->kind != GT_PTX_NUM))
        return -1;
    *slot = t->kind == GT_PTX_WORD ? reg_slot(D, t) : imm_slot(D, t, 0);
    return 0;
}

/* Destinations `d`, `p|q` (when pipe) or `{a, b, ...}` (when vec). */
static int push_dests(struct dec *D, const struct gt_ptx_range *r, int pipe, int vec)
{
    uint32_t n = range_len(r);
    if (!n)
        return -1;
    const struct gt_ptx_tok *t = tok_at(D, r, 0);
    if (n == 1 && t->kind == GT_PTX_WORD)
        return PUSH(D, D->ops, dest_slot(D, t));
    if (pipe && n == 3 && t[0].kind == GT_PTX_WORD && is_punct(&t[1], '|') && t[2].kind == GT_PTX_WORD) {
        PUSH(D, D->ops, dest_slot(D, &t[0]));
        return PUSH(D, D->ops, dest_slot(D, &t[2]));
    }
    if (!vec || n < 3 || !is_punct(&t[0], '{') || !is_punct(&t[n - 1], '}'))
        return -1;
    for (uint32_t i = 1; i < n - 1; i++)
        if (i % 2 ? t[i].kind != GT_PTX_WORD : !is_punct(&t[i], ','))
            return -1;
    for (uint32_t i = 1; i < n - 1; i += 2)
        PUSH(D, D->ops, dest_slot(D, &t[i]));
    return 0;
}

/* An instruction not evaluated: it reads the names after its destination. */
static void decode_any(struct dec *D, struct insn *I, const struct opc *o, const struct gt_ptx_range *r, unsigned nr)
{
    D->ops.n = I->first;
    I->op = OP_ANY;
    I->flags &= F_GNEG;
    const struct gt_ptx_tok *first = nr && range_len(&r[0]) ? tok_at(D, &r[0], 0) : NULL;
    int has_dest = first && (first->kind == GT_PTX_WORD || is_punct(first, '{'));
    if (base_is(o, "call"))
        has_dest = first && is_punct(first, '(');
    else if (base_is(o, "bar") || base_is(o, "barrier"))
        has_dest &= (o->parts & P_RED) != 0;
    else if (base_is(o, "nanosleep") || base_is(o, "brx") || base_is(o, "bra"))
        has_dest = 0;
    if (has_dest)
        push_words(D, &r[0], 1);
    I->nd = (uint32_t)(D->ops.n - I->first);
    for (unsigned i = has_dest; i < nr; i++)
        push_words(D, &r[i], 0);
    I->ns = (uint32_t)(D->ops.n - I->first - I->nd);
    int global = o->space == SP_GLOBAL || o->space == SP_NONE;
    if (I->nd && (((base_is(o, "ld") || base_is(o, "atom")) && global) || base_is(o, "ldu") ||
                  base_is(o, "tex") || base_is(o, "tld4") || base_is(o, "suld")))
        I->flags |= F_LOAD;
}

/* [name], [name+off] or [name-off] */
static int param_ref(const struct dec *D, const struct gt_ptx_range *r, const struct gt_ptx_tok **name, int64_t *off)
{
    uint32_t n = range_len(r);
    if (n < 3)
        return -1;
    const struct gt_ptx_tok *t = tok_at(D, r, 0);
    if (!is_punct(&t[0], '[') || t[1].kind != GT_PTX_WORD || !is_punct(&t[n - 1], ']'))
        return -1;
    *name = &t[1];
    *off = 0;
    if (n == 3)
        return 0;
    int neg = is_punct(&t[2], '-');
    uint32_t num = 3;
    if (is_punct(&t[2], '+') && n == 6 && is_punct(&t[3], '-')) {
        neg = 1;
        num = 4;
    }
    uint64_t v;
    if ((!neg && !is_punct(&t[2], '+')) || n != num + 2 || t[num].kind != GT_PTX_NUM || !integer(&t[num], &v) ||
        v > UINT32_MAX)
        return -1;
    *off = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

/* The launch's bytes of a kernel parameter as a constant, little-endian. */
static uint32_t param_slot(struct dec *D, const struct gt_ptx_tok *name, int64_t off, unsigned bytes, int sgn)
{
    for (unsigned i = 0; i < D->f->nparams; i++) {
        const struct gt_ptx_param *p = &D->f->params[i];
        if (!p->name || !is(name->s, name->n, p->name))
            continue;
        if (!bytes || off < 0 || (uint64_t)off + bytes > p->size)
            return SLOT_UNKNOWN;
        const unsigned char *b = (const unsigned char *)D->l->args[i] + off;
        uint64_t v = 0;
        for (unsigned k = bytes; k--;)
            v = v << 8 | b[k];
        return new_slot(D, ext(v, bytes * 8, sgn), 1);
    }
    return SLOT_UNKNOWN;
}

static int decode_ld_param(struct dec *D, struct insn *I, const struct opc *o, const struct gt_ptx_range *r,
                           unsigned nr)
{
    const struct gt_ptx_tok *name;
    int64_t off;
    if (nr != 2 || param_ref(D, &r[1], &name, &off) != 0 || push_dests(D, &r[0], 0, 1) != 0)
        return -1;
    I->op = OP_COPY;
    I->nd = (uint32_t)(D->ops.n - I->first);
    unsigned bytes = o->ntypes == 1 && !(o->parts & P_OTHER) ? o->w[0] / 8u : 0; /* floats stay unknown */
    for (uint32_t i = 0; i < I->nd; i++)
        PUSH(D, D->ops, param_slot(D, name, off + (int64_t)i * bytes, bytes, o->sgn[0]));
    I->ns = I->nd;
    return 0;
}

static const struct { const char *name; uint8_t op, nsrc; } alus[] = {
    {"mov", OP_MOV, 1},   {"cvta", OP_MOV, 1},  {"add", OP_ADD, 2},     {"sub", OP_SUB, 2},   {"mul", OP_MUL, 2},
    {"mad", OP_MAD, 3},   {"mul24", OP_MUL24, 2}, {"mad24", OP_MAD24, 3}, {"shl", OP_SHL, 2}, {"shr", OP_SHR, 2},
    {"and", OP_AND, 2},   {"or", OP_OR, 2},     {"xor", OP_XOR, 2},     {"not", OP_NOT, 1},   {"neg", OP_NEG, 1},
    {"abs", OP_ABS, 1},   {"min", OP_MIN, 2},   {"max", OP_MAX, 2},     {"div", OP_DIV, 2},   {"rem", OP_REM, 2},
    {"cvt", OP_CVT, 1},   {"setp", OP_SETP, 2}, {"selp", OP_SELP, 3},
};

/* Integer and predicate arithmetic, when its shape and types are all that
 * the interpreter models. */
static int decode_alu(struct dec *D, struct insn *I, const struct opc *o, unsigned a, const struct gt_ptx_range *r,
                      unsigned nr)
{
    uint8_t op = alus[a].op;
    unsigned nsrc = alus[a].nsrc + (op == OP_SETP && o->boolop);
    if ((o->parts & P_OTHER) || o->ntypes != (op == OP_CVT ? 2u : 1u) || nr != 1 + nsrc ||
        (op == OP_SETP && !o->cmp) || push_dests(D, &r[0], op == OP_SETP, 0) != 0)
        return -1;
    I->nd = (uint32_t)(D->ops.n - I->first);
    for (unsigned i = 0; i < nsrc; i++) {
        uint32_t s;
        int neg;
        if (simple(D, &r[1 + i], &s, &neg) != 0 || (neg && !(op == OP_SETP && i == 2)))
            return -1;
        I->flags |= neg ? F_NEGC : 0;
        PUSH(D, D->ops, s);
    }
    I->ns = nsrc;
    I->op = op;
    I->w = I->dw = o->w[o->ntypes - 1];
    I->sgn = I->dsgn = o->sgn[o->ntypes - 1];
    I->mode = o->mode;
    if (op == OP_CVT) {
        I->dw = o->w[0];
        I->dsgn = o->sgn[0];
    } else if (op == OP_SETP) {
        I->dw = 1;
        I->dsgn = 0;
        I->mode = o->cmp;
        I->boolop = o->boolop;
    } else if ((op == OP_MUL || op == OP_MAD) && o->mode == M_WIDE) {
        if (I->w > 32)
            return -1;
        I->dw = (uint8_t)(2 * I->w);
    } else if ((op == OP_MUL24 || op == OP_MAD24) && (o->mode != M_LO || I->w != 32)) {
        return -1;
    }
    return 0;
}

static int is_blocking(const struct opc *o)
{
    if (base_is(o, "bar") || base_is(o, "barrier"))
        return !(o->parts & (P_ARRIVE | P_WARP));
    return (o->parts & P_WAIT) && (base_is(o, "cp") || base_is(o, "mbarrier") || base_is(o, "wgmma"));
}

/* One instruction, guarded or plain. */
static void decode_insn(struct dec *D, const struct gt_ptx_stmt *st)
{
    const struct gt_ptx_range *r = st->r;
    unsigned nr = st->nr;
    uint32_t guard = st->guard.kind == GT_PTX_WORD ? reg_slot(D, &st->guard) : 0;
    struct opc o;
    parse_opcode(&st->name, &o);
    D->toks = st->toks;
    struct insn I = {.guard = guard, .flags = st->guard_neg ? F_GNEG : 0, .first = (uint32_t)D->ops.n};
    int done = 0;
    if (base_is(&o, "bra") && nr == 1 && range_len(&r[0]) == 1 && tok_at(D, &r[0], 0)->kind == GT_PTX_WORD) {
        const struct gt_ptx_tok *label = tok_at(D, &r[0], 0);
        struct fixup fx = {(uint32_t)D->insns.n, label->s, label->n};
        I.op = OP_BRA;
        done = PUSH(D, D->fixups, fx) == 0;
    } else if (base_is(&o, "ret") || base_is(&o, "exit")) {
        I.op = OP_END;
        done = 1;
    } else if (base_is(&o, "ld") && o.space == SP_PARAM) {
        done = decode_ld_param(D, &I, &o, r, nr) == 0;
    } else {
        for (unsigned a = 0; a < sizeof alus / sizeof *alus && !done; a++)
            if (base_is(&o, alus[a].name))
                done = decode_alu(D, &I, &o, a, r, nr) == 0;
    }
    if (!done)
        decode_any(D, &I, &o, r, nr);
    if (is_blocking(&o))
        I.flags |= F_BLOCK;
    PUSH(D, D->insns, I);
}

static void decode_body(struct dec *D)
{
    int kind;
    while (!D->oom && (kind = gt_ptx_body_next(&D->body)) != GT_PTX_STMT_END) {
        const struct gt_ptx_stmt *st = &D->body.st;
        if (kind == GT_PTX_STMT_INSN)
            decode_insn(D, st);
        else if (table_put(&D->labels, st->name.s, st->name.n, (uint32_t)D->insns.n) != 0)
            D->oom = 1;
    }
    D->oom |= D->body.oom;
}

/* Branch targets to instruction indices; a branch to no label of the body
 * becomes an instruction that does nothing. */
static void resolve(struct dec *D)
{
    for (size_t i = 0; i < D->fixups.n; i++) {
        const struct fixup *fx = &D->fixups.v[i];
        struct insn *I = &D->insns.v[fx->insn];
        if (!table_get(&D->labels, fx->s, fx->n, &I->target))
            I->op = OP_ANY;
    }
}

/* ---- interpretation ---- */

struct state {
    uint64_t *val, *pend;   /* pend[s] == epoch: loaded from global memory, not read since */
    uint8_t *kn;
    uint64_t epoch;
};

static void put(struct state *S, uint32_t d, uint64_t v, int known)
{
    S->val[d] = v;
    S->kn[d] = (uint8_t)known;
    S->pend[d] = 0;
}

/* Arithmetic shift right by n < 64. */
static uint64_t sar(uint64_t v, unsigned n)
{
    return (v >> n) | ((v >> 63) && n ? ~(UINT64_MAX >> n) : 0);
}

static uint64_t product(const struct insn *I, uint64_t a, uint64_t b)
{
    unsigned w = I->w;
    if (I->mode != M_HI)
        return a * b; /* sign-extended factors: the low 64 bits are exact */
    if (w < 64)
        return I->sgn ? sar(a * b, w) : (a * b) >> w;
    uint64_t hi = (uint64_t)(((unsigned __int128)a * b) >> 64);
    if (I->sgn) /* the signed high half from the unsigned one */
        hi -= ((a >> 63) ? b : 0) + ((b >> 63) ? a : 0);
    return hi;
}

static int compare(unsigned cmp, uint64_t a, uint64_t b, int sgn)
{
    int64_t x = (int64_t)a, y = (int64_t)b;
    switch (cmp) {
    case CMP_EQ: return a == b;
    case CMP_NE: return a != b;
    case CMP_LT: return sgn ? x < y : a < b;
    case CMP_LE: return sgn ? x <= y : a <= b;
    case CMP_GT: return sgn ? x > y : a > b;
    case CMP_GE: return sgn ? x >= y : a >= b;
    case CMP_LO: return a < b;
    case CMP_LS: return a <= b;
    case CMP_HI: return a > b;
    default: return a >= b;
    }
}

static int combine(unsigned op, int a, int b)
{
    return op == B_AND ? a && b : op == B_OR ? a || b : a != b;
}

/* The result of an arithmetic instruction from its raw sources; 0 when
 * there is none (division by zero). */
static int compute(const struct insn *I, const uint64_t *x, uint64_t *out)
{
    unsigned w = I->w;
    int s = I->sgn;
    uint64_t a = ext(x[0], w, s), b = ext(x[1], w, s), n = ext(x[1], 32, 0);
    switch (I->op) {
    case OP_ADD: *out = a + b; return 1;
    case OP_SUB: *out = a - b; return 1;
    case OP_MUL: *out = product(I, a, b); return 1;
    case OP_MAD: *out = product(I, a, b) + ext(x[2], I->dw, s); return 1;
    case OP_MUL24: *out = ext(a, 24, s) * ext(b, 24, s); return 1;
    case OP_MAD24: *out = ext(a, 24, s) * ext(b, 24, s) + x[2]; return 1;
    case OP_SHL: *out = n >= w ? 0 : a << n; return 1;
    case OP_SHR: *out = n >= w ? (s ? sar(a, 63) : 0) : s ? sar(a, (unsigned)n) : a >> n; return 1;
    case OP_AND: *out = a & b; return 1;
    case OP_OR: *out = a | b; return 1;
    case OP_XOR: *out = a ^ b; return 1;
    case OP_NOT: *out = ~a; return 1;
    case OP_NEG: *out = 0 - a; return 1;
    case OP_ABS: *out = s && (a >> 63) ? 0 - a : a; return 1;
    case OP_MIN: *out = compare(CMP_LT, a, b, s) ? a : b; return 1;
    case OP_MAX: *out = compare(CMP_GT, a, b, s) ? a : b; return 1;
    case OP_DIV:
    case OP_REM:
        if (!b)
            return 0;
        if (s && b == UINT64_MAX) /* -1: INT64_MIN / -1 would trap in C */
            *out = I->op == OP_DIV ? 0 - a : 0;
        else if (s)
            *out = (uint64_t)(I->op == OP_DIV ? (int64_t)a / (int64_t)b : (int64_t)a % (int64_t)b);
        else
            *out = I->op == OP_DIV ? a / b : a % b;
        return 1;
    case OP_SELP: *out = x[2] ? x[0] : x[1]; return 1;
    default: *out = a; return 1; /* mov, cvta, cvt: extended from the source type */
    }
}

static void exec_setp(struct state *S, const struct insn *I, const uint32_t *o, int known)
{
    const uint32_t *src = o + I->nd;
    int t = compare(I->mode, ext(S->val[src[0]], I->w, I->sgn), ext(S->val[src[1]], I->w, I->sgn), I->sgn);
    int p = t, q = !t;
    known &= S->kn[src[0]] & S->kn[src[1]];
    if (I->boolop) {
        int c = (S->val[src[2]] != 0) ^ !!(I->flags & F_NEGC);
        known &= S->kn[src[2]];
        p = combine(I->boolop, t, c);
        q = combine(I->boolop, !t, c);
    }
    put(S, o[0], (uint64_t)p, known);
    if (I->nd > 1)
        put(S, o[1], (uint64_t)q, known);
}

static void exec_alu(struct state *S, const struct insn *I, const uint32_t *o, int known)
{
    uint64_t x[3] = {0, 0, 0}, v = 0;
    for (uint32_t i = 0; i < I->ns && i < 3; i++) {
        x[i] = S->val[o[I->nd + i]];
        known &= S->kn[o[I->nd + i]];
    }
    if (known)
        known = compute(I, x, &v);
    put(S, o[0], ext(v, I->dw, I->dsgn), known);
}

static void interpret(const struct dec *D, struct state *S, long max, struct gt_ptxcost *out)
{
    const struct insn *ins = D->insns.v;
    static const uint32_t no_ops[1];
    const uint32_t *ops = D->ops.v ? D->ops.v : no_ops; /* when no instruction has operands */
    size_t n = D->insns.n, pc = 0;
    uint64_t steps = 0, events = 0, limit = max > 0 ? (uint64_t)max : DEFAULT_STEPS;
    for (;;) {
        if (pc >= n) {
            out->complete = 1;
            break;
        }
        if (steps >= limit)
            break;
        steps++;
        const struct insn *I = &ins[pc++];
        const uint32_t *o = ops + I->first;
        int run = 1; /* the guard: 1 true, 0 false, -1 unknown */
        if (I->guard) {
            run = S->kn[I->guard] ? (S->val[I->guard] != 0) ^ !!(I->flags & F_GNEG) : -1;
            if (!run)
                continue; /* issued, but reads nothing */
        }
        int block = (I->flags & F_BLOCK) || (I->guard && S->pend[I->guard] == S->epoch);
        for (uint32_t i = 0; i < I->ns && !block; i++)
            block = S->pend[o[I->nd + i]] == S->epoch;
        if (block) {
            events++;
            S->epoch++;
        }
        if (I->op == OP_BRA || I->op == OP_END) {
            out->guessed += run < 0;
            if (run < 0)
                continue;
            if (I->op == OP_END) {
                out->complete = 1;
                break;
            }
            pc = I->target;
            continue;
        }
        switch (I->op) {
        case OP_ANY:
            for (uint32_t i = 0; i < I->nd; i++) {
                S->kn[o[i]] = 0;
                S->pend[o[i]] = (I->flags & F_LOAD) ? S->epoch : 0;
            }
            break;
        case OP_COPY:
            for (uint32_t i = 0; i < I->nd; i++)
                put(S, o[i], S->val[o[I->nd + i]], S->kn[o[I->nd + i]] & (run > 0));
            break;
        case OP_SETP:
            exec_setp(S, I, o, run > 0);
            break;
        default:
            exec_alu(S, I, o, run > 0);
        }
    }
    out->instr = (double)steps;
    out->regions = 1.0 + (double)events;
}

/* ---- the entry point ---- */

static const struct gt_ptx_func *pick_entry(const struct gt_ptx_module *m, const char *entry, char *err, size_t errlen)
{
    const struct gt_ptx_func *f = NULL;
    if (entry) {
        f = gt_ptx_find(m, entry);
        if (!f || !f->is_entry) {
            gt_errf(err, errlen, "no entry named %s", entry);
            return NULL;
        }
    } else {
        for (size_t i = 0; i < m->nfuncs && !f; i++)
            if (m->funcs[i].is_entry)
                f = &m->funcs[i];
        if (m->nentries != 1) {
            gt_errf(err, errlen, "%zu entries in the module: name one", m->nentries);
            return NULL;
        }
    }
    if (f->is_extern) {
        gt_errf(err, errlen, "entry %s is declared without a body", f->name);
        return NULL;
    }
    return f;
}

static int check_args(const struct gt_ptx_func *f, const struct gt_ptxcost_launch *l, char *err, size_t errlen)
{
    for (unsigned i = 0; i < f->nparams; i++)
        if (i >= l->nargs || !l->args || !l->args[i])
            return gt_errf(err, errlen, "%s: parameter %u (%s) missing", f->name, i,
                           f->params[i].name ? f->params[i].name : "unnamed");
    if (l->nargs > f->nparams)
        return gt_errf(err, errlen, "%s takes %u parameters, not %u", f->name, f->nparams, l->nargs);
    return 0;
}

static int run_entry(struct dec *D, struct gt_ptxcost *out)
{
    if (add_specials(D) != 0)
        return -1;
    decode_body(D);
    resolve(D);
    size_t n = D->slots.n;
    struct state S = {gt_malloc(n * sizeof *S.val), gt_calloc(n, sizeof *S.pend), gt_malloc(n), 1};
    int r = D->oom || !S.val || !S.pend || !S.kn ? -1 : 0;
    if (r == 0) {
        for (size_t i = 0; i < n; i++) {
            S.val[i] = D->slots.v[i].v;
            S.kn[i] = D->slots.v[i].known;
        }
        interpret(D, &S, D->l->max_steps, out);
    }
    free(S.val);
    free(S.pend);
    free(S.kn);
    return r;
}

int gt_ptxcost(const char *ptx, size_t size, const char *entry, const struct gt_ptxcost_launch *l,
               struct gt_ptxcost *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!l)
        return gt_errf(err, errlen, "no launch");
    struct gt_ptx_module m;
    if (gt_ptx_parse(ptx, size, &m, err, errlen) != 0)
        return -1;
    const struct gt_ptx_func *f = pick_entry(&m, entry, err, errlen);
    int r = f ? check_args(f, l, err, errlen) : -1;
    if (r == 0) {
        struct dec D = {.f = f, .l = l};
        gt_ptx_body_begin(&D.body, ptx, f->body, f->end < size ? f->end : size);
        r = run_entry(&D, out);
        if (r != 0)
            gt_errf(err, errlen, "out of memory");
        gt_strtab_free(&D.regs);
        gt_strtab_free(&D.labels);
        free(D.insns.v);
        free(D.ops.v);
        free(D.slots.v);
        gt_ptx_body_free(&D.body);
        free(D.fixups.v);
    }
    gt_ptx_free(&m);
    return r;
}
