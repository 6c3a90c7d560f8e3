/* compile: how fast variants build, serially, in parallel and from the store.
 *
 *   compile [KERNEL_SOURCE [ITS_PTX [N [WORKER]]]]
 *
 * Builds N (default 64) variants of kernels/transpose.cu for sm_90 from
 * source (macros TILE, ROWS, PAD; NVRTC then nvJitLink) and N of its PTX
 * (register limits and load cache modes; nvJitLink): once on one thread, once on all the
 * processors (GPUTUNE_JOBS), once more out of the store the second pass
 * filled.  The source builds run once more with NVRTC in compiler worker
 * processes (WORKER, default the gputune of this build: ../gputune beside
 * this program), on one thread and on all, their PTX checked against the
 * in-process builds'.  Each pass's threads make a first build before the
 * timing (as in the shim, whose pool lives as long as the process); what
 * starting the workers took is printed apart.  The driver's compute cache
 * is off (CUDA_CACHE_DISABLE=1): every pass compiles.  Prints the times and
 * the ratios, measured side by side in one run. */
#include "env.h"
#include "hash.h"
#include "jit.h"
#include "pool.h"
#include "rtcworker.h"
#include "store.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct build {
    struct gt_task task;
    struct gt_jit_job job;
    const struct gt_store *store;
    char opt[3][48];
    const char *opts[3];
};

static struct gt_jit jit;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void run(void *arg)
{
    struct build *b = arg;
    gt_jit_build(&jit, b->store, &b->job);
}

/* Variant i: the i-th combination of macros (source) or of ptxas knobs (PTX). */
static void describe(struct build *b, int i, enum gt_jit_input input, const char *text)
{
    static const int tiles[] = {8, 16, 32, 64}, rows[] = {1, 2, 4, 8}, regs[] = {32, 40, 48, 64, 80, 96, 128, 168};
    static const char *const dlcm[] = {"ca", "cg", "cs", "lu", "cv", "ca", "cg", "cs"};
    memset(b, 0, sizeof *b);
    if (input == GT_JIT_SOURCE) {
        snprintf(b->opt[0], sizeof b->opt[0], "-DTILE=%d", tiles[i % 4]);
        snprintf(b->opt[1], sizeof b->opt[1], "-DROWS=%d", rows[i / 4 % 4] < tiles[i % 4] ? rows[i / 4 % 4] : 1);
        snprintf(b->opt[2], sizeof b->opt[2], "-DPAD=%d", i / 16 % 2 + 2 * (i / 32));
    } else {
        snprintf(b->opt[0], sizeof b->opt[0], "-maxrregcount=%d", regs[i % 8]);
        snprintf(b->opt[1], sizeof b->opt[1], "-Xptxas=-dlcm=%s", dlcm[i / 8 % 8]);
        snprintf(b->opt[2], sizeof b->opt[2], "-O%d", 3);
    }
    for (int k = 0; k < 3; k++)
        b->opts[k] = b->opt[k];
    b->job = (struct gt_jit_job){.input = input, .text = text, .name = "transpose", .arch = 90};
    if (input == GT_JIT_SOURCE)
        b->job.noptions = 3, b->job.options = b->opts;
    else
        b->job.nlink_options = 3, b->job.link_options = b->opts;
}

static pthread_barrier_t all_started;

/* A thread's first build, then a wait until every thread has had one: each
 * thread takes exactly one. */
static void start(void *arg)
{
    run(arg);
    pthread_barrier_wait(&all_started);
}

/* Every pool thread's first build (the libraries' first-use costs, the
 * start of its worker) outside the timings, as in the shim, whose pool
 * lives as long as the process; returns its seconds. */
static double start_threads(struct gt_pool *pool, int threads, enum gt_jit_input input, const char *text)
{
    struct build *b = calloc((size_t)threads, sizeof *b);
    pthread_barrier_init(&all_started, NULL, (unsigned)threads);
    double t0 = now();
    for (int i = 0; b && i < threads; i++) {
        describe(&b[i], 0, input, text);
        b[i].task = (struct gt_task){.fn = start, .arg = &b[i]};
        gt_pool_submit(pool, &b[i].task);
    }
    for (int i = 0; b && i < threads; i++) {
        gt_pool_wait(pool, &b[i].task);
        gt_jit_job_clear(&b[i].job);
    }
    double t = now() - t0;
    pthread_barrier_destroy(&all_started);
    free(b);
    return t;
}

struct timing {
    double start;           /* the threads' first builds */
    double build;           /* the n variants; -1 if any failed */
    int from_store;
};

/* Builds n variants on `threads` threads; ptx (if given) gets the hash of
 * each variant's PTX. */
static struct timing pass(enum gt_jit_input input, const char *text, int n, int threads, const struct gt_store *store,
                          uint64_t *ptx)
{
    struct build *b = calloc((size_t)n, sizeof *b);
    struct gt_pool pool;
    struct timing t = {0};
    gt_pool_start(&pool, threads > 1 ? threads : 0);
    t.start = start_threads(&pool, threads, input, text);
    double t0 = now();
    for (int i = 0; i < n; i++) {
        describe(&b[i], i, input, text);
        b[i].store = store;
        b[i].task = (struct gt_task){.fn = run, .arg = &b[i]};
        gt_pool_submit(&pool, &b[i].task);
    }
    for (int i = 0; i < n; i++)
        gt_pool_wait(&pool, &b[i].task);
    t.build = now() - t0;
    gt_pool_stop(&pool);
    for (int i = 0; i < n; i++) {
        if (!b[i].job.ok) {
            fprintf(stderr, "variant %d failed: %s\n", i, b[i].job.log ? b[i].job.log : "");
            t.build = -1;
        }
        t.from_store += b[i].job.from_store;
        if (ptx)
            ptx[i] = b[i].job.ptx ? gt_hash64(b[i].job.ptx, strlen(b[i].job.ptx)) : 0;
        gt_jit_job_clear(&b[i].job);
    }
    free(b);
    return t;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = calloc(1, (size_t)n + 1)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    return buf;
}

/* One line: the same n variants serially, in parallel, and from the store;
 * the first two timings (in[2]) and the PTX's hashes for report_workers. */
static int report(const char *what, enum gt_jit_input input, const char *text, int n, int jobs, struct timing *in,
                  uint64_t *ptx)
{
    char root[] = "/tmp/gputune-bench-XXXXXX", err[512];
    struct gt_store store;
    if (!mkdtemp(root) || gt_store_open(&store, root, err, sizeof err) != 0) {
        fprintf(stderr, "store: %s\n", err);
        return 1;
    }
    struct timing serial = pass(input, text, n, 1, NULL, ptx);
    struct timing parallel = pass(input, text, n, jobs, &store, NULL);
    struct timing again = pass(input, text, n, jobs, &store, NULL);
    in[0] = serial;
    in[1] = parallel;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    if (serial.build < 0 || parallel.build < 0 || again.build < 0)
        return 1;
    printf("%-22s %3d variants: 1 thread %7.2f s (%5.1f ms each), %2d threads %6.2f s: speed-up %5.2f (of %d); "
           "from the store %7.4f s (%d of %d), %5.0fx faster than building\n",
           what, n, serial.build, serial.build * 1e3 / n, jobs, parallel.build, serial.build / parallel.build, jobs,
           again.build, again.from_store, n, parallel.build / again.build);
    return 0;
}

static int same_ptx(const uint64_t *a, const uint64_t *b, int n)
{
    int same = 0;
    for (int i = 0; i < n; i++)
        same += a[i] && a[i] == b[i];
    return same;
}

/* One line: the source builds with NVRTC in workers, serially and in
 * parallel, against the in-process ones (their timings `in`, their PTX
 * `ptx`); and what starting the workers took. */
static int report_workers(const char *text, int n, int jobs, const struct timing *in, const uint64_t *ptx)
{
    uint64_t *one = calloc((size_t)n, sizeof *one), *all = calloc((size_t)n, sizeof *all);
    if (!one || !all) {
        free(one);
        free(all);
        return 1;
    }
    struct timing serial = pass(GT_JIT_SOURCE, text, n, 1, NULL, one);
    struct timing parallel = pass(GT_JIT_SOURCE, text, n, jobs, NULL, all);
    int same_one = same_ptx(ptx, one, n), same_all = same_ptx(ptx, all, n);
    free(one);
    free(all);
    if (serial.build < 0 || parallel.build < 0)
        return 1;
    printf("%-22s %3d variants: 1 thread %7.2f s (%5.1f ms each), %2d threads %6.2f s: speed-up %5.2f (of %d) over "
           "1 thread in process, %4.2fx the in-process threads; the same PTX as in process: %d of %d; "
           "starting %d workers (a first build each) took %.2f s\n",
           "source, NVRTC workers", n, serial.build, serial.build * 1e3 / n, jobs, parallel.build,
           in[0].build / parallel.build, jobs, in[1].build / parallel.build, same_one < same_all ? same_one : same_all,
           n, jobs, parallel.start);
    return same_one == n && same_all == n ? 0 : 1;
}

/* A worker that failed: its builds ran NVRTC in process, and the line
 * above does not measure workers alone. */
static void note(int final, const char *message)
{
    (void)final;
    fprintf(stderr, "compile: %s\n", message);
}

/* The worker executable: `given`, else ../gputune beside this program. */
static int find_worker(const char *given, char *path, size_t cap, char *err, size_t errlen)
{
    char self[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    self[k > 0 ? k : 0] = '\0';
    if (given)
        return gt_rtcw_find(given, strrchr(given, '/') ? strrchr(given, '/') + 1 : given, path, cap, err, errlen);
    return gt_rtcw_find(self, "../gputune", path, cap, err, errlen);
}

int main(int argc, char **argv)
{
    const char *src_path = argc > 1 ? argv[1] : "kernels/transpose.cu";
    const char *ptx_path = argc > 2 ? argv[2] : NULL;
    int n = argc > 3 ? atoi(argv[3]) : 64;
    struct gt_env env;
    gt_env_parse(&env, environ);
    int jobs = gt_pool_jobs((int)env.jobs);
    char *src = read_file(src_path), *ptx = ptx_path ? read_file(ptx_path) : NULL, err[PATH_MAX + 128];
    uint64_t *hashes = calloc((size_t)(n > 0 ? n : 1), sizeof *hashes);
    struct timing in_process[2];
    /* Where a driver is installed, NVRTC and nvJitLink keep what they built
     * in its compute cache (~/.nv/ComputeCache): a pass would be served
     * what an earlier pass or run built.  Every pass compiles, workers too
     * (they inherit the environment). */
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    gt_jit_init(&jit, dlsym);
    jit.note = note;
    if (!src || !hashes || n <= 0 || gt_jit_open(&jit) != 0) {
        fprintf(stderr, "compile: %s\n", !src ? "cannot read the kernel source" : !hashes || n <= 0 ? "bad N" : jit.error);
        return 2;
    }
    int rc = report("source (macros)", GT_JIT_SOURCE, src, n, jobs, in_process, hashes);
    if (rc == 0 && find_worker(argc > 4 ? argv[4] : NULL, jit.worker, sizeof jit.worker, err, sizeof err) != 0)
        printf("source, NVRTC workers: not measured: %s\n", err);
    else if (rc == 0)
        rc |= report_workers(src, n, jobs, in_process, hashes);
    jit.worker[0] = '\0';
    if (ptx)
        rc |= report("PTX (knobs)", GT_JIT_PTX, ptx, n, jobs, in_process, NULL);
    free(hashes);
    free(src);
    free(ptx);
    return rc;
}
