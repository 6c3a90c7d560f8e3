/* state.h: the one global of the shim, one part per folder that owns it (see state.c).
 *
 * Every mutable thing the shim remembers for the life of the process is
 * here, so that one file shows it all.  The fields of `gt` itself belong to
 * this folder; each sub-struct to the folder it is named for: that folder
 * and higher layers use it, lower ones never.  The parts' types are
 * declared here, from lower layers' types and pointers, so that this header
 * includes nothing above it.  Outside `gt` there are only once-flags,
 * pointers resolved once and thread-locals.  The lower layers (base,
 * devcode, policy, cache, compile) never touch `gt`: they take what they
 * work on as arguments. */
#ifndef GT_STATE_H
#define GT_STATE_H

#include "cachefile.h"
#include "driver.h"
#include "env.h"
#include "jit.h"
#include "log.h"
#include "map.h"
#include "memtrack.h"
#include "pathcost.h"
#include "pool.h"
#include "store.h"
#include "tally.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#define GT_EXPORT __attribute__((visibility("default")))

enum gt_mode { GT_MODE_OFF, GT_MODE_RUN, GT_MODE_TUNE, GT_MODE_RETUNE, GT_MODE_ONLINE };

struct gt_image;
struct gt_kernel;
struct gt_handle;
struct gt_owner;
struct gt_nvrtc_program;
struct gt_rtcprog_output;
struct gt_policy;
struct gt_cachefile;
struct gt_session_result;
struct gt_devk;
struct gt_meter;
struct gt_triton_cubin;

/* track/registry.c: every image, module, library and kernel loaded. */
struct gt_registry {
    pthread_mutex_t lock;        /* serializes every change */
    struct gt_map handles;       /* CUfunction / CUkernel -> gt_handle, read lock-free */
    struct gt_map owners;        /* CUmodule / CUlibrary -> gt_owner */
    struct gt_map by_key;        /* hash of (image, name) -> gt_kernel chain */
    struct gt_image *images;
    struct gt_kernel *kernels;
    size_t nimages, nkernels;
    struct gt_handle *dead_handles; /* unloaded, kept: a launch may still hold one */
    struct gt_owner *dead_owners;
};

/* track/rtcprog.c: the programs the application compiled with NVRTC. */
struct gt_rtcprogs {
    pthread_mutex_t lock;
    struct gt_map live;                 /* nvrtcProgram -> gt_nvrtc_program */
    struct gt_nvrtc_program *programs;  /* all, destroyed ones too */
    struct gt_rtcprog_output *outputs;  /* PTX and cubins taken out of them */
};

/* shim/track/: what the application loaded, allocated and captures. */
struct gt_track_state {
    struct gt_registry reg;
    struct gt_memtrack mem;   /* the application's allocations (base/memtrack.c) */
    struct gt_rtcprogs rtc;
    atomic_int captures;      /* track/capture.c: captures begun and not yet ended, process-wide */
    struct {
        pthread_mutex_t lock;
        char **dirs;          /* the cache's entries already looked into */
        size_t ndirs, capdirs;
        struct gt_triton_cubin *cubins; /* every cubin found in them */
        size_t ncubins, capcubins;
    } triton;                 /* track/triton.c: Triton's cache directory */
};

struct gt_force {
    char *glob;
    char *config;
};

/* Whether run mode watches launches at all (launch/apply.c: gt_apply_idle). */
enum gt_run_idle { GT_RUN_UNKNOWN, GT_RUN_WATCHING, GT_RUN_IDLE };

/* shim/run/: what every kernel's plan shares, set up once, at the first
 * driver pointer handed out or the first kernel that could need it
 * (launch/apply.c), the compilers at the first build (run/plan.c). */
struct gt_run_state {
    atomic_int idle;            /* enum gt_run_idle: nothing can apply, the launches are the driver's */
    struct gt_policy *policy;   /* GPUTUNE_POLICY, NULL if unset or unusable */
    int policy_nomem;           /* memory ran out while it was read: its sections' errors are said already */
    struct gt_force *force;     /* GPUTUNE_FORCE */
    int nforce;
    char binary[4096];          /* the application, as the cache file names it */
    char cache_path[4200];      /* its cache file, "" without a cache directory */
    struct gt_cachefile *cache; /* what the file held at start */
    struct gt_cache_source {
        char *path;
        size_t end;             /* its entries in cache: from the one before's end to this */
        int warned;             /* an entry of another device from it is used: said */
    } *sources;                 /* the files of cache's entries, in order (launch/apply.c) */
    size_t nsources;
    int guard;                  /* GPUTUNE_GUARD: applied configurations are checked (guard.c) */
    double started;             /* CLOCK_MONOTONIC seconds at the first kernel launch with a decision (once) */
    _Atomic double last_verdict; /* CLOCK_MONOTONIC seconds of the guard's last verdict on a launch (plan.c) */
    struct gt_tally launches;   /* every launch the shim's path saw (intercept/hook_launch.c) */
    struct gt_pathcost path;    /* what that path added to the launches sampled (intercept/hook_launch.c) */
    atomic_ulong busy_behind;   /* launches sampled whose stream still held earlier work (busy.c) */
    atomic_ulong busy_idle;     /* and those whose stream had finished it */
    struct gt_jit jit;
    struct gt_store store;
    int have_store;
    atomic_int store_failed;    /* a built cubin the store could not keep: said (plan.c) */
    struct {
        pthread_mutex_t lock;
        struct gt_cachefile held;   /* entries not written yet */
        int failed;                 /* a write failed: later ones do not wait for the lock */
        int refused;                /* the file must not be written: said once */
    } writes;                       /* cachewrite.c: this process's writes to its cache file */
};

/* shim/tune/: the sessions' shared resources and what they found. */
struct gt_tune_state {
    struct {
        pthread_mutex_t lock;           /* session.c: held for a whole session */
        atomic_int tuning;
        atomic_long inflight;           /* launch hooks in progress */
        pthread_t owner;
    } ser;                              /* launches wait while a session runs */
    struct gt_pool pool;                /* session.c: the compile threads, started at the first session */
    struct gt_session_result *results;  /* session.c: one per session, for the exit table */
    struct {
        pthread_mutex_t lock;
        const char *kernel;
        double *us;
        int n, cap;
    } records;                          /* timing.c: durations of the current kernel's CUPTI records, in order */
    pthread_mutex_t devk_lock;          /* devk.c: the shim's own kernels, per context */
    struct gt_devk *devk;
    struct {
        pthread_mutex_t lock;
        struct gt_map meters;           /* (plan, signature) -> struct gt_meter, under a budget */
        struct gt_meter *all;           /* every meter, for the ranking and the progress line */
        int nmeters;
        unsigned epoch;                 /* launches since the last session (or the last second) */
        double epoch_start, spent, last_said, best;
        int sessions, spent_said;
    } budget;                           /* budget.c: what tuning spends, hottest signatures first */
    struct {
        pthread_mutex_t lock;           /* held while a launch under trial is queued */
        struct gt_map trials;           /* (plan, signature) -> struct gt_online */
        struct gt_online *all;          /* every trial, for a context's teardown */
        int decided, decided_at_exit;   /* signatures decided on the launches, and at exit */
        double last_decided;            /* CLOCK_MONOTONIC seconds of the last decided on a launch */
        int settled;                    /* kernels left alone (gt_online_settle) */
    } online;                           /* online.c: GPUTUNE_MODE=online */
};

/* shim/launch/: deciding kernels' plans (apply.c), graphs' kernels in tune mode (graphs.c). */
struct gt_graph;
struct gt_launch_state {
    pthread_mutex_t lock;       /* serializes the decisions */
    pthread_mutex_t graphs_lock;
    struct gt_graph *graphs;    /* graphs.c: executable graphs whose kernels tune mode tunes */
    atomic_int ngraphs;
};

/* shim/intercept/: what the interposition counts (interpose.c), and
 * whether launches are suspended (hook_launch.c, hook_graph.c; set by
 * gputune_suspend in top/lifetime.c). */
struct gt_intercept_state {
    atomic_ulong proc_lookups, proc_replaced; /* cuGetProcAddress */
    atomic_int suspended;                     /* launches run as the application asked */
};

struct gt_state {
    enum gt_mode mode;
    struct gt_env env; /* the GPUTUNE_* variables, read once at start */
    struct gt_log log;
    struct gt_driver drv;
    struct gt_track_state track;
    struct gt_run_state run;
    struct gt_tune_state tune;
    struct gt_launch_state launch;
    struct gt_intercept_state intercept;
};

extern struct gt_state gt;

void gt_init(void);
const char *gt_mode_name(enum gt_mode mode);

#endif
