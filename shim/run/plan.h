/* plan.h: what the shim knows and decided about one kernel (see plan.c). */
#ifndef GT_PLAN_H
#define GT_PLAN_H

#include "call.h"
#include "guard.h"
#include "policy.h"
#include "recipe.h"
#include "variant.h"

#include <pthread.h>

struct gt_centry;

#define GT_PLAN_SIGNATURE_MAX 192 /* a launch signature's text, its NUL included */

/* A configuration chosen for the launches of one signature (or all). */
struct gt_choice {
    uint64_t sig;           /* signature hash; 0: every launch */
    char signature[GT_PLAN_SIGNATURE_MAX]; /* as the cache writes it */
    uint32_t *cfg;
    struct gt_knobs knobs;
    int rebuild;            /* compile-time knobs or macros differ from the original */
    char config[GT_SPACE_TEXT_MAX]; /* as written */
    char cubin[40];         /* store key of its cubin, "" if unknown */
    const char *why;        /* GPUTUNE_FORCE, the cache, ... */
    double time_us, baseline_us; /* as tuned, 0 if unknown */
    int failed;             /* given up: the original runs */
    int nocopy;             /* launch-time knobs whose copy of the image for graph nodes failed to load */
    atomic_int said;        /* its first launch was described */
    int guarded;            /* checked against the original on the application's launches (guard.c) */
    struct gt_guard guard;
    long entry;             /* its entry in the plan's cached entries, -1: none */
    const char *elsewhere;  /* the device its entry was tuned on when not this one, else NULL */
    const char *from;       /* and the cache file it came from */
    atomic_ulong launches;  /* launches it ran that the driver took, the original's under the guard included */
    struct gt_variant *variants; /* per context and block; for launch-time knobs alone, copies of the
                                  * original image that graph nodes run (direct launches run the original) */
    struct gt_choice *next;
};

/* A kernel's tuning state, made once, at its first launch that needs one. */
struct gt_plan {
    /* What every launch reads, first, in one cache line with the lock (see
     * struct gt_kernel). */
    atomic_uint version;           /* moves when choices or done signatures are added, or a build an
                                    * online trial waits for ends: what a thread remembered of the plan
                                    * before then (apply.c) is stale */
    int tune;                      /* tune mode may tune it */
    int checks_launch;             /* constraints read the launch: each launch's choice is checked (guard.c) */
    atomic_int settled;            /* online mode is done with it: launches run the original untouched (online.c) */
    struct gt_choice *choices;
    pthread_mutex_t lock;
    struct gt_kernel *k;
    char *shown;                   /* its name for messages */
    const struct gt_section *sec;  /* NULL: the automatic space */
    struct gt_space *space;
    struct gt_arch arch;
    char device[128];
    int driver;
    int jit;                       /* it can be rebuilt (PTX or source) */
    int checks_max;                /* the most of the watchdog's checks (enum gt_watchdog) its trials get:
                                    * lowered where checked runs did not time as their plain builds
                                    * (tune/trial.c); under lock */
    struct gt_recipe recipe;
    int recipe_state;              /* 0 not tried, 1 made, -1 failed (recipe_error) */
    char recipe_error[256];
    int *argpos;                   /* the section's argument names, resolved */
    size_t nargpos;
    struct gt_centry *cached;      /* its entries in the cache file */
    size_t ncached;
    double last_turn;              /* when a launch of it last had an undecided signature (online.c) */
    uint64_t *done;                /* signatures tuned or given up in this run */
    size_t ndone, capdone;
    uint64_t *said;                /* signatures whose forbidden choice allowed.c has reported */
    size_t nsaid, capsaid;
};

/* A launch as the policy's expressions read it, with room for its scalar
 * arguments (gt_plan_launch_env). */
#define GT_PLAN_MAX_ARGS 64
struct gt_plan_launch {
    struct gt_launch l;
    int64_t vals[GT_PLAN_MAX_ARGS];
    unsigned char ok[GT_PLAN_MAX_ARGS];
};

/* A kernel's plan in *out, or a failure with its reason in err. */
enum gt_rc gt_plan_new(struct gt_kernel *k, const char *shown, const struct gt_section *sec, struct gt_plan **out,
                       char *err, size_t errlen);
void gt_plan_free(struct gt_plan *p);
long gt_plan_keep(struct gt_plan *p, struct gt_centry *e);
const struct gt_settings *gt_plan_settings(const struct gt_plan *p);
int gt_plan_parse(const struct gt_plan *p, const char *text, uint32_t *cfg, char *err, size_t errlen);
struct gt_choice *gt_plan_choose(struct gt_plan *p, uint64_t sig, const char *signature, const uint32_t *cfg,
                                 const char *why);
struct gt_choice *gt_plan_find(struct gt_plan *p, uint64_t sig);
/* The key of the plan's signature sig in a map of per-signature state (tune/). */
uintptr_t gt_plan_key(const struct gt_plan *p, uint64_t sig);
int gt_plan_signature(const struct gt_plan *p, const struct gt_call *c, uint64_t *hash, char *text, size_t cap);
const struct gt_launch *gt_plan_launch_env(const struct gt_plan *p, const struct gt_call *c,
                                          struct gt_plan_launch *env);
int gt_plan_geometry(const struct gt_plan *p, const uint32_t *cfg, const struct gt_call *c, struct gt_geom *g,
                     char *err, size_t errlen);
int gt_plan_recipe(struct gt_plan *p, char *err, size_t errlen);
int gt_plan_job(struct gt_plan *p, const uint32_t *cfg, const unsigned block[3], int watchdog,
                struct gt_variant_job *vj);
int gt_plan_load(struct gt_plan *p, const struct gt_handle *hd, const struct gt_knobs *knobs,
                 const struct gt_jit_job *built, struct gt_variant *v, char *err, size_t errlen);
int gt_plan_load_copy(struct gt_plan *p, const struct gt_handle *hd, const struct gt_knobs *knobs,
                      struct gt_variant *v, char *err, size_t errlen);
/* Says once a process that the store could not keep a build's cubin. */
void gt_plan_store_error(const struct gt_jit_job *built);
void gt_plan_knobs(const struct gt_plan *p, const uint32_t *cfg, struct gt_knobs *knobs, int *rebuild);
struct gt_variant *gt_plan_variant(struct gt_plan *p, struct gt_choice *ch, const struct gt_handle *hd,
                                   const struct gt_geom *g);
int gt_plan_run(struct gt_plan *p, struct gt_choice *ch, struct gt_handle *hd, const struct gt_call *c, CUresult *r);
int gt_plan_runs(const struct gt_choice *ch);
/* Whether its guard still judges it on the application's launches. */
static inline int gt_plan_checking(const struct gt_choice *ch)
{
    return ch->guarded && ch->guard.verdict == GT_GUARD_CHECKING;
}
int gt_plan_settled(const struct gt_choice *ch);
/* The guards still checking this plan's configurations read what their
 * launches left done, without waiting, and say a verdict that brings
 * (gt_plan_collect); or, their context being torn down, stop
 * (gt_plan_detach). */
void gt_plan_collect(struct gt_plan *p);
void gt_plan_detach(struct gt_plan *p);
/* What a kernel node may get (gt_plan_node_function). */
enum gt_node_use {
    GT_NODE_AS_IS,   /* a settled configuration whose variant is loaded already (the application's node
                        calls, captured launches: loading a module then could break a capture) */
    GT_NODE_SETTLED, /* a settled configuration, loaded if need be (a graph instantiated outside captures) */
    GT_NODE_SETTLED_COPY, /* the same, in a copy of a graph whose instantiation gave its nodes theirs (and
                             counted them) already */
    GT_NODE_CHECKED, /* any configuration, loaded if need be (a graph whose replays the shim checks) */
};
CUfunction gt_plan_node_function(struct gt_plan *p, struct gt_choice *ch, const struct gt_handle *hd,
                                 const struct gt_call *c, enum gt_node_use use, struct gt_geom *g);
int gt_plan_run_captured(struct gt_plan *p, struct gt_choice *ch, struct gt_handle *hd, const struct gt_call *c,
                         CUresult *r);
long gt_plan_add_cached(struct gt_plan *p, const struct gt_centry *e);
void gt_plan_mark_done(struct gt_plan *p, uint64_t sig);
int gt_plan_is_done(const struct gt_plan *p, uint64_t sig);
void gt_plan_builder_open(void);

#endif
