/* test_rtcworker: NVRTC in compiler worker processes (shim/compile/rtcworker.c).
 * The same PTX, lowered names and logs as in process; one worker per
 * thread, reaped when the thread exits; a worker killed, one answering
 * garbage, one missing: the builds still succeed, in process; one that
 * never answers is killed after the budget, its build failed; malformed
 * messages to the worker's loop are errors, never crashes.  No GPU; the
 * worker is $GT_BUILD/gputune. */
#include "jit.h"
#include "pool.h"
#include "rtcworker.h"
#include "tap.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static struct gt_jit here, there; /* NVRTC in this process; in workers */
static int notes, finals;
static char last_note[8192];

static void note(int final, const char *message)
{
    notes++;
    finals += final;
    snprintf(last_note, sizeof last_note, "%s", message);
}

static const char *const tile_h[] = {"#define TILE_SCALE 3.0f\n"}, *const tile_name[] = {"tile.h"};
static const char *const eight[] = {"tpl<8>"}, *const items4[] = {"-DITEMS=4"};

/* Sources that use what a request carries: headers, a name expression and
 * instantiations, options. */
static struct gt_jit_job job_of(int which)
{
    struct gt_jit_job job = {.input = GT_JIT_SOURCE, .arch = 90};
    if (which == 0) {
        job.name = "header.cu";
        job.text = "#include \"tile.h\"\nextern \"C\" __global__ void scale(float *x) { x[threadIdx.x] *= TILE_SCALE; }\n";
        job.nheaders = 1, job.headers = tile_h, job.include_names = tile_name;
    } else if (which == 1) {
        job.name = "tpl.cu";
        job.text = "template <int N> __global__ void tpl(float *x) { x[threadIdx.x] *= N; }\n";
        job.name_expr = "tpl<4>";
        job.ninstantiate = 1, job.instantiate = eight;
    } else if (which == 2) {
        job.name = "macro.cu";
        job.text = "extern \"C\" __global__ void fill(float *x) { x[threadIdx.x] = ITEMS; }\n";
        job.noptions = 1, job.options = items4;
    } else {
        job.name = "broken.cu";
        job.text = "extern \"C\" __global__ void k() { undeclared_thing(); }\n";
    }
    return job;
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Both builds of a job agree byte for byte. */
static int same(const struct gt_jit_job *a, const struct gt_jit_job *b)
{
    return a->ok == b->ok && same_str(a->ptx, b->ptx) && same_str(a->lowered, b->lowered) && same_str(a->log, b->log) &&
           a->cubin_size == b->cubin_size && (!a->cubin || memcmp(a->cubin, b->cubin, a->cubin_size) == 0);
}

/* Builds job `which` here and through j; 1 when both agree. */
static int agree(struct gt_jit *j, int which)
{
    struct gt_jit_job a = job_of(which), b = job_of(which);
    gt_jit_build(&here, NULL, &a);
    gt_jit_build(j, NULL, &b);
    int r = same(&a, &b) && (which == 3 || a.ok);
    gt_jit_job_clear(&a);
    gt_jit_job_clear(&b);
    return r;
}

static int reaped(pid_t pid)
{
    return waitpid(pid, NULL, WNOHANG) < 0 && errno == ECHILD;
}

/* ---- several threads ---- */

struct threaded {
    struct gt_task task;
    struct gt_jit_job job;
    pid_t pid;
};

static void run_threaded(void *arg)
{
    struct threaded *t = arg;
    gt_jit_build(&there, NULL, &t->job);
    t->pid = gt_rtcw_pid();
}

static void threads(void)
{
    struct gt_pool pool;
    struct threaded t[8];
    gt_pool_start(&pool, 2);
    for (int i = 0; i < 8; i++) {
        t[i] = (struct threaded){.task = {.fn = run_threaded, .arg = &t[i]}, .job = job_of(i % 3)};
        gt_pool_submit(&pool, &t[i].task);
    }
    for (int i = 0; i < 8; i++)
        gt_pool_wait(&pool, &t[i].task);
    int built = 0, workers = 0;
    pid_t first = t[0].pid, other = 0;
    for (int i = 0; i < 8; i++) {
        built += t[i].job.ok;
        workers += t[i].pid > 0;
        if (t[i].pid != first)
            other = t[i].pid;
        gt_jit_job_clear(&t[i].job);
    }
    is_int(built, 8, "builds on two pool threads through workers succeed");
    is_int(workers, 8, "each in a worker");
    ok(other == 0 || other != first, "the threads' own (%d and %d)", (int)first, (int)other);
    gt_pool_stop(&pool);
    ok(reaped(first) && (!other || reaped(other)), "a thread's worker ends and is reaped when the thread exits");
}

/* ---- workers that fail ---- */

static void killed(void)
{
    pid_t pid = gt_rtcw_pid();
    ok(pid > 0 && kill(pid, SIGKILL) == 0, "kill the worker %d between two builds", (int)pid);
    notes = finals = 0;
    ok(agree(&there, 1), "the next build still succeeds, the same");
    ok(notes == 1 && finals == 0 && strstr(last_note, "killed by signal 9") && strstr(last_note, "in this process"),
       "in process, said once: %s", last_note);
    ok(reaped(pid) && gt_rtcw_pid() == 0, "the dead worker is reaped");
    int same_again = agree(&there, 2);
    pid_t again = gt_rtcw_pid();
    ok(same_again && again > 0 && again != pid, "the build after runs in a new worker (%d)", (int)again);
}

/* A worker that answers nonsense and lives on. */
static void garbage(const char *dir)
{
    struct gt_jit liar = there;
    char script[PATH_MAX];
    snprintf(script, sizeof script, "%s/liar", dir);
    FILE *f = fopen(script, "w");
    if (f) {
        fputs("#!/bin/sh\nprintf 'GTA1\\001\\000\\000\\000\\002' >&3\nexec sleep 60\n", f);
        fclose(f);
    }
    ok(f && chmod(script, 0700) == 0, "a worker that answers garbage");
    snprintf(liar.worker, sizeof liar.worker, "%s", script);
    notes = finals = 0;
    ok(agree(&liar, 0), "a build through it succeeds, the same");
    ok(notes == 1 && strstr(last_note, "garbage") && strstr(last_note, "stopped it"), "in process, said: %s",
       last_note);
    is_int(gt_rtcw_pid(), 0, "the worker was stopped and reaped");
    unlink(script);
}

/* A worker that never answers: killed once the budget is spent, its build failed. */
static void silent(const char *dir)
{
    struct gt_jit mute = there;
    char script[PATH_MAX];
    snprintf(script, sizeof script, "%s/mute", dir);
    FILE *f = fopen(script, "w");
    if (f) {
        fputs("#!/bin/sh\nexec sleep 600\n", f);
        fclose(f);
    }
    ok(f && chmod(script, 0700) == 0, "a worker that never answers");
    snprintf(mute.worker, sizeof mute.worker, "%s", script);
    mute.answer_ms = 200;
    notes = finals = 0;
    struct gt_jit_rtc_in in = {.name = "k.cu", .text = "extern \"C\" __global__ void k() {}\n"};
    struct gt_jit_rtc_out out = {0};
    ok(gt_rtcw_compile(&mute, &in, &out) == 0 && !out.ok && out.log &&
           strstr(out.log, "did not answer within 0.2 s (the session's budget)"),
       "its build fails once the budget is spent: %s", out.log ? out.log : "(no log)");
    ok(notes == 1 && finals == 1 && strstr(last_note, "stopped it") && strstr(last_note, "the build failed"),
       "said once: %s", last_note);
    is_int(gt_rtcw_pid(), 0, "the worker was killed and reaped");
    free(out.log);
    unlink(script);
}

static void missing(void)
{
    struct gt_jit lost = there;
    char path[PATH_MAX], err[PATH_MAX + 128];
    ok(gt_rtcw_find("/nonexistent/libgputune.so", "gputune", path, sizeof path, err, sizeof err) != 0 && !path[0],
       "no worker beside a missing library: %s", err);
    snprintf(lost.worker, sizeof lost.worker, "/nonexistent/gputune");
    notes = finals = 0;
    int built = 0;
    for (int i = 0; i < 4; i++)
        built += agree(&lost, i % 3);
    is_int(built, 4, "builds with a worker that cannot start succeed in process, the same");
    ok(notes == 3 && finals == 1 && strstr(last_note, "stops using workers"), "said for 3 failures, then quiet: %s",
       last_note);
}

/* ---- malformed messages to the worker's loop ---- */

struct msg {
    unsigned char b[4096];
    size_t n;
};

static void add(struct msg *m, const void *p, size_t n)
{
    memcpy(m->b + m->n, p, n);
    m->n += n;
}

static void add_u32(struct msg *m, uint32_t v)
{
    add(m, &v, 4);
}

static void add_str(struct msg *m, const char *s)
{
    add_u32(m, (uint32_t)strlen(s) + 1);
    add(m, s, strlen(s) + 1);
}

static void frame(struct msg *m, uint32_t tag)
{
    m->n = 0;
    add_u32(m, tag);
    add_u32(m, 0);
}

static void seal(struct msg *m)
{
    uint32_t len = (uint32_t)(m->n - 8);
    memcpy(m->b + 4, &len, 4);
}

/* A valid request, up to its instantiations. */
static void request(struct msg *m)
{
    frame(m, GT_RTCW_REQUEST);
    add_str(m, "tpl.cu");
    add_str(m, job_of(1).text);
    add_u32(m, 0);
    add_u32(m, 0);
    add_u32(m, 1);
    add_str(m, "--gpu-architecture=compute_90");
    add(m, "\1", 1);
    add_str(m, "tpl<4>");
    add_u32(m, 0);
    seal(m);
}

/* Serves n bytes and end of file; returns what gt_rtcw_serve did, with
 * its message in err and the tag of the first frame it sent in *reply. */
static int serve(const void *bytes, size_t n, char *err, size_t errlen, uint32_t *reply)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return -2;
    int sent = write(sv[0], bytes, n) == (ssize_t)n;
    shutdown(sv[0], SHUT_WR);
    err[0] = '\0';
    int rc = sent ? gt_rtcw_serve(sv[1], &here, err, errlen) : -2;
    close(sv[1]);
    *reply = 0;
    if (read(sv[0], reply, 4) != 4)
        *reply = 0;
    close(sv[0]);
    return rc;
}

/* Serves the message; passes when it is refused with `want` in the error
 * and an error message to the client. */
static void refused(const struct msg *m, const char *want, const char *name)
{
    char err[512];
    uint32_t reply;
    int rc = serve(m->b, m->n, err, sizeof err, &reply);
    ok(rc == -1 && strstr(err, want) && reply == GT_RTCW_ERROR, "%s: %s", name, err);
}

static void malformed(void)
{
    struct msg m;
    char err[512];
    uint32_t reply;
    request(&m);
    is_int(serve(m.b, m.n, err, sizeof err, &reply), 0, "a valid request is served until end of file");
    ok(reply == GT_RTCW_ANSWER, "and answered");
    is_int(serve("", 0, err, sizeof err, &reply), 0, "no request at all ends it quietly");
    int sv[2];
    request(&m);
    ok(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0 && write(sv[0], m.b, m.n) == (ssize_t)m.n &&
           close(sv[0]) == 0 && gt_rtcw_serve(sv[1], &here, err, sizeof err) == 0 && close(sv[1]) == 0,
       "a client gone before its answer ends it quietly");

    m.n = 3;
    refused(&m, "truncated message header", "a truncated header");
    request(&m);
    memcpy(m.b + 4, &(uint32_t){0xfffffff0u}, 4);
    refused(&m, "over the limit", "a huge length");
    request(&m);
    memcpy(m.b + 4, &(uint32_t){GT_RTCW_MAX_BODY}, 4);
    refused(&m, "truncated message", "a length the bytes do not fill");
    request(&m);
    memcpy(m.b, &(uint32_t){GT_RTCW_ANSWER}, 4);
    refused(&m, "not a request", "an answer sent to the worker");

    frame(&m, GT_RTCW_REQUEST);
    seal(&m);
    refused(&m, "truncated program name", "an empty request");
    frame(&m, GT_RTCW_REQUEST);
    add_u32(&m, 3);
    add(&m, "abc", 3);
    seal(&m);
    refused(&m, "not one NUL-terminated string", "a string without its NUL");
    frame(&m, GT_RTCW_REQUEST);
    add_u32(&m, 4);
    add(&m, "a\0b", 4);
    seal(&m);
    refused(&m, "not one NUL-terminated string", "a string with a NUL inside");
    frame(&m, GT_RTCW_REQUEST);
    add_u32(&m, 1000);
    add(&m, "abc", 4);
    seal(&m);
    refused(&m, "truncated program name", "a string longer than the message");
    frame(&m, GT_RTCW_REQUEST);
    add_str(&m, "x.cu");
    add_str(&m, "int x;");
    add_u32(&m, 0x7fffffff);
    seal(&m);
    refused(&m, "too many headers", "a huge count");
    frame(&m, GT_RTCW_REQUEST);
    add_str(&m, "x.cu");
    add_str(&m, "int x;");
    add_u32(&m, 3);
    add_str(&m, "h");
    seal(&m);
    refused(&m, "too many headers", "a count the message cannot hold");
    frame(&m, GT_RTCW_REQUEST);
    add_str(&m, "x.cu");
    add_str(&m, "int x;");
    add_u32(&m, 1);
    add_str(&m, "#define A 1\n");
    add_u32(&m, 0);
    add_u32(&m, 0);
    add(&m, "\0", 1);
    add_u32(&m, 0);
    seal(&m);
    refused(&m, "include names", "headers without their include names");
    frame(&m, GT_RTCW_REQUEST);
    add_str(&m, "x.cu");
    add_str(&m, "int x;");
    add_u32(&m, 0);
    add_u32(&m, 0);
    add_u32(&m, 0);
    add(&m, "\7", 1);
    seal(&m);
    refused(&m, "bad presence flag", "a bad presence flag");
    request(&m);
    add(&m, "xyz", 3);
    seal(&m);
    refused(&m, "bytes after", "bytes after the request");

    /* Every cut of a valid request: the frame's length kept, or made to fit. */
    struct msg whole, cut;
    request(&whole);
    int refusals = 0;
    for (size_t k = 8; k < whole.n; k++) {
        memcpy(cut.b, whole.b, k);
        cut.n = k;
        refusals += serve(cut.b, cut.n, err, sizeof err, &reply) == -1;
        seal(&cut);
        refusals += serve(cut.b, cut.n, err, sizeof err, &reply) == -1;
    }
    is_int(refusals, 2 * (int)(whole.n - 8), "every cut of a request is refused");

    /* Noise in a well-formed frame. */
    srand(7);
    refusals = 0;
    for (int i = 0; i < 300; i++) {
        frame(&cut, GT_RTCW_REQUEST);
        size_t n = (size_t)(rand() % 200);
        for (size_t k = 0; k < n; k++)
            cut.b[cut.n++] = (unsigned char)(rand() % 4 ? rand() % 8 : rand());
        seal(&cut);
        refusals += serve(cut.b, cut.n, err, sizeof err, &reply) == -1;
    }
    is_int(refusals, 300, "random bytes in a request are refused");
}

/* $GT_BUILD/gputune, else the gputune of the build this test is in. */
static int worker_path(char *path, size_t cap, char *err, size_t errlen)
{
    const char *build = getenv("GT_BUILD");
    char self[PATH_MAX], beside[PATH_MAX + 16];
    if (build && *build) {
        snprintf(beside, sizeof beside, "%s/x", build);
        return gt_rtcw_find(beside, "gputune", path, cap, err, errlen);
    }
    /* This test is build/tests/test_rtcworker.t; the worker is build/gputune. */
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    return gt_rtcw_find(self, "../gputune", path, cap, err, errlen);
}

int main(void)
{
    char err[PATH_MAX + 128], dir[] = "/tmp/gputune-rtcw-XXXXXX";
    gt_jit_init(&here, dlsym);
    if (gt_jit_open(&here) != 0)
        skip_all(here.error);
    gt_jit_init(&there, dlsym);
    if (worker_path(there.worker, sizeof there.worker, err, sizeof err) != 0)
        skip_all(err);
    there.note = note;
    diag("worker: %s", there.worker);

    ok(agree(&there, 0), "a source with a header: the same through a worker as in process");
    pid_t pid = gt_rtcw_pid();
    ok(pid > 0, "which ran in a worker (%d)", (int)pid);
    ok(agree(&there, 1), "a template's name expression and an instantiation: the same PTX and lowered name");
    ok(agree(&there, 2), "a -D option: the same");
    ok(agree(&there, 3), "a compile error: the same log");
    ok(gt_rtcw_pid() == pid && notes == 0, "all in the thread's one worker, no failure");
    threads();
    killed();
    ok(mkdtemp(dir) != NULL, "a temporary folder");
    garbage(dir);
    silent(dir);
    rmdir(dir);
    missing();
    malformed();
    gt_jit_close(&there);
    gt_jit_close(&here);
    return done_testing();
}
