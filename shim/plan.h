/* plan.h: what the shim knows and decided about one kernel (see plan.c). */
#ifndef GT_PLAN_H
#define GT_PLAN_H

#include "apply.h"
#include "policy.h"
#include "recipe.h"
#include "variant.h"

#include <pthread.h>

struct gt_centry;

/* A configuration chosen for the launches of one signature (or all). */
struct gt_choice {
    uint64_t sig;           /* signature hash; 0: every launch */
    char signature[192];    /* as the cache writes it */
    uint32_t *cfg;
    struct gt_knobs knobs;
    int rebuild;            /* compile-time knobs or macros differ from the original */
    char config[512];       /* as written */
    char cubin[40];         /* store key of its cubin, "" if unknown */
    const char *why;        /* GPUTUNE_FORCE, the cache, ... */
    double time_us, baseline_us; /* as tuned, 0 if unknown */
    int failed;             /* given up: the original runs */
    struct gt_variant *variants; /* per context and block */
    struct gt_choice *next;
};

/* A kernel's tuning state, made once, at its first launch that needs one. */
struct gt_plan {
    pthread_mutex_t lock;
    struct gt_kernel *k;
    char *shown;                   /* its name for messages */
    const struct gt_section *sec;  /* NULL: the automatic space */
    struct gt_space *space;
    struct gt_arch arch;
    char device[128];
    int driver;
    int jit;                       /* it can be rebuilt (PTX or source) */
    struct gt_recipe recipe;
    int recipe_state;              /* 0 not tried, 1 made, -1 failed (recipe_error) */
    char recipe_error[256];
    int *argpos;                   /* the section's argument names, resolved */
    size_t nargpos;
    int tune;                      /* tune mode may tune it */
    struct gt_choice *choices;
    struct gt_centry *cached;      /* its entries in the cache file */
    size_t ncached;
    uint64_t *done;                /* signatures tuned or given up in this run */
    size_t ndone, capdone;
};

struct gt_plan *gt_plan_new(struct gt_kernel *k, const char *shown, const struct gt_section *sec, char *err,
                            size_t errlen);
void gt_plan_free(struct gt_plan *p);
const struct gt_settings *gt_plan_settings(const struct gt_plan *p);
int gt_plan_parse(const struct gt_plan *p, const char *text, uint32_t *cfg, char *err, size_t errlen);
struct gt_choice *gt_plan_choose(struct gt_plan *p, uint64_t sig, const char *signature, const uint32_t *cfg,
                                 const char *why);
struct gt_choice *gt_plan_find(struct gt_plan *p, uint64_t sig);
int gt_plan_signature(const struct gt_plan *p, const struct gt_call *c, uint64_t *hash, char *text, size_t cap);
int gt_plan_geometry(const struct gt_plan *p, const uint32_t *cfg, const struct gt_call *c, struct gt_geom *g,
                     char *err, size_t errlen);
int gt_plan_recipe(struct gt_plan *p, char *err, size_t errlen);
int gt_plan_job(struct gt_plan *p, const uint32_t *cfg, const unsigned block[3], int watchdog,
                struct gt_variant_job *vj);
int gt_plan_load(struct gt_plan *p, const struct gt_handle *hd, const struct gt_knobs *knobs, int rebuild,
                 const struct gt_jit_job *built, struct gt_variant *v, char *err, size_t errlen);
void gt_plan_knobs(const struct gt_plan *p, const uint32_t *cfg, struct gt_knobs *knobs, int *rebuild);
struct gt_variant *gt_plan_variant(struct gt_plan *p, struct gt_choice *ch, const struct gt_handle *hd,
                                   const struct gt_geom *g);
int gt_plan_run(struct gt_plan *p, struct gt_choice *ch, struct gt_handle *hd, const struct gt_call *c, CUresult *r);
void gt_plan_mark_done(struct gt_plan *p, uint64_t sig);
int gt_plan_is_done(const struct gt_plan *p, uint64_t sig);
void gt_builder_open(void);

#endif
