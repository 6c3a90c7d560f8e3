/* ptxlex.h: PTX's tokens and the statements of function bodies, for the PTX
 * readers ptx.c, ptxcost.c and ptxreads.c (see ptxlex.c). */
#ifndef GT_PTXLEX_H
#define GT_PTXLEX_H

#include <stddef.h>
#include <stdint.h>

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

/* ---- a function body, statement by statement ---- */

#define GT_PTX_MAXOPS 16

/* Tokens [b, e) of one operand. */
struct gt_ptx_range {
    uint32_t b, e;
};

enum { GT_PTX_STMT_END, GT_PTX_STMT_LABEL, GT_PTX_STMT_INSN };

/* A label, or an instruction: its guard, its opcode and its operands'
 * tokens split at top-level commas (more than GT_PTX_MAXOPS operands: the
 * last range holds the rest). */
struct gt_ptx_stmt {
    int kind;                   /* GT_PTX_STMT_* */
    struct gt_ptx_tok name;     /* the label, or the opcode */
    struct gt_ptx_tok guard;    /* the guard's predicate; kind GT_PTX_EOF when unguarded */
    int guard_neg;              /* @!p */
    const struct gt_ptx_tok *toks; /* the operands' tokens, the commas between them left out */
    struct gt_ptx_range r[GT_PTX_MAXOPS];
    unsigned nr;
};

struct gt_ptx_body {
    struct gt_ptx_lex lx;
    unsigned depth;             /* of braces; 0 once the body ended */
    int oom;                    /* reading stopped for want of memory */
    struct gt_ptx_tok *toks;
    size_t cap;
    struct gt_ptx_stmt st;      /* the current statement */
};

/* The body whose '{' is at `body` in text, read no further than `end`. */
void gt_ptx_body_begin(struct gt_ptx_body *b, const char *text, size_t body, size_t end);
/* The next label or instruction into b->st, directives skipped: its kind,
 * GT_PTX_STMT_END at the body's end (or when b->oom). */
int gt_ptx_body_next(struct gt_ptx_body *b);
void gt_ptx_body_free(struct gt_ptx_body *b);

#endif
