/* ptxreads.c: the parameters a kernel may read memory through, from its PTX.
 *
 * Tune mode poisons the buffers a kernel only writes, so that a candidate
 * that skips its work cannot match the reference (poison.c); this finds
 * which pointer parameters those are, by a conservative, flow-insensitive
 * taint analysis of the entry's body.
 *
 * Registers loaded from parameter P (`ld.param [P]`, `[P+off]` within a
 * struct) carry P.  An instruction that only computes (arithmetic, moves,
 * conversions, comparisons, selections, warp exchanges, branches, barriers)
 * passes what its sources carry to its destinations, until nothing changes.
 * P counts as read as soon as what carries it reaches anything else: any
 * operand of a load, an atomic, a prefetch, an asynchronous copy, a call or
 * an instruction not known here; the value a store writes (the pointer
 * escapes to memory, where anything may read it back); and P's own name
 * anywhere but in the address of an `ld.param` (its address taken).  The
 * address of a store carrying P is a write through P: the one use that
 * leaves it unread.  Guards decide whether, not where, and are not
 * followed.  Calls are not followed either: what a callee gets escapes.
 *
 * The text is untrusted: it is read with ptx.c and ptxlex.c's bounds, and a
 * statement not understood only makes what it touches count as read. */
#include "ptxreads.h"
#include "alloc.h"
#include "arena.h"
#include "errmsg.h"
#include "ptx.h"
#include "ptxlex.h"
#include "strtab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An instruction passes what node src carries on to node dst. */
struct edge {
    uint32_t dst, src;
};

/* Nodes 0..nparams-1 are the parameters, each carrying itself; registers
 * (every other name an operand uses) follow, numbered as first met. */
struct reader {
    const struct gt_ptx_func *f;
    unsigned nparams;
    struct gt_strtab params, regs;
    uint32_t nodes;
    struct edge *edges;
    size_t nedges, capedges;
    uint32_t *sinks;         /* nodes whose load, store or escape reads what they carry */
    size_t nsinks, capsinks;
    unsigned char *named;    /* per parameter: its name used outside an ld.param address */
    uint32_t *dsts;          /* the current instruction's destinations */
    size_t ndsts, capdsts;
    int oom;
};

/* What an instruction does with its operands. */
enum kind {
    K_COMPUTE, /* operand 0 is written from the others */
    K_LDPARAM, /* the same, and the parameters its address names are sources */
    K_STORE,   /* the operands outside brackets are values written to memory */
    K_SINK,    /* every operand counts as read */
};

static int base_is(const struct gt_ptx_tok *op, size_t bn, const char *name)
{
    return bn == strlen(name) && memcmp(op->s, name, bn) == 0;
}

/* Whether a dotted part of the opcode is the .param state space. */
static int param_space(const struct gt_ptx_tok *op)
{
    for (size_t i = 0; i + 6 <= op->n; i++)
        if (op->s[i] == '.' && memcmp(op->s + i + 1, "param", 5) == 0 &&
            (i + 6 == op->n || op->s[i + 6] == '.' || op->s[i + 6] == ':'))
            return 1;
    return 0;
}

static enum kind classify(const struct gt_ptx_tok *op)
{
    static const char *const compute[] = {
        "mov",  "cvta",  "cvt",   "add",   "addc",  "sub",     "subc",   "mul",  "mad",   "madc", "mul24",
        "mad24", "sad",  "div",   "rem",   "abs",   "neg",     "min",    "max",  "popc",  "clz",  "bfind",
        "fns",  "brev",  "bfe",   "bfi",   "bmsk",  "szext",   "dp4a",   "dp2a", "shf",   "shl",  "shr",
        "and",  "or",    "xor",   "not",   "cnot",  "lop3",    "prmt",   "setp", "set",   "selp", "slct",
        "fma",  "rcp",   "sqrt",  "rsqrt", "sin",   "cos",     "lg2",    "ex2",  "tanh",  "copysign",
        "testp", "isspacep", "shfl", "vote", "match", "redux", "activemask", "elect", "mma", "bra", "ret",
        "exit", "bar",   "barrier", "membar", "fence", "nanosleep", "trap", "brkpt", "pmevent",
    };
    size_t bn = 0;
    while (bn < op->n && op->s[bn] != '.')
        bn++;
    if (base_is(op, bn, "ld") && param_space(op))
        return K_LDPARAM;
    if (base_is(op, bn, "st") || base_is(op, bn, "stmatrix"))
        return K_STORE;
    for (size_t i = 0; i < sizeof compute / sizeof *compute; i++)
        if (base_is(op, bn, compute[i]))
            return K_COMPUTE;
    return K_SINK;
}

static uint32_t hash(const struct gt_ptx_tok *t, size_t n)
{
    return gt_strtab_hash(t->s, n);
}

/* A register's node, made at its first use: one name up to its first
 * component (%v1.x is %v1), every scope's alike. */
static uint32_t reg_node(struct reader *R, const struct gt_ptx_tok *t)
{
    size_t n = 1;
    while (n < t->n && t->s[n] != '.')
        n++;
    uint32_t h = hash(t, n), v;
    if (gt_strtab_get(&R->regs, t->s, n, h, &v))
        return v;
    v = R->nodes++;
    if (gt_strtab_put(&R->regs, t->s, n, h, v) != 0)
        R->oom = 1;
    return v;
}

/* The parameter a word names, or -1. */
static int param_of(struct reader *R, const struct gt_ptx_tok *t)
{
    uint32_t v;
    return gt_strtab_get(&R->params, t->s, t->n, hash(t, t->n), &v) ? (int)v : -1;
}

static void add_edge(struct reader *R, uint32_t dst, uint32_t src)
{
    if (gt_grow((void **)&R->edges, &R->capedges, R->nedges + 1, sizeof *R->edges) != 0)
        R->oom = 1;
    else
        R->edges[R->nedges++] = (struct edge){dst, src};
}

static void add_sink(struct reader *R, uint32_t node)
{
    if (gt_grow((void **)&R->sinks, &R->capsinks, R->nsinks + 1, sizeof *R->sinks) != 0)
        R->oom = 1;
    else
        R->sinks[R->nsinks++] = node;
}

/* The node a name stands for, or -1 for other tokens.  A parameter is a
 * node only where `as_source` lets it be one: elsewhere it counts as named. */
static int64_t node_of(struct reader *R, const struct gt_ptx_tok *t, int as_source)
{
    if (t->kind != GT_PTX_WORD || t->s[0] == '.')
        return -1;
    int p = param_of(R, t);
    if (p >= 0 && !as_source) {
        R->named[p] = 1;
        return -1;
    }
    return p >= 0 ? (int64_t)p : (int64_t)reg_node(R, t);
}

/* Operand 0 takes what every other operand carries. */
static void computes(struct reader *R, const struct gt_ptx_stmt *st, int ldparam)
{
    R->ndsts = 0;
    for (uint32_t i = st->nr ? st->r[0].b : 0; st->nr && i < st->r[0].e; i++) {
        int64_t n = node_of(R, &st->toks[i], 0);
        if (n < 0)
            continue;
        if (gt_grow((void **)&R->dsts, &R->capdsts, R->ndsts + 1, sizeof *R->dsts) != 0)
            R->oom = 1;
        else
            R->dsts[R->ndsts++] = (uint32_t)n;
    }
    for (unsigned o = 1; o < st->nr; o++) {
        for (uint32_t i = st->r[o].b; i < st->r[o].e; i++) {
            int64_t n = node_of(R, &st->toks[i], ldparam);
            for (size_t d = 0; n >= 0 && d < R->ndsts; d++)
                add_edge(R, R->dsts[d], (uint32_t)n);
        }
    }
}

/* Every operand's names read what they carry; a store's addresses do not. */
static void sinks(struct reader *R, const struct gt_ptx_stmt *st, int store)
{
    for (unsigned o = 0; o < st->nr; o++) {
        const struct gt_ptx_range *r = &st->r[o];
        int address = r->e > r->b && st->toks[r->b].kind == GT_PTX_PUNCT && st->toks[r->b].s[0] == '[';
        for (uint32_t i = r->b; i < r->e; i++) {
            int64_t n = node_of(R, &st->toks[i], 0);
            if (n >= 0 && !(store && address))
                add_sink(R, (uint32_t)n);
        }
    }
}

static void instruction(struct reader *R, const struct gt_ptx_stmt *st)
{
    switch (classify(&st->name)) {
    case K_COMPUTE:
        computes(R, st, 0);
        break;
    case K_LDPARAM:
        computes(R, st, 1);
        break;
    case K_STORE:
        sinks(R, st, 1);
        break;
    case K_SINK:
        sinks(R, st, 0);
        break;
    }
}

/* What each node carries, as bit sets over the parameters, through every
 * edge until nothing changes; then what reaches a sink is read. */
static int propagate(struct reader *R, unsigned char *reads)
{
    size_t words = (R->nparams + 63) / 64;
    uint64_t *t = gt_calloc((size_t)R->nodes * words + 1, sizeof *t);
    if (!t)
        return -1;
    for (unsigned p = 0; p < R->nparams; p++)
        t[p * words + p / 64] |= (uint64_t)1 << (p % 64);
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t e = 0; e < R->nedges; e++) {
            uint64_t *d = t + (size_t)R->edges[e].dst * words;
            const uint64_t *s = t + (size_t)R->edges[e].src * words;
            for (size_t w = 0; w < words; w++) {
                changed |= (s[w] & ~d[w]) != 0;
                d[w] |= s[w];
            }
        }
    }
    for (unsigned p = 0; p < R->nparams; p++)
        reads[p] = R->named[p];
    for (size_t i = 0; i < R->nsinks; i++) {
        const uint64_t *s = t + (size_t)R->sinks[i] * words;
        for (unsigned p = 0; p < R->nparams; p++)
            reads[p] |= (s[p / 64] >> (p % 64)) & 1;
    }
    free(t);
    return 0;
}

static int analyze(struct reader *R, const char *ptx, size_t end, unsigned char *reads)
{
    const struct gt_ptx_func *f = R->f;
    R->named = gt_calloc(R->nparams + 1, 1);
    if (!R->named)
        return -1;
    for (unsigned p = 0; p < R->nparams; p++) {
        const char *name = f->params[p].name;
        if (name && gt_strtab_put(&R->params, name, strlen(name), gt_strtab_hash(name, strlen(name)), p) != 0)
            return -1;
    }
    R->nodes = R->nparams;
    struct gt_ptx_body b;
    gt_ptx_body_begin(&b, ptx, f->body, end);
    int kind;
    while (!R->oom && (kind = gt_ptx_body_next(&b)) != GT_PTX_STMT_END)
        if (kind == GT_PTX_STMT_INSN)
            instruction(R, &b.st);
    R->oom |= b.oom;
    gt_ptx_body_free(&b);
    return R->oom ? -1 : propagate(R, reads);
}

int gt_ptxreads(const char *ptx, size_t size, const char *entry, unsigned nparams, unsigned char *reads, char *err,
                size_t errlen)
{
    struct gt_ptx_module m;
    if (gt_ptx_parse(ptx, size, &m, err, errlen) != 0)
        return -1;
    const struct gt_ptx_func *f = gt_ptx_find(&m, entry);
    int r;
    if (!f || !f->is_entry || f->is_extern)
        r = gt_errf(err, errlen, "no entry %s with a body", entry);
    else if (f->nparams != nparams)
        r = gt_errf(err, errlen, "%s declares %u parameters, not %u", entry, f->nparams, nparams);
    else {
        struct reader R = {.f = f, .nparams = nparams};
        r = analyze(&R, ptx, f->end < size ? f->end : size, reads);
        if (r != 0)
            gt_errf(err, errlen, "out of memory");
        gt_strtab_free(&R.params);
        gt_strtab_free(&R.regs);
        free(R.edges);
        free(R.sinks);
        free(R.named);
        free(R.dsts);
    }
    gt_ptx_free(&m);
    return r;
}
