/* policy.h: policy files: which kernels to tune, over which space, how
 * (see policy.c for the file format, keys.c for the keys). */
#ifndef GT_POLICY_H
#define GT_POLICY_H

#include "diag.h"
#include "expr.h"
#include "space.h"

#include <stddef.h>
#include <stdint.h>

enum gt_verify { GT_VERIFY_BITWISE, GT_VERIFY_TOLERANCE };
enum gt_vtype { GT_VTYPE_F32, GT_VTYPE_F64, GT_VTYPE_F16, GT_VTYPE_BF16 };
enum gt_watchdog { GT_WATCHDOG_OFF, GT_WATCHDOG_ENTRY, GT_WATCHDOG_LOOPS };
enum gt_side_effects { GT_SIDE_EFFECTS_REFUSE, GT_SIDE_EFFECTS_ALLOW };

struct gt_kv {
    char *key, *value;
    struct gt_loc loc;
};

/* How to tune: what a [kernel] section inherits from its file's [defaults].
 * Integers are -1 and reals negative while unset; strategy is NULL. */
struct gt_settings {
    int tune;                  /* 0 or 1 */
    char *strategy;            /* a name gt_strategy_new takes (strategy.h) */
    struct gt_kv *sparams;     /* strategy.NAME = VALUE, for the strategy to read */
    size_t nsparams;
    int64_t budget_trials;
    double budget_seconds;
    int verify;                /* enum gt_verify */
    double verify_abs, verify_rel;
    int verify_type;           /* enum gt_vtype */
    int watchdog;              /* enum gt_watchdog */
    double watchdog_factor, watchdog_floor_ms;
    int64_t timing_repeat, timing_remeasure;
    int side_effects;          /* enum gt_side_effects: whether kernels that print, assert or allocate are tuned */
    double online_settle;      /* online mode: seconds without a turn after which a kernel that runs the original
                                * everywhere is left alone; 0 never */
    int unnamed;               /* [defaults] only: 1 automatic space, 0 leave alone */
};

/* A kernel argument named in a policy: by position (pos >= 0), or by its
 * PTX parameter name (pos -1, name indexes the section's argnames). */
struct gt_argref {
    int pos, name;
    struct gt_loc loc;
};

/* A dimension as declared.  Knobs given as `auto` get their values from the
 * architecture when the space is built. */
struct gt_dimspec {
    char *name;
    enum gt_dim_kind kind;
    int is_auto;               /* 0 listed, 1 `KNOB = auto`, 2 added by `auto = yes` */
    int64_t *values;
    size_t n;
    int independent;           /* 1 independent, 0 shared (the default) */
    struct gt_loc loc;
};

struct gt_section {
    char *pattern;             /* the kernel glob; NULL for [defaults] */
    struct gt_loc loc;         /* of the section header */
    int errors;                /* messages about it (or its file's [defaults]): do not tune */
    char *source;              /* CUDA source, resolved against the policy file's folder */
    char **options;            /* NVRTC options */
    size_t noptions;
    char **link_options;       /* nvJitLink options */
    size_t nlink_options;
    char *entry;               /* name expression with {PARAM} holes, NULL: the kernel's name */
    struct gt_dimspec *dims;   /* in declaration order: the space's dimensions */
    size_t ndims;
    int auto_knobs;            /* auto = yes: the automatic knobs not declared are added */
    struct gt_kv *baseline;    /* the original build's values: NAME -> VALUE */
    size_t nbaseline;
    struct gt_expr **constraints;
    size_t nconstraints;
    struct gt_expr *block[3], *grid[3], *smem; /* NULL: as launched (or 1 past the components given) */
    int nblock, ngrid;         /* components given, 0: as launched */
    struct gt_expr **signature;  /* launch values that key the cache beyond grid, block and smem */
    size_t nsignature;
    struct gt_argref *snap_add, *snap_skip;
    size_t nsnap_add, nsnap_skip;
    struct gt_names argnames;  /* arg.NAME used anywhere in the section */
    struct gt_settings set;    /* merged with the file's [defaults] */
};

struct gt_policy {
    struct gt_section **sections;  /* [kernel] sections of all files, in order */
    size_t nsections;
    struct gt_section **defaults;  /* [defaults] sections */
    size_t ndefaults;
    char **files;                  /* the files read, as named */
    size_t nfiles;
    struct gt_settings unnamed;    /* for kernels no section names: the [defaults] merged */
};

struct gt_policy *gt_policy_new(void);
void gt_policy_free(struct gt_policy *p);
/* Reads one file.  Returns 0, 1 when it has errors (messages in d, its
 * sections marked), -1 when it cannot be read (a message in d). */
int gt_policy_load_file(struct gt_policy *p, const char *path, struct gt_diags *d);
/* The same from memory; name is used for messages and relative sources. */
int gt_policy_load_string(struct gt_policy *p, const char *name, const char *text, size_t len, struct gt_diags *d);
/* Reads every file of a ':'-separated list (GPUTUNE_POLICY); returns the
 * worst result of gt_policy_load_file. */
int gt_policy_load_list(struct gt_policy *p, const char *list, struct gt_diags *d);
/* Settings over every file's (GPUTUNE_SET): blank-separated KEY=VALUE words,
 * each a setting as a [defaults] section takes it, replace what sections
 * and [defaults] say.  Returns 0, or 1 with messages in d (line N is the
 * N-th word) and nothing changed. */
int gt_policy_override(struct gt_policy *p, const char *words, struct gt_diags *d);

/* Does pattern select the kernel?  Globs (fnmatch) are tried against the
 * mangled name, the demangled one, the demangled one without its return
 * type, and its bare name (no parameters, no return type). */
int gt_policy_match(const char *pattern, const char *mangled, const char *demangled);
/* The first section selecting the kernel, or NULL.  demangled may be NULL. */
const struct gt_section *gt_policy_find(const struct gt_policy *p, const char *mangled, const char *demangled);
/* The bare name of a demangled signature ("void ns::k<4>(int)" -> "ns::k<4>"). */
size_t gt_policy_bare_name(const char *demangled, const char **start);

/* The section's space for an architecture.  Without PTX or a source
 * (GT_SPACE_NO_JIT), JIT knobs keep only their default value.  Returns NULL
 * with messages in d when a value does not fit the architecture. */
#define GT_SPACE_NO_JIT 1
struct gt_space *gt_policy_space(const struct gt_section *sec, const struct gt_arch *a, unsigned flags,
                                 struct gt_diags *d);

/* The launch geometry of a configuration. */
struct gt_geometry {
    int64_t grid[3], block[3], smem;
};
/* Returns 0, or -1 with "file:line:col: why" (or why the geometry is not
 * launchable on a) in err. */
int gt_policy_geometry(const struct gt_section *sec, const struct gt_space *s, const uint32_t *cfg,
                       const struct gt_launch *l, const struct gt_arch *a, struct gt_geometry *g, char *err,
                       size_t errlen);
/* The section's signature values for a launch (at most max); returns their
 * count, or -1 with err set. */
int gt_policy_signature(const struct gt_section *sec, const struct gt_launch *l, int64_t *vals, size_t max,
                        char *err, size_t errlen);
/* The entry's name expression with the configuration's values filled in. */
int gt_policy_entry(const struct gt_section *sec, const struct gt_space *s, const uint32_t *cfg, char *buf,
                    size_t len);
/* A strategy parameter, or dflt when the policy does not set it. */
const char *gt_settings_param(const struct gt_settings *st, const char *name, const char *dflt);

#endif
