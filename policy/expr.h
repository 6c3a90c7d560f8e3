/* expr.h: the policy expression language (see expr.c).
 *
 *   e := e ? e : e | e || e | e && e | e == e | e != e | e < e | e <= e
 *      | e > e | e >= e | e + e | e - e | e * e | e / e | e % e | -e | !e
 *      | (e) | INT | NAME | f(e, ...) | arg[INT]
 *
 * 64-bit signed integers throughout; comparisons and logic give 0 or 1;
 * && || and ?: evaluate only what decides the result.  Names are resolved
 * once, at compile time, against a scope. */
#ifndef GT_EXPR_H
#define GT_EXPR_H

#include "diag.h"

#include <stddef.h>
#include <stdint.h>

/* What an expression refers to. */
enum gt_expr_uses {
    GT_USES_DIM = 1,   /* a dimension of the space: a parameter or a knob */
    GT_USES_ORIG = 2,  /* orig.grid.x ... orig.smem: the launch as the application made it */
    GT_USES_ARG = 4,   /* arg[i], argI, arg.NAME: the launch's scalar arguments */
    GT_USES_BLOCK = 8, /* block.x, block.y, block.z: the configuration's block (grid and smem only) */
};

/* orig.* in the order of struct gt_launch's orig[]. */
enum gt_orig {
    GT_ORIG_GRID_X, GT_ORIG_GRID_Y, GT_ORIG_GRID_Z,
    GT_ORIG_BLOCK_X, GT_ORIG_BLOCK_Y, GT_ORIG_BLOCK_Z,
    GT_ORIG_SMEM, GT_ORIG_N
};

/* Interned names, e.g. the argument names (arg.NAME) of one policy section:
 * the shim resolves them to positions once per kernel. */
struct gt_names {
    char **v;
    size_t n, cap;
};

int gt_names_intern(struct gt_names *t, const char *s, size_t len); /* index, or -1 (no memory) */
int gt_names_find(const struct gt_names *t, const char *s);
void gt_names_clear(struct gt_names *t);

/* The names an expression may use. */
struct gt_expr_scope {
    const char *const *dims;      /* dimension i is called dims[i] */
    const unsigned char *opaque;  /* per dimension, may be NULL: nonzero if its values are symbolic */
    size_t ndims;
    unsigned allow;               /* GT_USES_* */
    struct gt_names *argnames;    /* arg.NAME is interned here */
    const char *what;             /* for messages: "a constraint", "'grid'" */
};

/* What a launch provides to the expressions evaluated for it. */
struct gt_launch {
    int64_t orig[GT_ORIG_N];
    int nargs;                    /* the kernel's parameter count */
    const int64_t *args;          /* their values, when scalar */
    const unsigned char *arg_ok;  /* per parameter: nonzero if args[i] holds its value; NULL: all do */
    const int *argpos;            /* per name of the section's gt_names: its position, -1 if none */
    size_t nargpos;
};

struct gt_expr_env {
    const int64_t *dims;              /* the configuration's value of each dimension */
    const struct gt_launch *launch;   /* NULL: evaluated without a launch */
    const int64_t *block;             /* the configuration's block (3 values) or NULL */
};

/* Why an evaluation failed; gt_expr_error_text and _loc explain it. */
struct gt_expr_err {
    int code;
    uint32_t pc;
    int64_t a;
};

struct gt_expr;

/* Compiles text[0..len), which is bytes off.. of the text that map describes.
 * Returns 0, or -1 with messages added to d. */
int gt_expr_compile(const char *text, size_t len, size_t off, const struct gt_srcmap *map,
                    const struct gt_expr_scope *scope, struct gt_expr **out, struct gt_diags *d);
/* Returns 0 with *out set, or -1 with *err set (err may be NULL). */
int gt_expr_eval(const struct gt_expr *e, const struct gt_expr_env *env, int64_t *out,
                 struct gt_expr_err *err);
int gt_expr_error_text(const struct gt_expr *e, const struct gt_expr_err *err, char *buf, size_t len);
struct gt_loc gt_expr_error_loc(const struct gt_expr *e, const struct gt_expr_err *err);
void gt_expr_free(struct gt_expr *e);

unsigned gt_expr_uses(const struct gt_expr *e);   /* GT_USES_* bits */
int gt_expr_max_dim(const struct gt_expr *e);     /* highest dimension used, -1 if none */
const char *gt_expr_text(const struct gt_expr *e);
struct gt_loc gt_expr_loc(const struct gt_expr *e); /* where its text starts */

#endif
