/* jit.c: NVRTC and nvJitLink, opened when first needed.
 *
 * Variants are built on the CPU, always in two steps: CUDA source through
 * NVRTC to PTX for the device's virtual architecture, then PTX through
 * nvJitLink to a cubin for its exact one.  The knobs that shape the machine
 * code (register limit, load cache mode, launch bounds) are nvJitLink's
 * options whatever the input, and the PTX between the steps is there for
 * the watchdog to instrument (watchdog.c).  (NVRTC building cubins itself
 * also scaled worse across threads.)  Neither
 * library is linked: an application that never tunes never loads them, and
 * one that ships its own libnvrtc keeps it (dlopen by soname finds the copy
 * already loaded).  Functions are resolved from our own handles with the
 * resolver the owner passes in: inside the shim that is libc's dlsym, not
 * the shim's own, so the shim's compilations are not taken for the
 * application's.  Both compilers may run on many threads at once,
 * one program or link per job, but NVRTC serializes the programs of one
 * process behind a lock of its own: when the owner names a worker
 * executable (j->worker), each compiling thread sends its NVRTC step to a
 * worker process of its own (rtcworker.c), and runs it here only when no
 * worker can.  The worker runs gt_jit_nvrtc too, with the same libnvrtc, so
 * the PTX is the same either way, and so is the store's key.
 *
 * fork() waits for the builds in flight (gt_jit_fork_hold): the compilers'
 * exit handlers run in a forked child, and would wait forever for a lock
 * that a thread of the parent held in the middle of a build. */
#include "jit.h"
#include "alloc.h"
#include "clock.h"
#include "cudalibs.h"
#include "errmsg.h"
#include "rtcworker.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every build holds it for reading; fork() takes it for writing.  Writers
 * first, so that a pool kept busy by a session cannot hold fork() back. */
static pthread_rwlock_t building = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;

void gt_jit_fork_hold(void)
{
    pthread_rwlock_wrlock(&building);
}

/* In the child the lock belongs to a thread that no longer exists. */
void gt_jit_fork_release(int child)
{
    if (child)
        building = (pthread_rwlock_t)PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
    else
        pthread_rwlock_unlock(&building);
}

void gt_jit_init(struct gt_jit *j, void *(*resolve)(void *, const char *))
{
    memset(j, 0, sizeof *j);
    pthread_mutex_init(&j->lock, NULL);
    j->resolve = resolve;
}

/* Resolves sym from lib into j->field; a missing one is named in j->error. */
#define RESOLVE(lib, field, sym) \
    resolved(j, lib, (j->field = (__typeof__(j->field))j->resolve((lib)->handle, sym)) != NULL, sym)

static int resolved(struct gt_jit *j, const struct gt_cudalib *lib, int found, const char *sym)
{
    if (!found)
        gt_errf(j->error, sizeof j->error, "%s lacks %s", lib->path, sym);
    return found;
}

static int resolve_nvrtc(struct gt_jit *j)
{
    const struct gt_cudalib *l = &j->nvrtc_lib;
    return RESOLVE(l, rtc.create, "nvrtcCreateProgram") && RESOLVE(l, rtc.compile, "nvrtcCompileProgram") &&
           RESOLVE(l, rtc.ptx_size, "nvrtcGetPTXSize") && RESOLVE(l, rtc.ptx, "nvrtcGetPTX") &&
           RESOLVE(l, rtc.log_size, "nvrtcGetProgramLogSize") && RESOLVE(l, rtc.log, "nvrtcGetProgramLog") &&
           RESOLVE(l, rtc.destroy, "nvrtcDestroyProgram") && RESOLVE(l, rtc.version, "nvrtcVersion") &&
           RESOLVE(l, rtc.add_name, "nvrtcAddNameExpression") && RESOLVE(l, rtc.lowered_name, "nvrtcGetLoweredName");
}

/* nvJitLink's name of `entry` ("Create"): __nvJitLinkCreate_13_0 with the
 * library's suffix, nvJitLinkCreate without one. */
static const char *link_name(const struct gt_jit *j, const char *entry, char *buf, size_t cap)
{
    snprintf(buf, cap, "%snvJitLink%s%s", j->jitlink_suffix[0] ? "__" : "", entry, j->jitlink_suffix);
    return buf;
}

static int resolve_jitlink(struct gt_jit *j)
{
    const struct gt_cudalib *l = &j->jitlink_lib;
    char b[64];
#define LINK(field, entry) RESOLVE(l, link.field, link_name(j, entry, b, sizeof b))
    return LINK(create, "Create") && LINK(add, "AddData") && LINK(complete, "Complete") &&
           LINK(cubin_size, "GetLinkedCubinSize") && LINK(cubin, "GetLinkedCubin") &&
           LINK(error_size, "GetErrorLogSize") && LINK(error_log, "GetErrorLog") &&
           LINK(info_size, "GetInfoLogSize") && LINK(info_log, "GetInfoLog") && LINK(destroy, "Destroy");
#undef LINK
}

/* nvJitLink of NVRTC's major version or a later one the driver runs (the
 * PTX of a later NVRTC does not link with an older nvJitLink), its entry
 * points named as the library names them. */
static int open_jitlink(struct gt_jit *j)
{
    char why[400];
    if (gt_cudalib_open("libnvJitLink", j->nvrtc_lib.major, j->cuda_major, &j->jitlink_lib, why, sizeof why) != 0) {
        gt_errf(j->error, sizeof j->error, "nvJitLink not available: %s", why);
        return 0;
    }
    if (gt_cudalib_suffix(&j->jitlink_lib, "__nvJitLinkCreate", j->jitlink_suffix, sizeof j->jitlink_suffix) != 0) {
        gt_errf(j->error, sizeof j->error, "cannot read the symbol table of %s", j->jitlink_lib.path);
        return 0;
    }
    return resolve_jitlink(j);
}

/* major * 1000 + minor * 10 of nvJitLink: its own word where it has
 * nvJitLinkVersion (12.3 and later), else its entry points' suffix. */
static int jitlink_version(const struct gt_jit *j)
{
    __typeof__(&nvJitLinkVersion) version = (__typeof__(version))j->resolve(j->jitlink_lib.handle, "nvJitLinkVersion");
    unsigned major = 0, minor = 0;
    if (version && version(&major, &minor) == NVJITLINK_SUCCESS)
        return (int)(major * 1000 + minor * 10);
    const char *minor_at = strrchr(j->jitlink_suffix, '_');
    return j->jitlink_lib.major * 1000 + (minor_at ? atoi(minor_at + 1) * 10 : 0);
}

/* Tells the owner which compilers are used, or why none. */
static void say_opened(const struct gt_jit *j)
{
    char msg[PATH_MAX * 2 + 256], names[64];
    if (!j->opened)
        return;
    if (j->state < 0) {
        j->opened(1, j->error);
        return;
    }
    snprintf(msg, sizeof msg, "NVRTC %d.%d: %s%s; nvJitLink %d.%d: %s%s, entry points %s", j->nvrtc_version / 1000,
             j->nvrtc_version % 1000 / 10, j->nvrtc_lib.path, j->nvrtc_lib.loaded ? " (the application's own)" : "",
             j->jitlink_version / 1000, j->jitlink_version % 1000 / 10, j->jitlink_lib.path,
             j->jitlink_lib.loaded ? " (the application's own)" : "",
             j->jitlink_suffix[0] ? link_name(j, "*", names, sizeof names) : "unversioned");
    j->opened(0, msg);
}

/* The compilers' exit handlers free what a build in flight on a pool
 * thread is using (online mode leaves builds running while the application
 * goes on, and it may exit at any time): exit waits for those builds and
 * holds off any later one.  Exit handlers run in the reverse order of
 * their registration, and the compilers register theirs when loaded and
 * some during their first build, so this one is registered after each:
 * once the compilers are loaded and once the first build has ended. */
static atomic_int held_at_exit;

static void hold_at_exit(void)
{
    if (!atomic_exchange(&held_at_exit, 1))
        pthread_rwlock_wrlock(&building);
}

static void register_exit_hold(atomic_int *done)
{
    if (!atomic_exchange(done, 1))
        atexit(hold_at_exit);
}

static void open_locked(struct gt_jit *j)
{
    char why[400];
    j->state = -1;
    if (gt_cudalib_open("libnvrtc", 0, j->cuda_major, &j->nvrtc_lib, why, sizeof why) != 0) {
        gt_errf(j->error, sizeof j->error, "NVRTC not available: %s", why);
    } else if (resolve_nvrtc(j) && open_jitlink(j)) {
        int major = 0, minor = 0;
        j->rtc.version(&major, &minor);
        j->nvrtc_version = major * 1000 + minor * 10;
        j->jitlink_version = jitlink_version(j);
        j->state = 1;
        static atomic_int loaded;
        register_exit_hold(&loaded);
    }
    say_opened(j);
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

/* Appends strings (each with its NUL) to a growing buffer. */
struct keybuf {
    char *buf;
    size_t n, cap;
};

static void put(struct keybuf *k, const char *s)
{
    size_t len = strlen(s) + 1;
    if (k->buf && k->n + len > k->cap) {
        size_t cap = (k->n + len) * 2;
        char *b = gt_realloc(k->buf, cap);
        if (!b) {
            free(k->buf);
            k->buf = NULL;
            return;
        }
        k->buf = b;
        k->cap = cap;
    }
    if (k->buf) {
        memcpy(k->buf + k->n, s, len);
        k->n += len;
    }
}

static void put_all(struct keybuf *k, const char *const *v, int n)
{
    for (int i = 0; i < n; i++)
        put(k, v[i]);
}

/* Everything that decides the cubin, for the store's key. */
struct gt_key gt_jit_key(const struct gt_jit *j, const struct gt_jit_job *job)
{
    struct keybuf k = {gt_malloc(4096), 0, 4096};
    char head[160];
    snprintf(head, sizeof head, "%s rtc %d link %d arch %d watchdog %d", job->input == GT_JIT_SOURCE ? "cuda" : "ptx",
             j->nvrtc_version, j->jitlink_version, job->arch, job->watchdog);
    put(&k, head);
    put(&k, job->name);
    put(&k, job->watchdog && job->kernel ? job->kernel : "");
    put_all(&k, job->options, job->noptions);
    put(&k, "--link--");
    put_all(&k, job->link_options, job->nlink_options);
    put(&k, "--headers--");
    put_all(&k, job->include_names, job->nheaders);
    put_all(&k, job->headers, job->nheaders);
    put(&k, job->name_expr ? job->name_expr : "");
    put_all(&k, job->instantiate, job->ninstantiate);
    put(&k, job->text);
    struct gt_key key = k.buf ? gt_key_of(k.buf, k.n) : (struct gt_key){0, 0};
    free(k.buf);
    return key;
}

/* A copy of n options with the architecture appended. */
static const char **with_arch(const char *const *options, int n, const char *flag, int arch, const char *suffix,
                              char *buf, size_t cap)
{
    const char **opts = gt_malloc((size_t)(n + 1) * sizeof *opts);
    if (!opts)
        return NULL;
    for (int i = 0; i < n; i++)
        opts[i] = options[i];
    snprintf(buf, cap, "%s%d%s", flag, arch, suffix);
    opts[n] = buf;
    return opts;
}

/* The suffix of the PTX's target ("a" for sm_90a, "f" for sm_100f, else
 * ""): PTX for an architecture-specific or family target links only for a
 * target of the same kind (Triton writes sm_90a for an H100). */
static const char *target_suffix(const char *ptx)
{
    const char *t = strstr(ptx, ".target sm_");
    if (!t)
        return "";
    t += strlen(".target sm_");
    t += strspn(t, "0123456789");
    return *t == 'a' ? "a" : *t == 'f' ? "f" : "";
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

/* Source to PTX, in whichever process runs it: this one, or a worker
 * (rtcworker.c), so that both give the same bytes. */
void gt_jit_nvrtc(struct gt_jit *j, const struct gt_jit_rtc_in *in, struct gt_jit_rtc_out *out)
{
    nvrtcProgram prog;
    *out = (struct gt_jit_rtc_out){0};
    if (j->rtc.create(&prog, in->text, in->name, in->nheaders, in->headers, in->include_names) != NVRTC_SUCCESS) {
        out->log = gt_strdup("nvrtcCreateProgram failed");
        return;
    }
    nvrtcResult r = NVRTC_SUCCESS;
    if (in->name_expr)
        r = j->rtc.add_name(prog, in->name_expr);
    for (int i = 0; r == NVRTC_SUCCESS && i < in->ninstantiate; i++)
        r = j->rtc.add_name(prog, in->instantiate[i]);
    if (r == NVRTC_SUCCESS)
        r = j->rtc.compile(prog, in->noptions, in->options);
    size_t size = 0;
    char *log;
    if (j->rtc.log_size(prog, &size) == NVRTC_SUCCESS && size > 1 && (log = gt_malloc(size)) != NULL)
        out->log = kept(log, j->rtc.log(prog, log) == NVRTC_SUCCESS);
    if (r == NVRTC_SUCCESS && j->rtc.ptx_size(prog, &size) == NVRTC_SUCCESS && (out->ptx = gt_malloc(size)) != NULL &&
        j->rtc.ptx(prog, out->ptx) != NVRTC_SUCCESS) {
        free(out->ptx);
        out->ptx = NULL;
    }
    const char *lowered = NULL;
    if (out->ptx && in->name_expr && j->rtc.lowered_name(prog, in->name_expr, &lowered) == NVRTC_SUCCESS)
        out->lowered = gt_strdup(lowered);
    j->rtc.destroy(&prog);
    out->ok = out->ptx != NULL;
}

/* Source to PTX into job->ptx: in the calling thread's worker process when
 * the owner named the worker executable, here when it did not or the
 * worker could not answer; 0 or -1 (job->log says why). */
static int source_to_ptx(struct gt_jit *j, struct gt_jit_job *job)
{
    char arch[48];
    const char **opts =
        with_arch(job->options, job->noptions, "--gpu-architecture=compute_", job->arch, "", arch, sizeof arch);
    if (!opts) {
        job->log = gt_strdup("out of memory");
        return -1;
    }
    struct gt_jit_rtc_in in = {.name = job->name, .text = job->text, .nheaders = job->nheaders,
                               .headers = job->headers, .include_names = job->include_names,
                               .noptions = job->noptions + 1, .options = opts, .name_expr = job->name_expr,
                               .ninstantiate = job->ninstantiate, .instantiate = job->instantiate};
    struct gt_jit_rtc_out out;
    if (!j->worker[0] || gt_rtcw_compile(j, &in, &out) != 0)
        gt_jit_nvrtc(j, &in, &out);
    free(opts);
    job->ptx = out.ptx;
    job->log = out.log;
    job->lowered = out.lowered;
    return out.ok ? 0 : -1;
}

/* PTX to a cubin into *cubin (0, or -1); messages replace job->log. */
static int ptx_to_cubin(struct gt_jit *j, struct gt_jit_job *job, const char *ptx, unsigned char **cubin,
                        size_t *cubin_size)
{
    int ok = 0;
    nvJitLinkHandle h;
    char arch[32];
    const char **opts = with_arch(job->link_options, job->nlink_options, "-arch=sm_", job->arch, target_suffix(ptx), arch,
                                  sizeof arch);
    if (!opts || j->link.create(&h, (uint32_t)job->nlink_options + 1, opts) != NVJITLINK_SUCCESS) {
        free(opts);
        free(job->log);
        job->log = gt_strdup("nvJitLinkCreate failed: bad options");
        return -1;
    }
    free(opts);
    nvJitLinkResult r = j->link.add(h, NVJITLINK_INPUT_PTX, ptx, strlen(ptx), job->name);
    if (r == NVJITLINK_SUCCESS)
        r = j->link.complete(h);
    size_t size = 0;
    char *log = NULL;
    if (r != NVJITLINK_SUCCESS) {
        if (j->link.error_size(h, &size) == NVJITLINK_SUCCESS && size > 1 && (log = gt_malloc(size)) != NULL)
            log = kept(log, j->link.error_log(h, log) == NVJITLINK_SUCCESS);
    } else if (j->link.cubin_size(h, cubin_size) == NVJITLINK_SUCCESS && (*cubin = gt_malloc(*cubin_size)) != NULL) {
        ok = j->link.cubin(h, *cubin) == NVJITLINK_SUCCESS;
        if (j->link.info_size(h, &size) == NVJITLINK_SUCCESS && size > 1 && (log = gt_malloc(size)) != NULL)
            log = kept(log, j->link.info_log(h, log) == NVJITLINK_SUCCESS);
    }
    if (log) {
        free(job->log);
        job->log = log;
    }
    j->link.destroy(&h);
    return ok ? 0 : -1;
}

/* PTX to a cubin, with the watchdog's checks when the job asks for them,
 * and then the same PTX without them: trials are cut short by the one and
 * timed with the other, which is what would run.  A kernel that cannot take
 * the checks is built as it is: its trials run whole. */
static void link_instrumented(struct gt_jit *j, struct gt_jit_job *job, const char *ptx)
{
    const char *kernel = job->lowered ? job->lowered : job->kernel;
    char *checked = NULL, err[256];
    if (job->watchdog && kernel &&
        gt_watchdog_instrument(ptx, kernel, job->watchdog, &checked, &job->watch, err, sizeof err) < 0)
        snprintf(job->watch.note, sizeof job->watch.note, "no checks: %s", err);
    job->ok = ptx_to_cubin(j, job, checked ? checked : ptx, &job->cubin, &job->cubin_size) == 0;
    if (job->ok && checked && ptx_to_cubin(j, job, ptx, &job->plain, &job->plain_size) != 0) {
        free(job->plain);
        job->plain = NULL;
        job->plain_size = 0;
    }
    free(checked);
}

/* A stored cubin, with the lowered name of its name expression if it was
 * built from one: 1 and job->ok set when the store has it. */
int gt_jit_from_store(const struct gt_store *store, struct gt_key key, struct gt_jit_job *job)
{
    size_t size;
    if (gt_store_get(store, key, "name", (unsigned char **)&job->lowered, &size) != 0)
        job->lowered = NULL;
    int want_ptx = job->want_ptx && job->input == GT_JIT_SOURCE;
    if (want_ptx && gt_store_get(store, key, "ptx", (unsigned char **)&job->ptx, &size) != 0)
        job->ptx = NULL;
    if ((!job->name_expr || job->lowered) && (!want_ptx || job->ptx) &&
        gt_store_get(store, key, "cubin", &job->cubin, &job->cubin_size) == 0) {
        if (gt_store_get(store, key, "plain", &job->plain, &job->plain_size) != 0)
            job->plain = NULL, job->plain_size = 0;
        job->ok = job->from_store = 1;
        job->key = key;
        return 1;
    }
    free(job->lowered);
    free(job->ptx);
    job->lowered = NULL;
    job->ptx = NULL;
    return 0;
}

static void to_store(const struct gt_store *store, struct gt_key key, struct gt_jit_job *job)
{
    char *err = job->store_error;
    size_t n = sizeof job->store_error;
    if ((!job->lowered || gt_store_put(store, key, "name", job->lowered, strlen(job->lowered), err, n) == 0) &&
        (!job->want_ptx || !job->ptx || gt_store_put(store, key, "ptx", job->ptx, strlen(job->ptx) + 1, err, n) == 0) &&
        (!job->plain || gt_store_put(store, key, "plain", job->plain, job->plain_size, err, n) == 0))
        gt_store_put(store, key, "cubin", job->cubin, job->cubin_size, err, n);
}

static void build(struct gt_jit *j, const struct gt_store *store, struct gt_jit_job *job)
{
    if (gt_jit_open(j) != 0) {
        job->log = gt_strdup(j->error);
        return;
    }
    struct gt_key key = gt_jit_key(j, job);
    job->key = key;
    if (!store || !gt_jit_from_store(store, key, job)) {
        if (job->input == GT_JIT_PTX || source_to_ptx(j, job) == 0)
            link_instrumented(j, job, job->input == GT_JIT_PTX ? job->text : job->ptx);
        if (job->ok && store)
            to_store(store, key, job);
    }
}

/* Builds job into job->cubin (job->ok), from the store when it has it. */
void gt_jit_build(struct gt_jit *j, const struct gt_store *store, struct gt_jit_job *job)
{
    double t0 = gt_clock_seconds();
    job->ok = job->from_store = 0;
    pthread_rwlock_rdlock(&building);
    build(j, store, job);
    pthread_rwlock_unlock(&building);
    static atomic_int first_built;
    if (j->state > 0)
        register_exit_hold(&first_built);
    job->seconds = gt_clock_seconds() - t0;
}

void gt_jit_job_clear(struct gt_jit_job *job)
{
    free(job->plain);
    job->plain = NULL;
    job->plain_size = 0;
    free(job->cubin);
    free(job->log);
    free(job->lowered);
    free(job->ptx);
    job->ptx = NULL;
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
