/* ptxlex.c: PTX's tokens, and the statements of a function body.
 *
 * Words are names, directives (.reg), registers (%r1) and opcodes with
 * their modifiers (ld.global.v4.f32), a state space's sub-space included
 * (.shared::cta); numbers start with a digit; strings are quoted; anything
 * else is one punctuation character.  Comments are skipped and lines
 * counted.  Every read stays below lx->size: the text is untrusted.
 *
 * A body reads as labels and instructions, each instruction with its guard,
 * its opcode and its operands; directives (.reg, .loc, .pragma) and
 * statements that do not start with an opcode are skipped, and the braces
 * of nested scopes are looked through. */
#include "ptxlex.h"
#include "arena.h"

#include <stdlib.h>
#include <string.h>

enum { C_WORD = 1, C_START = 2, C_SPACE = 4 };

/* Character classes: word characters, characters that may start a word
 * (digits start numbers), blanks. */
static const unsigned char cls[256] = {
    ['\t'] = C_SPACE, ['\r'] = C_SPACE, ['\f'] = C_SPACE, ['\v'] = C_SPACE, [' '] = C_SPACE,
    ['0' ... '9'] = C_WORD,
    ['a' ... 'z'] = C_WORD | C_START, ['A' ... 'Z'] = C_WORD | C_START,
    ['_'] = C_WORD | C_START, ['$'] = C_WORD | C_START, ['%'] = C_WORD | C_START, ['.'] = C_WORD | C_START,
};

static void skip_space(struct gt_ptx_lex *lx)
{
    const char *t = lx->text;
    size_t p = lx->pos, size = lx->size;
    while (p < size) {
        char c = t[p];
        if (cls[(unsigned char)c] & C_SPACE) {
            p++;
        } else if (c == '\n') {
            lx->line++;
            p++;
        } else if (c == '/' && p + 1 < size && t[p + 1] == '/') {
            const char *nl = memchr(t + p, '\n', size - p);
            p = nl ? (size_t)(nl - t) : size;
        } else if (c == '/' && p + 1 < size && t[p + 1] == '*') {
            p += 2;
            while (p < size && !(t[p] == '*' && p + 1 < size && t[p + 1] == '/'))
                lx->line += t[p++] == '\n';
            p = p + 2 < size ? p + 2 : size;
        } else {
            break;
        }
    }
    lx->pos = p;
}

static void lex_string(struct gt_ptx_lex *lx, struct gt_ptx_tok *t)
{
    size_t p = lx->pos + 1;
    while (p < lx->size && lx->text[p] != '"') {
        if (lx->text[p] == '\\' && p + 1 < lx->size)
            p++;
        lx->line += lx->text[p] == '\n';
        p++;
    }
    t->kind = GT_PTX_STR;
    lx->pos = p < lx->size ? p + 1 : lx->size;
}

struct gt_ptx_tok gt_ptx_next(struct gt_ptx_lex *lx)
{
    skip_space(lx);
    struct gt_ptx_tok t = {GT_PTX_EOF, lx->text + lx->pos, 0, lx->pos, lx->line};
    if (lx->pos >= lx->size || lx->text[lx->pos] == '\0')
        return t;
    unsigned char c = (unsigned char)lx->text[lx->pos];
    if (c == '"') {
        lex_string(lx, &t);
    } else if (cls[c] & C_WORD) {
        t.kind = (cls[c] & C_START) ? GT_PTX_WORD : GT_PTX_NUM;
        const char *p = lx->text + lx->pos + 1, *end = lx->text + lx->size;
        for (;;) {
            if (p < end && (cls[(unsigned char)*p] & C_WORD))
                p++;
            else if (p + 2 < end && p[0] == ':' && p[1] == ':' && (cls[(unsigned char)p[2]] & C_WORD))
                p += 2; /* a state space's sub-space: .shared::cluster */
            else
                break;
        }
        lx->pos = (size_t)(p - lx->text);
    } else {
        t.kind = GT_PTX_PUNCT;
        lx->pos++;
    }
    t.n = lx->pos - t.off;
    return t;
}

int gt_ptx_colon_follows(const struct gt_ptx_lex *lx)
{
    size_t p = lx->pos;
    while (p < lx->size && (cls[(unsigned char)lx->text[p]] & C_SPACE))
        p++;
    return p < lx->size && lx->text[p] == ':';
}

struct gt_ptx_tok gt_ptx_peek(struct gt_ptx_lex *lx)
{
    struct gt_ptx_lex save = *lx;
    struct gt_ptx_tok t = gt_ptx_next(lx);
    *lx = save;
    return t;
}

void gt_ptx_skip_line(struct gt_ptx_lex *lx)
{
    const char *nl = memchr(lx->text + lx->pos, '\n', lx->size - lx->pos);
    lx->pos = nl ? (size_t)(nl - lx->text) : lx->size;
}

/* ---- bodies ---- */

static int is_punct(const struct gt_ptx_tok *t, char c)
{
    return t->kind == GT_PTX_PUNCT && t->s[0] == c;
}

static int is_word(const struct gt_ptx_tok *t, const char *w)
{
    return t->kind == GT_PTX_WORD && t->n == strlen(w) && memcmp(t->s, w, t->n) == 0;
}

/* Through a statement's ';', stopping before a '}' that would close the
 * enclosing scope. */
static void skip_statement(struct gt_ptx_lex *lx)
{
    unsigned depth = 0;
    for (;;) {
        struct gt_ptx_lex save = *lx;
        struct gt_ptx_tok t = gt_ptx_next(lx);
        if (t.kind == GT_PTX_EOF || (is_punct(&t, ';') && !depth))
            return;
        if (is_punct(&t, '{'))
            depth++;
        if (is_punct(&t, '}') && !depth--) {
            *lx = save;
            return;
        }
    }
}

static int push_tok(struct gt_ptx_body *b, size_t n, const struct gt_ptx_tok *t)
{
    if (n >= UINT32_MAX || gt_grow((void **)&b->toks, &b->cap, n + 1, sizeof *b->toks) != 0) {
        b->oom = 1;
        return -1;
    }
    b->toks[n] = *t;
    return 0;
}

/* The tokens after the opcode through the ';', split at top-level commas. */
static void read_operands(struct gt_ptx_body *b)
{
    struct gt_ptx_stmt *st = &b->st;
    unsigned depth = 0, nest = 0;
    uint32_t start = 0, n = 0;
    st->nr = 0;
    for (;;) {
        struct gt_ptx_lex save = b->lx;
        struct gt_ptx_tok t = gt_ptx_next(&b->lx);
        if (t.kind == GT_PTX_EOF || (is_punct(&t, ';') && !depth))
            break;
        if (is_punct(&t, '}') && !depth) {
            b->lx = save;
            break;
        }
        if (t.kind == GT_PTX_PUNCT) {
            char c = t.s[0];
            depth += c == '{';
            depth -= c == '}';
            nest += c == '{' || c == '[' || c == '(';
            nest -= nest && (c == '}' || c == ']' || c == ')');
            if (c == ',' && !nest && st->nr < GT_PTX_MAXOPS - 1) {
                st->r[st->nr++] = (struct gt_ptx_range){start, n};
                start = n;
                continue;
            }
        }
        if (push_tok(b, n, &t) != 0)
            return;
        n++;
    }
    if (n > start || st->nr)
        st->r[st->nr++] = (struct gt_ptx_range){start, n};
    st->toks = b->toks;
}

/* An instruction from its first token: 1, or 0 when the statement was no
 * instruction (and is skipped). */
static int instruction(struct gt_ptx_body *b, struct gt_ptx_tok t)
{
    struct gt_ptx_stmt *st = &b->st;
    struct gt_ptx_lex save = b->lx;
    memset(&st->guard, 0, sizeof st->guard);
    st->guard_neg = 0;
    if (is_punct(&t, '@')) {
        t = gt_ptx_next(&b->lx);
        st->guard_neg = is_punct(&t, '!');
        if (st->guard_neg)
            t = gt_ptx_next(&b->lx);
        if (t.kind == GT_PTX_WORD)
            st->guard = t;
        save = b->lx;
        t = gt_ptx_next(&b->lx);
    }
    if (t.kind != GT_PTX_WORD || t.s[0] == '.' || t.s[0] == '%') {
        b->lx = save;
        skip_statement(&b->lx);
        return 0;
    }
    st->name = t;
    read_operands(b);
    return !b->oom;
}

/* Consumes a ':' when one comes next: the word before it was a label. */
static int colon_next(struct gt_ptx_lex *lx)
{
    struct gt_ptx_lex save = *lx;
    struct gt_ptx_tok c = gt_ptx_next(lx);
    if (is_punct(&c, ':'))
        return 1;
    *lx = save;
    return 0;
}

void gt_ptx_body_begin(struct gt_ptx_body *b, const char *text, size_t body, size_t end)
{
    memset(b, 0, sizeof *b);
    b->lx = (struct gt_ptx_lex){text, end, body, 1};
    struct gt_ptx_tok t = gt_ptx_next(&b->lx);
    b->depth = is_punct(&t, '{');
}

int gt_ptx_body_next(struct gt_ptx_body *b)
{
    struct gt_ptx_stmt *st = &b->st;
    while (b->depth && !b->oom) {
        struct gt_ptx_tok t = gt_ptx_next(&b->lx);
        if (t.kind == GT_PTX_EOF) {
            b->depth = 0;
        } else if (is_punct(&t, '{')) {
            b->depth++;
        } else if (is_punct(&t, '}')) {
            b->depth--;
        } else if (is_punct(&t, ';')) {
            continue;
        } else if (t.kind == GT_PTX_WORD && t.s[0] == '.') {
            if (is_word(&t, ".loc") || is_word(&t, ".file"))
                gt_ptx_skip_line(&b->lx);
            else
                skip_statement(&b->lx);
        } else if (t.kind == GT_PTX_WORD && t.s[0] != '%' && colon_next(&b->lx)) {
            st->name = t;
            return st->kind = GT_PTX_STMT_LABEL;
        } else if (instruction(b, t)) {
            return st->kind = GT_PTX_STMT_INSN;
        }
    }
    return st->kind = GT_PTX_STMT_END;
}

void gt_ptx_body_free(struct gt_ptx_body *b)
{
    free(b->toks);
    b->toks = NULL;
    b->cap = 0;
}
