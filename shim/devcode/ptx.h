/* ptx.h: what a PTX module declares and where its loops start (see ptx.c). */
#ifndef GT_PTX_H
#define GT_PTX_H

#include <stddef.h>
#include <stdint.h>

enum gt_ptx_space { GT_PTX_GLOBAL, GT_PTX_CONST };

struct gt_ptx_param {
    const char *name;
    const char *type;   /* "u32", "b8", "f64"... without the dot */
    uint32_t size;      /* bytes, arrays included */
    uint32_t align;     /* of the parameter itself (not of what a .ptr points at) */
    uint32_t offset;    /* in the parameter buffer, each aligned to its own alignment */
    int is_ptr;         /* declared with .ptr */
};

struct gt_ptx_var {
    const char *name;
    enum gt_ptx_space space;
    uint64_t size;      /* 0 for an unsized extern array */
    uint32_t align;
    int is_extern;      /* declared, defined in another module */
    int has_init;
};

/* A label that a later branch of the same function jumps back to. */
struct gt_ptx_loop {
    const char *label;
    size_t offset;      /* of the label in the text */
    size_t back;        /* of the last reference back to it: the loop spans offset..back */
    unsigned line;      /* 1-based */
};

/* A block-wide barrier on barrier 0 with no thread count, `[@p] bar.sync 0;`
 * and its spellings: what the watchdog may turn into a barrier that also
 * decides, for the whole block at once, whether to stop. */
struct gt_ptx_barrier {
    size_t begin;       /* the statement, its guard included */
    size_t opcode;      /* the opcode, e.g. "barrier.sync.aligned" */
    size_t opcode_len;
    size_t end;         /* one past its ';' */
};

/* What a function's instructions need of the threads around them. */
enum {
    GT_PTX_USES_BAR0 = 1,      /* barriers as in struct gt_ptx_barrier */
    GT_PTX_USES_BAR_MIXED = 2, /* barrier 0 (or one named by a register) otherwise: arrive, red, a count */
    GT_PTX_USES_BAR_NAMED = 4, /* other block barriers, by number */
    GT_PTX_USES_WARP = 8,      /* warp-collective: shfl, vote, match, redux, mma, ldmatrix... */
    GT_PTX_USES_ASYNC = 16,    /* asynchronous copies and barriers: cp.async, mbarrier, wgmma... */
    GT_PTX_USES_CLUSTER = 32,  /* thread block clusters */
};

struct gt_ptx_func {
    const char *name;
    int is_entry;
    int is_extern;      /* a declaration without a body */
    struct gt_ptx_param *params; /* entries only */
    unsigned nparams;
    uint32_t param_bytes;
    unsigned maxntid[3], reqntid[3], minnctapersm, maxnreg;
    size_t begin, body, end; /* offsets: the declaration, its '{', one past its '}' */
    unsigned *vars;     /* indices into the module's vars: used here or by what it calls */
    unsigned nvars;
    struct gt_ptx_loop *loops;
    unsigned nloops;
    unsigned *calls;    /* indices of the functions it calls directly */
    unsigned ncalls;
    unsigned uses;      /* GT_PTX_USES_* of its own instructions and directives */
    struct gt_ptx_barrier *barriers;
    unsigned nbarriers;
};

struct gt_ptx_module {
    int version;        /* major * 100 + minor: 900 for .version 9.0 */
    int target;         /* 90 for sm_90 */
    char target_suffix; /* 'a', 'f' or 0 */
    int address_size;
    size_t header_end;  /* one past the last of .version, .target and .address_size */
    struct gt_ptx_func *funcs;
    size_t nfuncs, nentries;
    struct gt_ptx_var *vars;
    size_t nvars;
    struct gt_arena *arena;
};

int gt_ptx_parse(const char *text, size_t size, struct gt_ptx_module *m, char *err, size_t errlen);
void gt_ptx_free(struct gt_ptx_module *m);
const struct gt_ptx_func *gt_ptx_find(const struct gt_ptx_module *m, const char *name);
int gt_ptx_reach(const struct gt_ptx_module *m, size_t f, unsigned char *in);
int gt_ptx_header(const char *text, size_t size, int *version, int *target, char *suffix);

#endif
