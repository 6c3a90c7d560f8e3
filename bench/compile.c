/* compile: how fast variants build, serially, in parallel and from the store.
 *
 *   compile [KERNEL_SOURCE [ITS_PTX [N]]]
 *
 * Builds N (default 64) variants of kernels/transpose.cu for sm_90 from
 * source (macros TILE, ROWS, PAD; NVRTC then nvJitLink) and N of its PTX
 * (register limits and load cache modes; nvJitLink): once on one thread, once on all the
 * processors (GPUTUNE_JOBS), once more out of the store the second pass
 * filled.  Prints the times and the ratios, measured side by side in one run. */
#include "jit.h"
#include "pool.h"
#include "store.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* Builds n variants on `threads` threads; returns seconds, or -1 if any failed. */
static double pass(enum gt_jit_input input, const char *text, int n, int threads, const struct gt_store *store,
                   int *from_store)
{
    struct build *b = calloc((size_t)n, sizeof *b);
    struct gt_pool pool;
    gt_pool_start(&pool, threads > 1 ? threads : 0);
    double t0 = now();
    for (int i = 0; i < n; i++) {
        describe(&b[i], i, input, text);
        b[i].store = store;
        b[i].task = (struct gt_task){.fn = run, .arg = &b[i]};
        gt_pool_submit(&pool, &b[i].task);
    }
    for (int i = 0; i < n; i++)
        gt_pool_wait(&pool, &b[i].task);
    double t = now() - t0;
    gt_pool_stop(&pool);
    int ok = 1;
    *from_store = 0;
    for (int i = 0; i < n; i++) {
        if (!b[i].job.ok)
            fprintf(stderr, "variant %d failed: %s\n", i, b[i].job.log ? b[i].job.log : "");
        ok &= b[i].job.ok;
        *from_store += b[i].job.from_store;
        gt_jit_job_clear(&b[i].job);
    }
    free(b);
    return ok ? t : -1;
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

/* One line: the same n variants serially, in parallel, and from the store. */
static int report(const char *what, enum gt_jit_input input, const char *text, int n, int jobs)
{
    char root[] = "/tmp/gputune-bench-XXXXXX", err[512];
    struct gt_store store;
    int stored;
    if (!mkdtemp(root) || gt_store_open(&store, root, err, sizeof err) != 0) {
        fprintf(stderr, "store: %s\n", err);
        return 1;
    }
    pass(input, text, 1, 1, NULL, &stored); /* the libraries' first-use costs, outside the timings */
    double serial = pass(input, text, n, 1, NULL, &stored);
    double parallel = pass(input, text, n, jobs, &store, &stored);
    double again = pass(input, text, n, jobs, &store, &stored);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    if (serial < 0 || parallel < 0 || again < 0)
        return 1;
    printf("%-22s %3d variants: 1 thread %7.2f s (%5.1f ms each), %2d threads %6.2f s: speed-up %5.2f (of %d); "
           "from the store %7.4f s (%d of %d), %5.0fx faster than building\n",
           what, n, serial, serial * 1e3 / n, jobs, parallel, serial / parallel, jobs, again, stored, n,
           parallel / again);
    return 0;
}

int main(int argc, char **argv)
{
    const char *src_path = argc > 1 ? argv[1] : "kernels/transpose.cu";
    const char *ptx_path = argc > 2 ? argv[2] : NULL;
    int n = argc > 3 ? atoi(argv[3]) : 64;
    int jobs = gt_pool_jobs();
    char *src = read_file(src_path), *ptx = ptx_path ? read_file(ptx_path) : NULL;
    gt_jit_init(&jit, dlsym);
    if (!src || gt_jit_open(&jit) != 0) {
        fprintf(stderr, "compile: %s\n", src ? jit.error : "cannot read the kernel source");
        return 2;
    }
    int rc = report("source (macros)", GT_JIT_SOURCE, src, n, jobs);
    if (ptx)
        rc |= report("PTX (knobs)", GT_JIT_PTX, ptx, n, jobs);
    free(src);
    free(ptx);
    return rc;
}
