/* ptxlex.c: PTX's tokens.
 *
 * Words are names, directives (.reg), registers (%r1) and opcodes with
 * their modifiers (ld.global.v4.f32), a state space's sub-space included
 * (.shared::cta); numbers start with a digit; strings are quoted; anything
 * else is one punctuation character.  Comments are skipped and lines
 * counted.  Every read stays below lx->size: the text is untrusted. */
#include "ptxlex.h"

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
