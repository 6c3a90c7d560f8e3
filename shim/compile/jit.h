/* jit.h: NVRTC and nvJitLink, opened when first needed (see jit.c). */
#ifndef GT_JIT_H
#define GT_JIT_H

#include "cudalibs.h"
#include "store.h"
#include "watchdog.h"

#include <limits.h>
#include <nvJitLink.h>
#include <nvrtc.h>
#include <pthread.h>

struct gt_jit {
    pthread_mutex_t lock;
    int state;          /* 0: not opened yet, 1: usable, -1: not available (see error) */
    char error[512];
    void *(*resolve)(void *, const char *); /* dlsym, or the shim's path to libc's */
    char worker[PATH_MAX];  /* the gputune that runs NVRTC in worker processes (rtcworker.c); "" for here */
    /* The owner's log for what the workers could not do (may be NULL): each
     * failure NVRTC recovered from in this process, and `final` once when a
     * thread gives workers up or for a build failed because its worker did
     * not answer in time. */
    void (*note)(int final, const char *message);
    /* The owner's log, once, of which compilers were opened or, `failed`,
     * why none could be (may be NULL). */
    void (*opened)(int failed, const char *message);
    int answer_ms;      /* how long a worker may take to answer; 0: no limit */
    int cuda_major;     /* the driver's CUDA major version: no newer compilers; 0 for any */
    struct gt_cudalib nvrtc_lib, jitlink_lib;
    char jitlink_suffix[16]; /* of nvJitLink's entry points: "_13_0", "_12_4"; "" for unversioned names */
    int nvrtc_version, jitlink_version; /* major * 1000 + minor * 10 */
    struct {
        __typeof__(&nvrtcCreateProgram) create;
        __typeof__(&nvrtcCompileProgram) compile;
        __typeof__(&nvrtcGetPTXSize) ptx_size;
        __typeof__(&nvrtcGetPTX) ptx;
        __typeof__(&nvrtcGetProgramLogSize) log_size;
        __typeof__(&nvrtcGetProgramLog) log;
        __typeof__(&nvrtcDestroyProgram) destroy;
        __typeof__(&nvrtcAddNameExpression) add_name;
        __typeof__(&nvrtcGetLoweredName) lowered_name;
        __typeof__(&nvrtcVersion) version;
    } rtc;
    struct {
        __typeof__(&__nvJitLinkCreate_13_0) create;
        __typeof__(&__nvJitLinkAddData_13_0) add;
        __typeof__(&__nvJitLinkComplete_13_0) complete;
        __typeof__(&__nvJitLinkGetLinkedCubinSize_13_0) cubin_size;
        __typeof__(&__nvJitLinkGetLinkedCubin_13_0) cubin;
        __typeof__(&__nvJitLinkGetErrorLogSize_13_0) error_size;
        __typeof__(&__nvJitLinkGetErrorLog_13_0) error_log;
        __typeof__(&__nvJitLinkGetInfoLogSize_13_0) info_size;
        __typeof__(&__nvJitLinkGetInfoLog_13_0) info_log;
        __typeof__(&__nvJitLinkDestroy_13_0) destroy;
    } link; /* typed by CUDA 13's header: the signatures every version shares */
};

enum gt_jit_input { GT_JIT_SOURCE, GT_JIT_PTX };

/* One NVRTC compilation, the same in this process and in a worker. */
struct gt_jit_rtc_in {
    const char *name, *text;
    int nheaders;
    const char *const *headers, *const *include_names;
    int noptions;
    const char *const *options;  /* with the architecture */
    const char *name_expr;       /* NULL for none */
    int ninstantiate;
    const char *const *instantiate;
};

struct gt_jit_rtc_out {
    int ok;                      /* NVRTC made PTX */
    char *ptx, *log, *lowered;   /* malloc'd; NULL for none (lowered: of name_expr) */
};

/* One compilation to a cubin for one exact architecture: CUDA source
 * through NVRTC to PTX, then PTX through nvJitLink. */
struct gt_jit_job {
    enum gt_jit_input input;
    const char *text;            /* NUL-terminated source or PTX */
    const char *name;            /* program or input name, for messages */
    int nheaders;
    const char *const *headers, *const *include_names;
    int noptions;
    const char *const *options;  /* NVRTC's (source only), without the architecture */
    int nlink_options;
    const char *const *link_options; /* nvJitLink's, without the architecture */
    int arch;                    /* 90 for sm_90 */
    const char *name_expr;       /* source only: a kernel's name expression, e.g. "gemm<128>" */
    int ninstantiate;            /* source only: more name expressions to instantiate */
    const char *const *instantiate;
    int watchdog;                /* enum gt_watchdog: checks to add for trials (watchdog.c) */
    const char *kernel;          /* the kernel they go into, when name_expr does not say */
    int want_ptx;                /* source only: keep NVRTC's PTX in ptx, from the store too */
    /* results */
    int ok;
    int from_store;
    struct gt_key key;           /* what the cubin is stored under */
    unsigned char *cubin;
    size_t cubin_size;
    unsigned char *plain;        /* with the watchdog's checks in cubin: the same PTX built without them */
    size_t plain_size;
    char *log;                   /* the compiler's messages, NULL if none */
    char *lowered;               /* the mangled name of name_expr, when given */
    char *ptx;                   /* what NVRTC made of a source; NULL for PTX input, or from the store
                                    unless want_ptx */
    struct gt_wd_report watch;   /* what the watchdog's instrumentation did (not from the store) */
    char store_error[256];       /* why a built cubin could not be stored, "" if it was */
    double seconds;
};

void gt_jit_init(struct gt_jit *j, void *(*resolve)(void *, const char *));
int gt_jit_open(struct gt_jit *j);
void gt_jit_nvrtc(struct gt_jit *j, const struct gt_jit_rtc_in *in, struct gt_jit_rtc_out *out);
void gt_jit_build(struct gt_jit *j, const struct gt_store *store, struct gt_jit_job *job);
struct gt_key gt_jit_key(const struct gt_jit *j, const struct gt_jit_job *job);
int gt_jit_from_store(const struct gt_store *store, struct gt_key key, struct gt_jit_job *job);
void gt_jit_job_clear(struct gt_jit_job *job);
void gt_jit_close(struct gt_jit *j);
void gt_jit_fork_hold(void);
void gt_jit_fork_release(int child);

#endif
