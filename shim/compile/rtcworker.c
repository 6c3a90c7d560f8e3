/* rtcworker.c: NVRTC in compiler worker processes.
 *
 * NVRTC serializes the compilations of one process behind a lock of its
 * own, so threads alone barely speed up builds from source (nvJitLink, the
 * second step, scales).  Each thread that builds from source therefore
 * keeps a worker process of its own: the `gputune rtc-worker` beside the
 * library, spawned at the thread's first such build and kept until the
 * thread exits, one request and one answer at a time over a socket pair.
 * The worker runs gt_jit_nvrtc, the code that runs in process otherwise,
 * with the same libnvrtc file, so that both give the same bytes.
 *
 * This module owns the protocol (rtcworker.h; strict on both sides: every
 * size, count and string is checked, a malformed message is an error), the
 * client side (the calling thread's worker: spawning, talking, reaping) and
 * the worker's loop.  Whatever a worker cannot do (not start, die, answer
 * garbage) costs nothing but time: gt_rtcw_compile fails, the build runs
 * NVRTC in this process, the worker is reaped and the next build starts
 * another; after MAX_FAILURES in a row the thread stops trying.  A worker
 * that does not answer within j->answer_ms (the session's budget) is killed
 * and its build fails: a compilation that hangs there would hang here too.
 * Failures are said through the owner's j->note, never logged here. */
#include "rtcworker.h"
#include "alloc.h"
#include "errmsg.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_FAILURES 3
#define CHILD_FD 3          /* the worker's end of the socket pair, in the worker */
#define READ_CHUNK (1u << 20)

/* ---- writing messages ---- */

struct writer {
    unsigned char *p;
    size_t n, cap;
    int failed;             /* out of memory, or over the protocol's limits */
};

static void put(struct writer *w, const void *bytes, size_t n)
{
    if (w->failed || n > GT_RTCW_MAX_BODY + 8 - w->n) {
        w->failed = 1;
        return;
    }
    if (w->n + n > w->cap) {
        size_t cap = w->cap * 2 > w->n + n ? w->cap * 2 : w->n + n + 4096;
        unsigned char *p = gt_realloc(w->p, cap);
        if (!p) {
            w->failed = 1;
            return;
        }
        w->p = p;
        w->cap = cap;
    }
    memcpy(w->p + w->n, bytes, n);
    w->n += n;
}

static void put_u32(struct writer *w, uint32_t v)
{
    put(w, &v, sizeof v);
}

static void put_u8(struct writer *w, uint8_t v)
{
    put(w, &v, 1);
}

static void put_str(struct writer *w, const char *s)
{
    size_t n = strlen(s) + 1;
    if (n > GT_RTCW_MAX_BODY)
        w->failed = 1;
    put_u32(w, (uint32_t)n);
    put(w, s, n);
}

static void put_opt(struct writer *w, const char *s)
{
    put_u8(w, s != NULL);
    if (s)
        put_str(w, s);
}

static void put_list(struct writer *w, const char *const *v, int n)
{
    if (n < 0 || n > GT_RTCW_MAX_LIST)
        w->failed = 1;
    put_u32(w, (uint32_t)n);
    for (int i = 0; i < n && !w->failed; i++)
        put_str(w, v[i]);
}

/* A frame's header, its length filled in by sealed(). */
static void begin(struct writer *w, enum gt_rtcw_tag tag)
{
    *w = (struct writer){0};
    put_u32(w, tag);
    put_u32(w, 0);
}

static int sealed(struct writer *w)
{
    if (w->failed)
        return -1;
    uint32_t len = (uint32_t)(w->n - 8);
    memcpy(w->p + 4, &len, sizeof len);
    return 0;
}

/* ---- reading messages ---- */

struct reader {
    const unsigned char *p;
    size_t left;
    char why[96];           /* the first problem met, "" while none */
};

static int bad(struct reader *r, const char *fmt, const char *what)
{
    if (!r->why[0])
        snprintf(r->why, sizeof r->why, fmt, what);
    return -1;
}

static int take(struct reader *r, size_t n, const unsigned char **at, const char *what)
{
    if (r->why[0])
        return -1;
    if (n > r->left)
        return bad(r, "truncated %s", what);
    *at = r->p;
    r->p += n;
    r->left -= n;
    return 0;
}

static int get_u32(struct reader *r, uint32_t *v, const char *what)
{
    const unsigned char *at;
    if (take(r, sizeof *v, &at, what) != 0)
        return -1;
    memcpy(v, at, sizeof *v);
    return 0;
}

/* A string, pointing into the message. */
static int get_str(struct reader *r, const char **s, const char *what)
{
    uint32_t n;
    const unsigned char *at;
    if (get_u32(r, &n, what) != 0 || take(r, n, &at, what) != 0)
        return -1;
    if (n == 0 || memchr(at, '\0', n) != at + n - 1)
        return bad(r, "%s is not one NUL-terminated string", what);
    *s = (const char *)at;
    return 0;
}

static int get_opt(struct reader *r, const char **s, const char *what)
{
    const unsigned char *has;
    *s = NULL;
    if (take(r, 1, &has, what) != 0)
        return -1;
    if (*has > 1)
        return bad(r, "bad presence flag of %s", what);
    return *has ? get_str(r, s, what) : 0;
}

/* A list into a new array (*v, the caller frees it, also on failure). */
static int get_list(struct reader *r, const char ***v, int *n, const char *what)
{
    uint32_t count;
    *v = NULL;
    *n = 0;
    if (get_u32(r, &count, what) != 0)
        return -1;
    /* Each string takes at least 5 bytes: a count the message cannot hold is a lie. */
    if (count > GT_RTCW_MAX_LIST || count > r->left / 5)
        return bad(r, "too many %s", what);
    if (!(*v = gt_malloc((count ? count : 1) * sizeof **v)))
        return bad(r, "no memory for %s", what);
    for (uint32_t i = 0; i < count; i++)
        if (get_str(r, &(*v)[i], what) != 0)
            return -1;
    *n = (int)count;
    return 0;
}

static int get_end(struct reader *r)
{
    return r->why[0] ? -1 : r->left ? bad(r, "%s", "bytes after the message's end") : 0;
}

/* ---- the socket ---- */

/* send, not write: a worker that died must fail the call, not raise
 * SIGPIPE in the application. */
static int send_all(int fd, const unsigned char *b, size_t n)
{
    while (n > 0) {
        ssize_t k = send(fd, b, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

/* n bytes; returns how many came, fewer only at end of file, or -1. */
static ssize_t read_all(int fd, unsigned char *b, size_t n)
{
    size_t have = 0;
    while (have < n) {
        ssize_t k = read(fd, b + have, n - have);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            break;
        have += (size_t)k;
    }
    return (ssize_t)have;
}

/* A body of `size` bytes into *body, its buffer grown as the bytes come: a
 * length that lies costs no more memory than the bytes sent. */
static int read_body(int fd, size_t size, unsigned char **body, char *err, size_t errlen)
{
    size_t cap = size < READ_CHUNK ? size : READ_CHUNK, have = 0;
    unsigned char *buf = gt_malloc(cap ? cap : 1);
    while (buf && have < size) {
        if (have == cap) {
            size_t more = cap * 2 < size ? cap * 2 : size;
            unsigned char *b = gt_realloc(buf, more);
            if (!b)
                break;
            buf = b;
            cap = more;
        }
        ssize_t k = read_all(fd, buf + have, cap - have);
        if (k < (ssize_t)(cap - have)) {
            free(buf);
            return gt_errf(err, errlen, "truncated message%s%s", k < 0 ? ": " : "", k < 0 ? strerror(errno) : "");
        }
        have = cap;
    }
    if (!buf || have < size) {
        free(buf);
        return gt_errf(err, errlen, "no memory for a message of %zu bytes", size);
    }
    *body = buf;
    return 1;
}

/* One frame: 1 with its tag and body (malloc'd), 0 at end of file before
 * one starts, -1 (err says why) for anything else. */
static int read_frame(int fd, uint32_t *tag, unsigned char **body, uint32_t *size, char *err, size_t errlen)
{
    unsigned char head[8];
    *body = NULL;
    ssize_t k = read_all(fd, head, sizeof head);
    if (k == 0)
        return 0;
    if (k < (ssize_t)sizeof head)
        return gt_errf(err, errlen, "truncated message header%s%s", k < 0 ? ": " : "", k < 0 ? strerror(errno) : "");
    memcpy(tag, head, 4);
    memcpy(size, head + 4, 4);
    if (*size > GT_RTCW_MAX_BODY)
        return gt_errf(err, errlen, "a message of %u bytes, over the limit of %u", *size, GT_RTCW_MAX_BODY);
    return read_body(fd, *size, body, err, errlen);
}

/* ---- the client: the calling thread's worker ---- */

struct worker {
    pid_t pid;              /* 0: none running */
    pid_t owner;            /* the process that spawned it */
    int fd;                 /* our end of the socket pair */
    int failures;           /* spawns and exchanges failed in a row */
    char path[PATH_MAX];    /* the executable it runs */
};

static _Thread_local struct worker self;
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* Reaps the worker, by its pid only: the application's other children are
 * its own.  `how` (if given) says how it ended. */
static void reap(struct worker *w, char *how, size_t cap)
{
    int status = 0;
    pid_t r;
    close(w->fd);
    while ((r = waitpid(w->pid, &status, 0)) < 0 && errno == EINTR)
        ;
    if (how && r != w->pid)
        snprintf(how, cap, "its end was reaped elsewhere");
    else if (how && WIFSIGNALED(status))
        snprintf(how, cap, "it was killed by signal %d", WTERMSIG(status));
    else if (how)
        snprintf(how, cap, "it exited with status %d", WEXITSTATUS(status));
    w->pid = 0;
    w->fd = -1;
}

/* Ends a worker in good health: by end of file, through shutdown(), which
 * reaches it even if another process holds a copy of our end (an
 * application's fork). */
static void stop(struct worker *w)
{
    shutdown(w->fd, SHUT_RDWR);
    reap(w, NULL, 0);
}

/* Whether the worker has not ended yet, without reaping it. */
static int running(pid_t pid)
{
    siginfo_t info = {0};
    return waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
}

static void at_thread_exit(void *arg)
{
    struct worker *w = arg;
    if (w->pid && w->owner == getpid())
        stop(w);
}

static void make_key(void)
{
    if (pthread_key_create(&exit_key, at_thread_exit) != 0)
        exit_key = (pthread_key_t)-1;
}

/* The calling thread's worker for j's executable.  In a fork's child the
 * worker is the parent's: forgotten, not stopped. */
static struct worker *current(const struct gt_jit *j)
{
    struct worker *w = &self;
    pthread_once(&key_once, make_key);
    if (w->pid && w->owner != getpid()) {
        close(w->fd);
        w->pid = 0;
        w->failures = 0;
    }
    if (strcmp(w->path, j->worker) != 0) {
        if (w->pid)
            stop(w);
        snprintf(w->path, sizeof w->path, "%s", j->worker);
        w->failures = 0;
    }
    return w;
}

/* The environment of a worker: ours without LD_PRELOAD, so that the shim
 * does not load into its own worker, and in mode off should it anyway.
 * The strings are ours; only the array is new. */
static char **worker_env(void)
{
    static const char pre[] = "LD_PRELOAD=", mode[] = "GPUTUNE_MODE=";
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    char **env = gt_malloc((n + 2) * sizeof *env);
    for (size_t i = 0; env && i < n; i++)
        if (strncmp(environ[i], pre, sizeof pre - 1) != 0 && strncmp(environ[i], mode, sizeof mode - 1) != 0)
            env[k++] = environ[i];
    if (env) {
        env[k++] = (char *)"GPUTUNE_MODE=off";
        env[k] = NULL;
    }
    return env;
}

/* The file of this process's libnvrtc, for the worker to load that very
 * one; "" if unknown (the worker then finds it by soname). */
static void nvrtc_file(const struct gt_jit *j, char *out)
{
    Dl_info info;
    if (!dladdr((void *)j->rtc.create, &info) || !info.dli_fname || !realpath(info.dli_fname, out))
        out[0] = '\0';
}

/* Its end of the socket as CHILD_FD, stdin and stdout on /dev/null (never
 * the application's), stderr shared for its last words, nothing else: it
 * must not keep the application's pipes open.  0 or an errno. */
static int child_files(posix_spawn_file_actions_t *fa, int child_end)
{
    int r = posix_spawn_file_actions_adddup2(fa, child_end, CHILD_FD);
    r = r ? r : posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
    r = r ? r : posix_spawn_file_actions_addopen(fa, 1, "/dev/null", O_WRONLY, 0);
    return r ? r : posix_spawn_file_actions_addclosefrom_np(fa, CHILD_FD + 1);
}

/* No signal blocked or ignored because the spawning thread had it so. */
static int child_signals(posix_spawnattr_t *attr)
{
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    int r = posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    r = r ? r : posix_spawnattr_setsigmask(attr, &none);
    return r ? r : posix_spawnattr_setsigdefault(attr, &all);
}

/* posix_spawn, not fork: safe in a process of many threads.  Both ends of
 * the pair are close-on-exec; only the worker's copy, made by the spawn,
 * survives into it, so no other child of ours inherits either end. */
static int spawn(struct worker *w, const struct gt_jit *j, char *why, size_t len)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return gt_errf(why, len, "no socket pair: %s", strerror(errno));
    char fd[16], lib[PATH_MAX], **env = worker_env();
    snprintf(fd, sizeof fd, "%d", CHILD_FD);
    nvrtc_file(j, lib);
    char *argv[] = {w->path, "rtc-worker", fd, lib, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    pid_t pid;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    int r = env ? child_files(&fa, sv[1]) : ENOMEM;
    r = r ? r : child_signals(&attr);
    r = r ? r : posix_spawn(&pid, w->path, &fa, &attr, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    free(env);
    close(sv[1]);
    if (r != 0) {
        close(sv[0]);
        return gt_errf(why, len, "cannot start %s: %s", w->path, strerror(r));
    }
    w->pid = pid;
    w->owner = getpid();
    w->fd = sv[0];
    if (exit_key != (pthread_key_t)-1)
        pthread_setspecific(exit_key, w);
    return 0;
}

static int encode_request(const struct gt_jit_rtc_in *in, struct writer *w)
{
    begin(w, GT_RTCW_REQUEST);
    put_str(w, in->name);
    put_str(w, in->text);
    put_list(w, in->headers, in->nheaders);
    put_list(w, in->include_names, in->nheaders);
    put_list(w, in->options, in->noptions);
    put_opt(w, in->name_expr);
    put_list(w, in->instantiate, in->ninstantiate);
    return sealed(w);
}

static char *dup_opt(const char *s, int *failed)
{
    char *d = s ? gt_strdup(s) : NULL;
    *failed |= s && !d;
    return d;
}

/* An answer to `in` into *out; anything but a consistent one is garbage. */
static int decode_answer(const unsigned char *body, size_t size, const struct gt_jit_rtc_in *in,
                         struct gt_jit_rtc_out *out, char *why, size_t len)
{
    struct reader r = {body, size, ""};
    const unsigned char *ok = NULL;
    const char *ptx = NULL, *log = NULL, *lowered = NULL;
    take(&r, 1, &ok, "status");
    get_opt(&r, &ptx, "PTX");
    get_opt(&r, &log, "log");
    get_opt(&r, &lowered, "lowered name");
    if (get_end(&r) == 0 && (*ok > 1 || (ptx != NULL) != *ok || (lowered && (!ptx || !in->name_expr))))
        bad(&r, "%s", "an inconsistent answer");
    if (r.why[0])
        return gt_errf(why, len, "it answered garbage (%s)", r.why);
    int failed = 0;
    *out = (struct gt_jit_rtc_out){.ok = *ok, .ptx = dup_opt(ptx, &failed), .log = dup_opt(log, &failed),
                                   .lowered = dup_opt(lowered, &failed)};
    if (failed) {
        free(out->ptx);
        free(out->log);
        free(out->lowered);
        return gt_errf(why, len, "no memory for its answer");
    }
    return 0;
}

/* What an error message says, NULL if it is malformed too. */
static const char *error_text(const unsigned char *body, size_t size)
{
    struct reader r = {body, size, ""};
    const char *text = NULL;
    get_str(&r, &text, "message");
    return get_end(&r) == 0 ? text : NULL;
}

/* Whether an answer starts within ms (0: no limit). */
static int answers(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int r;
    while (ms > 0 && (r = poll(&p, 1, ms)) < 0 && errno == EINTR)
        ;
    return ms <= 0 || r != 0;
}

/* One request and its answer: 0, -1 (why says it), or 1 when no answer
 * came within ms. */
static int exchange(struct worker *w, const struct writer *rq, int ms, const struct gt_jit_rtc_in *in,
                    struct gt_jit_rtc_out *out, char *why, size_t len)
{
    uint32_t tag = 0, size = 0;
    unsigned char *body = NULL;
    const char *said;
    int r;
    if (send_all(w->fd, rq->p, rq->n) != 0)
        return gt_errf(why, len, "cannot send it the request: %s", strerror(errno));
    if (!answers(w->fd, ms)) {
        gt_errf(why, len, "it did not answer within %.1f s (the session's budget)", ms / 1e3);
        return 1;
    }
    if ((r = read_frame(w->fd, &tag, &body, &size, why, len)) == 0)
        r = gt_errf(why, len, "it closed the connection");
    else if (r > 0 && tag == GT_RTCW_ANSWER)
        r = decode_answer(body, size, in, out, why, len);
    else if (r > 0 && tag == GT_RTCW_ERROR && (said = error_text(body, size)) != NULL)
        r = gt_errf(why, len, "it stopped: %s", said);
    else if (r > 0)
        r = gt_errf(why, len, "it answered garbage (a message of tag %#x)", (unsigned)tag);
    free(body);
    return r < 0 ? -1 : 0;
}

/* Counts a failure, ending and reaping the worker if one ran, and tells
 * the owner what became of the build (`outcome`). */
static void failed(struct worker *w, const struct gt_jit *j, const char *why, const char *outcome)
{
    char who[32] = "", how[64] = "", msg[PATH_MAX + 512];
    if (w->pid) {
        int alive = running(w->pid);
        snprintf(who, sizeof who, " %d", (int)w->pid);
        if (alive)
            kill(w->pid, SIGKILL);
        reap(w, how, sizeof how);
        if (alive)
            snprintf(how, sizeof how, "stopped it");
    }
    int final = ++w->failures == MAX_FAILURES;
    char tail[80] = "";
    if (final)
        snprintf(tail, sizeof tail, "; this thread stops using workers (%d failures in a row)", MAX_FAILURES);
    snprintf(msg, sizeof msg, "compiler worker%s: %s%s%s; %s%s", who, why, how[0] ? "; " : "", how,
             outcome ? outcome : "NVRTC ran in this process for this build", tail);
    if (j->note)
        j->note(final || outcome, msg);
}

/* NVRTC in the calling thread's worker: 0 with *out filled (a failed
 * compilation when the worker did not answer in time), or -1 when the
 * build must run NVRTC here (no worker, or it failed: said through j->note). */
int gt_rtcw_compile(struct gt_jit *j, const struct gt_jit_rtc_in *in, struct gt_jit_rtc_out *out)
{
    struct worker *w = current(j);
    struct writer rq;
    char why[PATH_MAX + 256];
    if (w->failures >= MAX_FAILURES)
        return -1;
    /* A request over the protocol's limits is no worker's failure. */
    if (encode_request(in, &rq) != 0) {
        free(rq.p);
        return -1;
    }
    int r = (w->pid || spawn(w, j, why, sizeof why) == 0) ? exchange(w, &rq, j->answer_ms, in, out, why, sizeof why)
                                                           : -1;
    free(rq.p);
    if (r == 0)
        w->failures = 0;
    else
        failed(w, j, why, r > 0 ? "the build failed" : NULL);
    if (r > 0)
        *out = (struct gt_jit_rtc_out){.log = gt_strdup(why)};
    return r > 0 ? 0 : r;
}

/* The calling thread's worker, 0 when none runs. */
pid_t gt_rtcw_pid(void)
{
    return self.owner == getpid() ? self.pid : 0;
}

/* The executable `name` in the folder of the file `beside`, as an absolute
 * path into path: 0, or -1 (err says why) when there is none to run. */
int gt_rtcw_find(const char *beside, const char *name, char *path, size_t cap, char *err, size_t errlen)
{
    const char *slash = strrchr(beside, '/');
    int dir = slash ? (int)(slash - beside) : 1;
    char joined[PATH_MAX], real[PATH_MAX];
    path[0] = '\0';
    if (snprintf(joined, sizeof joined, "%.*s/%s", dir, slash ? beside : ".", name) >= (int)sizeof joined)
        return gt_errf(err, errlen, "the path of the compiler worker beside %s is too long", beside);
    if (!realpath(joined, real) || access(real, X_OK) != 0)
        return gt_errf(err, errlen, "no compiler worker %s: %s", joined, strerror(errno));
    if (snprintf(path, cap, "%s", real) >= (int)cap) {
        path[0] = '\0';
        return gt_errf(err, errlen, "the path of the compiler worker %s is too long", real);
    }
    return 0;
}

/* ---- the worker ---- */

static int encode_answer(const struct gt_jit_rtc_out *out, struct writer *w)
{
    begin(w, GT_RTCW_ANSWER);
    put_u8(w, (uint8_t)out->ok);
    put_opt(w, out->ptx);
    put_opt(w, out->log);
    put_opt(w, out->lowered);
    return sealed(w);
}

/* The arrays of a request's lists. */
struct lists {
    const char **headers, **names, **options, **instantiate;
};

/* A request's fields, pointing into the message; lists into arrays the
 * caller frees (also on failure). */
static int decode_request(const unsigned char *body, size_t size, struct gt_jit_rtc_in *in, struct lists *l,
                          char *err, size_t errlen)
{
    struct reader r = {body, size, ""};
    int nnames = 0;
    *in = (struct gt_jit_rtc_in){0};
    get_str(&r, &in->name, "program name");
    get_str(&r, &in->text, "source");
    get_list(&r, &l->headers, &in->nheaders, "headers");
    get_list(&r, &l->names, &nnames, "include names");
    if (nnames != in->nheaders)
        bad(&r, "%s", "headers without as many include names");
    get_list(&r, &l->options, &in->noptions, "options");
    get_opt(&r, &in->name_expr, "name expression");
    get_list(&r, &l->instantiate, &in->ninstantiate, "instantiations");
    in->headers = l->headers;
    in->include_names = l->names;
    in->options = l->options;
    in->instantiate = l->instantiate;
    return get_end(&r) == 0 ? 0 : gt_errf(err, errlen, "malformed request: %s", r.why);
}

/* Compiles one request and sends the answer: 1, or 0 when the client has
 * gone meanwhile (its process ended: no error), or -1. */
static int answer(int fd, struct gt_jit *j, const unsigned char *body, size_t size, char *err, size_t errlen)
{
    struct gt_jit_rtc_in in;
    struct gt_jit_rtc_out out = {0};
    struct writer w = {0};
    struct lists l = {0};
    int r = decode_request(body, size, &in, &l, err, errlen);
    if (r == 0) {
        gt_jit_nvrtc(j, &in, &out);
        if (encode_answer(&out, &w) != 0)
            r = gt_errf(err, errlen, "the answer is over the protocol's limits");
        else if (send_all(fd, w.p, w.n) == 0)
            r = 1;
        else if (errno != EPIPE && errno != ECONNRESET)
            r = gt_errf(err, errlen, "cannot send the answer: %s", strerror(errno));
    }
    free(l.headers);
    free(l.names);
    free(l.options);
    free(l.instantiate);
    free(out.ptx);
    free(out.log);
    free(out.lowered);
    free(w.p);
    return r;
}

/* Tells the client why the worker stops (it may not be listening). */
static int stopping(int fd, const char *why)
{
    struct writer w;
    begin(&w, GT_RTCW_ERROR);
    put_str(&w, why);
    if (sealed(&w) == 0)
        send_all(fd, w.p, w.n);
    free(w.p);
    return -1;
}

/* The worker's loop: requests in, answers out, until end of file or the
 * client's end (0).  A malformed request, or anything else that goes wrong,
 * ends it with an error message to the client and -1 (err says why). */
int gt_rtcw_serve(int fd, struct gt_jit *j, char *err, size_t errlen)
{
    if (gt_jit_open(j) != 0) {
        gt_errf(err, errlen, "%s", j->error);
        return stopping(fd, err);
    }
    for (;;) {
        uint32_t tag = 0, size = 0;
        unsigned char *body = NULL;
        int r = read_frame(fd, &tag, &body, &size, err, errlen);
        if (r == 0)
            return 0;
        if (r > 0 && tag != GT_RTCW_REQUEST)
            r = gt_errf(err, errlen, "not a request (a message of tag %#x)", (unsigned)tag);
        if (r > 0)
            r = answer(fd, j, body, size, err, errlen);
        free(body);
        if (r <= 0)
            return r == 0 ? 0 : stopping(fd, err);
    }
}
