/* space.h: tuning spaces: dimensions, constraints, enumeration, configurations
 * as text, and the automatic space (see space.c). */
#ifndef GT_SPACE_H
#define GT_SPACE_H

#include "diag.h"
#include "expr.h"
#include "result.h"

#include <stddef.h>
#include <stdint.h>

/* What a dimension varies: a macro of the kernel's source, or a knob that
 * never changes what the kernel computes. */
enum gt_dim_kind {
    GT_DIM_PARAM,     /* -DNAME=value for source builds; usable in expressions */
    GT_DIM_CACHE,     /* cache preference: enum gt_cache */
    GT_DIM_CARVEOUT,  /* shared-memory carve-out in percent, GT_CARVEOUT_DEFAULT */
    GT_DIM_MAXRREG,   /* -maxrregcount, 0: none */
    GT_DIM_DLCM,      /* ptxas -dlcm: enum gt_dlcm */
    GT_DIM_BOUNDS,    /* 1: .maxntid set to the launch's block, 0: as compiled */
    GT_DIM_MINBLOCKS, /* .minnctapersm with bounds, 0: none */
    GT_DIM_NKINDS
};

enum gt_cache { GT_CACHE_DEFAULT, GT_CACHE_NONE, GT_CACHE_SHARED, GT_CACHE_L1, GT_CACHE_EQUAL };
enum gt_dlcm { GT_DLCM_DEFAULT, GT_DLCM_CA, GT_DLCM_CG, GT_DLCM_CS, GT_DLCM_LU, GT_DLCM_CV };
#define GT_CARVEOUT_DEFAULT (-1)

/* The limits of an architecture that spaces and launch geometry depend on. */
struct gt_arch {
    int sm;                     /* 90 for sm_90 */
    int max_threads_per_block;
    int max_regs_per_thread;
    int regs_per_sm;
    int max_warps_per_sm;
    int reg_alloc_unit;         /* a warp's registers are allocated in multiples of this */
    int64_t max_smem_per_block; /* bytes, with the opt-in attribute */
};

/* Fills *a for sm (e.g. 90); returns 0, or -1 for an unknown architecture
 * (then *a holds sm_90's limits with a->sm = sm). */
int gt_arch_for_sm(int sm, struct gt_arch *a);

struct gt_dim {
    char *name;
    enum gt_dim_kind kind;
    int64_t *values;
    size_t n;
    size_t def;       /* index of the default value (the original build's) */
    int independent;  /* affects one part of the kernel only (additive predictor) */
    struct gt_loc loc;
};

struct gt_constraint {
    struct gt_expr *e;
    int level;   /* decided once dimensions 0..level have values; -1: uses none */
    int launch;  /* uses orig.* or arguments: checked only when a launch is given */
    int owned;   /* freed with the space */
};

struct gt_space {
    struct gt_dim *dims;
    size_t ndims;
    const char **names;          /* dims[i].name, for expression scopes */
    unsigned char *opaque;       /* per dimension: symbolic values (cache, dlcm) */
    struct gt_constraint *cons;
    size_t ncons;
    uint64_t size;               /* product of the dimensions' sizes */
};

/* Why a configuration was not accepted by gt_space_check. */
struct gt_space_fault {
    int con;                /* the constraint, -1 if none */
    int error;              /* 1: its evaluation failed (err says why), 0: it was false */
    struct gt_expr_err err;
};

struct gt_space *gt_space_new(void);
void gt_space_free(struct gt_space *s);
/* Adds a dimension, the last one (index s->ndims - 1): GT_OK, GT_NO_MEMORY,
 * or GT_TOO_LARGE if the space would pass 2^62 configurations. */
enum gt_rc gt_space_add_dim(struct gt_space *s, const char *name, enum gt_dim_kind kind, const int64_t *values,
                     size_t n, size_t def, struct gt_loc loc);
/* e must have been compiled against this space's dimensions (gt_space_scope). */
int gt_space_add_constraint(struct gt_space *s, struct gt_expr *e, int owned);
/* Compiles and adds text; internal constraints may use symbolic dimensions. */
int gt_space_add_constraint_text(struct gt_space *s, const char *text, int internal, struct gt_diags *d);
/* A scope over the space's dimensions; allow holds GT_USES_* beyond GT_USES_DIM. */
void gt_space_scope(const struct gt_space *s, unsigned allow, struct gt_expr_scope *scope);
int gt_space_find_dim(const struct gt_space *s, const char *name);

/* Configurations: one value index per dimension (uint32_t cfg[ndims]).
 * Enumeration order: the last dimension varies fastest. */
void gt_space_default(const struct gt_space *s, uint32_t *cfg);
void gt_space_values(const struct gt_space *s, const uint32_t *cfg, int64_t *vals);
uint64_t gt_space_rank(const struct gt_space *s, const uint32_t *cfg);
void gt_space_unrank(const struct gt_space *s, uint64_t rank, uint32_t *cfg);
/* 1: every constraint holds; 0: one is false; -1: one failed to evaluate.
 * Launch-dependent constraints are checked only when launch is not NULL. */
int gt_space_check(const struct gt_space *s, const uint32_t *cfg, const struct gt_launch *launch,
                   struct gt_space_fault *f);
/* How many constraints depend on the launch (read orig.* or arguments). */
size_t gt_space_launch_constraints(const struct gt_space *s);

/* Enumeration of the configurations that satisfy the constraints, pruning
 * as soon as a constraint's dimensions are set.  The first evaluation
 * failure is kept in fault (fault_cfg holds its configuration); that
 * configuration counts as excluded. */
struct gt_space_iter {
    const struct gt_space *s;
    const struct gt_launch *launch;
    uint32_t *cfg;
    int64_t *vals;
    int depth, state;
    size_t *con_at, *con_start;   /* constraints per level, in CSR form; level -1 first */
    uint64_t failures;            /* configurations excluded by evaluation failures */
    struct gt_space_fault fault;
    uint32_t *fault_cfg;
};

int gt_space_iter_init(struct gt_space_iter *it, const struct gt_space *s, const struct gt_launch *launch);
int gt_space_iter_next(struct gt_space_iter *it); /* 1: it->cfg is the next one; 0: no more */
void gt_space_iter_clear(struct gt_space_iter *it);
/* Counts the configurations of a fresh iterator without listing them (its
 * fault and failures tell about evaluation failures afterwards): GT_OK, or
 * GT_TOO_LARGE after visiting max_visits partial configurations (0: no
 * limit). */
enum gt_rc gt_space_count(struct gt_space_iter *it, uint64_t max_visits, uint64_t *count);

/* Configurations as text: "BLOCK=128 ITEMS=4 cache=l1 maxrreg=64", every
 * dimension in order.  Returns what snprintf returns: len or more when
 * truncated. */
int gt_space_format(const struct gt_space *s, const uint32_t *cfg, char *buf, size_t len);
/* The bytes a configuration's text may take, with its terminating null: the
 * size of the buffers that keep one (a cache entry's, a choice's). */
#define GT_SPACE_TEXT_MAX 512
/* The length of the longest configuration text of s, without the null. */
size_t gt_space_text_len(const struct gt_space *s);
int gt_space_value_text(const struct gt_space *s, size_t dim, size_t idx, char *buf, size_t len);
/* Parses text back, names in any order, every dimension exactly once unless
 * GT_PARSE_PARTIAL (then cfg keeps its values for dimensions not named).
 * Returns 0, or -1 with a message in err and the offending byte in *erroff. */
#define GT_PARSE_PARTIAL 1
int gt_space_parse(const struct gt_space *s, const char *text, unsigned flags, uint32_t *cfg, char *err,
                   size_t errlen, size_t *erroff);

/* The knobs of a configuration, with defaults for those the space does not vary. */
struct gt_knobs {
    int cache;     /* enum gt_cache */
    int carveout;  /* percent, GT_CARVEOUT_DEFAULT */
    int maxrreg;   /* 0: none */
    int dlcm;      /* enum gt_dlcm */
    int bounds;    /* 0 or 1 */
    int minblocks; /* 0: none */
};
void gt_space_knobs(const struct gt_space *s, const uint32_t *cfg, struct gt_knobs *k);

/* Knob kinds and values as policy files spell them. */
const char *gt_knob_name(enum gt_dim_kind kind);           /* "cache", ... ; "param" */
int gt_knob_kind(const char *name, size_t len);            /* enum gt_dim_kind, or -1 */
/* Parses one value of a knob ("l1", "64", "default"); returns 0, or -1 with
 * what was expected in *expect. */
int gt_knob_parse_value(enum gt_dim_kind kind, const char *word, size_t len, int64_t *v, const char **expect);
int gt_knob_format_value(enum gt_dim_kind kind, int64_t v, char *buf, size_t len);
/* Whether a configuration's text ("cache=default carveout=default") names
 * launch-time knobs alone, each at the value that leaves the launch as the
 * application made it, as tune mode writes one where the original won.
 * A macro's original is its kernel's space's to say: text naming one is
 * not known to be the original (0). */
int gt_knob_config_is_original(const char *config);
/* Checks a knob value against an architecture; returns 0 or -1 with why. */
int gt_knob_check_arch(enum gt_dim_kind kind, int64_t v, const struct gt_arch *a, char *why, size_t len);
/* The values `auto` stands for, default first; returns the count (at most max). */
size_t gt_knob_auto_values(enum gt_dim_kind kind, const struct gt_arch *a, int64_t *v, size_t max);
/* The constraint the automatic knobs come with when both cache and carveout
 * vary: both steer the same L1/shared split, so only one of them at a time. */
extern const char gt_knob_split_constraint[];

/* The automatic space for a kernel no policy names: cache preference and
 * carve-out always; with PTX also max registers, load cache mode and
 * launch bounds.  None of them changes results. */
struct gt_space *gt_space_auto(const struct gt_arch *a, int with_ptx, struct gt_diags *d);
/* Adds the automatic knob dimensions that s does not have yet. */
int gt_space_add_auto_knobs(struct gt_space *s, const struct gt_arch *a, int with_ptx, struct gt_diags *d);

#endif
