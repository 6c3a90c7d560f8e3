/* ptxlex.h: PTX's tokens, for the PTX readers ptx.c and ptxcost.c (see
 * ptxlex.c). */
#ifndef GT_PTXLEX_H
#define GT_PTXLEX_H

#include <stddef.h>

enum { GT_PTX_EOF, GT_PTX_WORD, GT_PTX_NUM, GT_PTX_STR, GT_PTX_PUNCT };

struct gt_ptx_tok {
    int kind;           /* GT_PTX_*: a word (names, directives, %registers), a number, a string, one punctuation */
    const char *s;
    size_t n;
    size_t off;         /* of s in the text */
    unsigned line;      /* 1-based */
};

/* The text read from pos up to size (one past the last byte to read). */
struct gt_ptx_lex {
    const char *text;
    size_t size, pos;
    unsigned line;
};

struct gt_ptx_tok gt_ptx_next(struct gt_ptx_lex *lx);
struct gt_ptx_tok gt_ptx_peek(struct gt_ptx_lex *lx);
/* To the end of the line (a directive read no further). */
void gt_ptx_skip_line(struct gt_ptx_lex *lx);
/* Whether a ':' follows on the same line: a word before one is a label. */
int gt_ptx_colon_follows(const struct gt_ptx_lex *lx);

#endif
