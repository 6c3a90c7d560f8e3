/* apply.h: configurations applied at launch (see apply.c). */
#ifndef GT_APPLY_H
#define GT_APPLY_H

#include "driver.h"
#include "jit.h"
#include "registry.h"
#include "store.h"

#include <pthread.h>

struct gt_policy;

/* One launch as the application made it, through whichever entry point. */
struct gt_call {
    enum gt_entry entry;
    union {
        PFN_cuLaunchKernel_v4000 plain;
        PFN_cuLaunchKernelEx_v11060 ex;
        PFN_cuLaunchCooperativeKernel_v9000 coop;
    } real;
    CUfunction f;
    struct gt_geom g;
    CUstream s;
    void **params, **extra;
    const CUlaunchConfig *config; /* cuLaunchKernelEx's */
};

struct gt_force {
    char *glob;
    char *config;
};

struct gt_cachefile;

struct gt_apply {
    pthread_mutex_t lock;
    int ready;
    struct gt_policy *policy;   /* GPUTUNE_POLICY, NULL if unset or unusable */
    struct gt_force *force;     /* GPUTUNE_FORCE */
    int nforce;
    char binary[4096];          /* the application, as the cache file names it */
    char cache_path[4200];      /* its cache file, "" without a cache directory */
    struct gt_cachefile *cache;     /* what the file held at start */
    int guard;                  /* GPUTUNE_GUARD: applied configurations are checked (guard.c) */
    struct gt_jit jit;
    struct gt_store store;
    int have_store;
};

CUresult gt_call_launch(const struct gt_call *c, CUfunction f, const struct gt_geom *g);
int gt_call_per_thread(const struct gt_call *c);
/* Argument i of launch c of kernel k (whose parameter layout is known),
 * whichever way the launch passed it; NULL when it passed none. */
const unsigned char *gt_call_arg(const struct gt_call *c, const struct gt_kernel *k, int i);
int gt_apply_launch(struct gt_handle *hd, const struct gt_call *c, CUresult *r);
void gt_apply_exit(void);

#endif
