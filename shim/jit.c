/* jit.c: NVRTC and nvJitLink, opened when first needed.
 *
 * Variants are built on the CPU: CUDA source with NVRTC, PTX with nvJitLink,
 * each straight to a cubin for the device's exact architecture.  Neither
 * library is linked: an application that never tunes never loads them, and
 * one that ships its own libnvrtc keeps it (dlopen by soname finds the copy
 * already loaded).  Functions are resolved from our own handles with the
 * resolver the owner passes in: inside the shim that is libc's dlsym, not
 * the shim's own, so the shim's compilations are not taken for the
 * application's.  Both compilers may run on many threads at once,
 * one program or link per job. */
#include "jit.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void gt_jit_init(struct gt_jit *j, void *(*resolve)(void *, const char *))
{
    memset(j, 0, sizeof *j);
    pthread_mutex_init(&j->lock, NULL);
    j->resolve = resolve;
}

/* The library by soname, else in $CUDA_HOME/lib64, else in /usr/local/cuda/lib64. */
static void *open_lib(const char *soname)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    const char *homes[] = {getenv("CUDA_HOME"), "/usr/local/cuda"};
    for (size_t i = 0; !h && i < 2; i++) {
        char path[4096];
        if (homes[i] && snprintf(path, sizeof path, "%s/lib64/%s", homes[i], soname) < (int)sizeof path)
            h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    return h;
}

#define RESOLVE(lib, field, sym) (j->field = (__typeof__(j->field))j->resolve(lib, sym), j->field != NULL)

static int resolve_nvrtc(struct gt_jit *j)
{
    void *h = j->nvrtc_lib;
    return RESOLVE(h, rtc.create, "nvrtcCreateProgram") && RESOLVE(h, rtc.compile, "nvrtcCompileProgram") &&
           RESOLVE(h, rtc.cubin_size, "nvrtcGetCUBINSize") && RESOLVE(h, rtc.cubin, "nvrtcGetCUBIN") &&
           RESOLVE(h, rtc.log_size, "nvrtcGetProgramLogSize") && RESOLVE(h, rtc.log, "nvrtcGetProgramLog") &&
           RESOLVE(h, rtc.destroy, "nvrtcDestroyProgram") && RESOLVE(h, rtc.version, "nvrtcVersion") &&
           RESOLVE(h, rtc.add_name, "nvrtcAddNameExpression") && RESOLVE(h, rtc.lowered_name, "nvrtcGetLoweredName");
}

static int resolve_jitlink(struct gt_jit *j)
{
    void *h = j->jitlink_lib;
    return RESOLVE(h, link.create, "__nvJitLinkCreate_13_0") && RESOLVE(h, link.add, "__nvJitLinkAddData_13_0") &&
           RESOLVE(h, link.complete, "__nvJitLinkComplete_13_0") &&
           RESOLVE(h, link.cubin_size, "__nvJitLinkGetLinkedCubinSize_13_0") &&
           RESOLVE(h, link.cubin, "__nvJitLinkGetLinkedCubin_13_0") &&
           RESOLVE(h, link.error_size, "__nvJitLinkGetErrorLogSize_13_0") &&
           RESOLVE(h, link.error_log, "__nvJitLinkGetErrorLog_13_0") &&
           RESOLVE(h, link.info_size, "__nvJitLinkGetInfoLogSize_13_0") &&
           RESOLVE(h, link.info_log, "__nvJitLinkGetInfoLog_13_0") &&
           RESOLVE(h, link.destroy, "__nvJitLinkDestroy_13_0") && RESOLVE(h, link.version, "nvJitLinkVersion");
}

static void open_locked(struct gt_jit *j)
{
    j->nvrtc_lib = open_lib("libnvrtc.so.13");
    j->jitlink_lib = open_lib("libnvJitLink.so.13");
    if (!j->nvrtc_lib || !resolve_nvrtc(j)) {
        snprintf(j->error, sizeof j->error, "NVRTC (libnvrtc.so.13) not found or incomplete: %s",
                 j->nvrtc_lib ? "missing entry points" : dlerror());
    } else if (!j->jitlink_lib || !resolve_jitlink(j)) {
        snprintf(j->error, sizeof j->error, "nvJitLink (libnvJitLink.so.13) not found or incomplete: %s",
                 j->jitlink_lib ? "missing entry points" : dlerror());
    } else {
        int major = 0, minor = 0;
        unsigned umajor = 0, uminor = 0;
        j->rtc.version(&major, &minor);
        j->nvrtc_version = major * 1000 + minor * 10;
        j->link.version(&umajor, &uminor);
        j->jitlink_version = (int)(umajor * 1000 + uminor * 10);
        j->state = 1;
        return;
    }
    j->state = -1;
}

/* 0 when both compilers are usable; else -1 and j->error says why. */
int gt_jit_open(struct gt_jit *j)
{
    pthread_mutex_lock(&j->lock);
    if (j->state == 0)
        open_locked(j);
    int ok = j->state > 0;
    pthread_mutex_unlock(&j->lock);
    return ok ? 0 : -1;
}

/* Everything that decides the cubin, in one buffer, for the store's key. */
static struct gt_key job_key(const struct gt_jit *j, const struct gt_jit_job *job)
{
    size_t cap = 256 + strlen(job->text) + strlen(job->name) + (job->name_expr ? strlen(job->name_expr) : 0);
    for (int i = 0; i < job->ninstantiate; i++)
        cap += strlen(job->instantiate[i]) + 1;
    for (int i = 0; i < job->noptions; i++)
        cap += strlen(job->options[i]) + 1;
    for (int i = 0; i < job->nheaders; i++)
        cap += strlen(job->headers[i]) + strlen(job->include_names[i]) + 2;
    char *buf = malloc(cap);
    if (!buf)
        return (struct gt_key){0, 0};
    size_t n = (size_t)snprintf(buf, cap, "%s rtc %d link %d arch %d name %s", job->input == GT_JIT_SOURCE ? "cuda" : "ptx",
                                j->nvrtc_version, j->jitlink_version, job->arch, job->name) + 1;
    for (int i = 0; i < job->noptions; i++)
        n += (size_t)sprintf(buf + n, "%s", job->options[i]) + 1;
    for (int i = 0; i < job->nheaders; i++) {
        n += (size_t)sprintf(buf + n, "%s", job->include_names[i]) + 1;
        n += (size_t)sprintf(buf + n, "%s", job->headers[i]) + 1;
    }
    if (job->name_expr)
        n += (size_t)sprintf(buf + n, "%s", job->name_expr) + 1;
    for (int i = 0; i < job->ninstantiate; i++)
        n += (size_t)sprintf(buf + n, "%s", job->instantiate[i]) + 1;
    n += (size_t)sprintf(buf + n, "%s", job->text);
    struct gt_key k = gt_key_of(buf, n);
    free(buf);
    return k;
}

/* A NULL-terminated copy of the options with the architecture appended. */
static const char **with_arch(const struct gt_jit_job *job, const char *flag, char *arch, size_t cap)
{
    const char **opts = malloc((size_t)(job->noptions + 1) * sizeof *opts);
    if (!opts)
        return NULL;
    for (int i = 0; i < job->noptions; i++)
        opts[i] = job->options[i];
    snprintf(arch, cap, "%s%d", flag, job->arch);
    opts[job->noptions] = arch;
    return opts;
}

/* `log` if the getter that filled it succeeded, else NULL (and freed). */
static char *kept(char *log, int filled)
{
    if (!filled) {
        free(log);
        return NULL;
    }
    return log;
}

static void build_source(struct gt_jit *j, struct gt_jit_job *job)
{
    nvrtcProgram prog;
    char arch[32];
    if (j->rtc.create(&prog, job->text, job->name, job->nheaders, job->headers, job->include_names) != NVRTC_SUCCESS) {
        job->log = strdup("nvrtcCreateProgram failed");
        return;
    }
    const char **opts = with_arch(job, "--gpu-architecture=sm_", arch, sizeof arch);
    nvrtcResult r = opts ? NVRTC_SUCCESS : NVRTC_ERROR_OUT_OF_MEMORY;
    if (r == NVRTC_SUCCESS && job->name_expr)
        r = j->rtc.add_name(prog, job->name_expr);
    for (int i = 0; r == NVRTC_SUCCESS && i < job->ninstantiate; i++)
        r = j->rtc.add_name(prog, job->instantiate[i]);
    if (r == NVRTC_SUCCESS)
        r = j->rtc.compile(prog, job->noptions + 1, opts);
    free(opts);
    size_t size = 0;
    char *log;
    if (j->rtc.log_size(prog, &size) == NVRTC_SUCCESS && size > 1 && (log = malloc(size)) != NULL)
        job->log = kept(log, j->rtc.log(prog, log) == NVRTC_SUCCESS);
    if (r == NVRTC_SUCCESS && j->rtc.cubin_size(prog, &job->cubin_size) == NVRTC_SUCCESS &&
        (job->cubin = malloc(job->cubin_size)) != NULL)
        job->ok = j->rtc.cubin(prog, (char *)job->cubin) == NVRTC_SUCCESS;
    const char *lowered = NULL;
    if (job->ok && job->name_expr && j->rtc.lowered_name(prog, job->name_expr, &lowered) == NVRTC_SUCCESS)
        job->lowered = strdup(lowered);
    j->rtc.destroy(&prog);
}

static void build_ptx(struct gt_jit *j, struct gt_jit_job *job)
{
    nvJitLinkHandle h;
    char arch[32];
    const char **opts = with_arch(job, "-arch=sm_", arch, sizeof arch);
    if (!opts || j->link.create(&h, (uint32_t)job->noptions + 1, opts) != NVJITLINK_SUCCESS) {
        free(opts);
        job->log = strdup("nvJitLinkCreate failed: bad options");
        return;
    }
    free(opts);
    nvJitLinkResult r = j->link.add(h, NVJITLINK_INPUT_PTX, job->text, strlen(job->text), job->name);
    if (r == NVJITLINK_SUCCESS)
        r = j->link.complete(h);
    size_t size = 0;
    char *log;
    if (r != NVJITLINK_SUCCESS) {
        if (j->link.error_size(h, &size) == NVJITLINK_SUCCESS && size > 1 && (log = malloc(size)) != NULL)
            job->log = kept(log, j->link.error_log(h, log) == NVJITLINK_SUCCESS);
    } else if (j->link.cubin_size(h, &job->cubin_size) == NVJITLINK_SUCCESS &&
               (job->cubin = malloc(job->cubin_size)) != NULL) {
        job->ok = j->link.cubin(h, job->cubin) == NVJITLINK_SUCCESS;
        if (j->link.info_size(h, &size) == NVJITLINK_SUCCESS && size > 1 && (log = malloc(size)) != NULL)
            job->log = kept(log, j->link.info_log(h, log) == NVJITLINK_SUCCESS);
    }
    j->link.destroy(&h);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A stored cubin, with the lowered name of the job's name expression. */
static int from_store(const struct gt_store *store, struct gt_key key, struct gt_jit_job *job)
{
    size_t size;
    if (job->name_expr && gt_store_get(store, key, "name", (unsigned char **)&job->lowered, &size) != 0)
        return 0;
    if (gt_store_get(store, key, "cubin", &job->cubin, &job->cubin_size) == 0)
        return 1;
    free(job->lowered);
    job->lowered = NULL;
    return 0;
}

static void to_store(const struct gt_store *store, struct gt_key key, struct gt_jit_job *job)
{
    char *err = job->store_error;
    size_t n = sizeof job->store_error;
    if ((!job->lowered || gt_store_put(store, key, "name", job->lowered, strlen(job->lowered), err, n) == 0))
        gt_store_put(store, key, "cubin", job->cubin, job->cubin_size, err, n);
}

/* Builds job into job->cubin (job->ok), from the store when it has it. */
void gt_jit_build(struct gt_jit *j, const struct gt_store *store, struct gt_jit_job *job)
{
    double t0 = now();
    job->ok = job->from_store = 0;
    if (gt_jit_open(j) != 0) {
        job->log = strdup(j->error);
        return;
    }
    struct gt_key key = job_key(j, job);
    if (store && from_store(store, key, job)) {
        job->ok = job->from_store = 1;
    } else {
        if (job->input == GT_JIT_SOURCE)
            build_source(j, job);
        else
            build_ptx(j, job);
        if (job->ok && store)
            to_store(store, key, job);
    }
    job->seconds = now() - t0;
}

void gt_jit_job_clear(struct gt_jit_job *job)
{
    free(job->cubin);
    free(job->log);
    free(job->lowered);
    job->cubin = NULL;
    job->log = NULL;
    job->lowered = NULL;
    job->cubin_size = 0;
    job->ok = 0;
}

/* The libraries stay loaded: unloading them would orphan what their own
 * runtimes allocated, and the process may open them again. */
void gt_jit_close(struct gt_jit *j)
{
    pthread_mutex_destroy(&j->lock);
    memset(j, 0, sizeof *j);
}
