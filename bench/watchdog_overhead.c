/* watchdog_overhead: what the watchdog's checks cost a trial that is never
 * cut short (aim: median ratio <= 1.03).
 *
 *   watchdog_overhead FILE.ptx...
 *
 * Every kernel of the files that the table below knows is built twice for
 * the device, plain and with the checks (watchdog loops), and run in
 * alternation, each instrumented launch armed as tune mode arms it (a
 * budget the grid's first block turns into the deadline, here ten
 * seconds).  Prints per kernel the checks it got, both medians (CUDA
 * events) and their ratio, whether both computed the same bytes, and the
 * median of the ratios. */
#include "jit.h"
#include "policy.h"
#include "ptx.h"
#include "watchdog.h"

#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 15
#define MAX_ELEMS (64u << 20) /* floats in each buffer */

struct spec {
    const char *kernel;
    unsigned grid[3], block[3];
    int n;          /* the int argument, or width and height for transpose */
    int height;     /* 0: one int argument */
};

static const struct spec specs[] = {
    {"wk_axpy", {1056, 1, 1}, {256, 1, 1}, 64 << 20, 0},
    {"wk_window", {(4 << 20) / 256, 1, 1}, {256, 1, 1}, 4 << 20, 0},
    {"wk_stencil", {4096 / 128, 1, 1}, {128, 1, 1}, 4096 * 4096, 0},
    {"wk_gemm", {2048 / 32, 2048 / 32, 1}, {32, 32, 1}, 2048, 0},
    {"wk_reduce", {1056, 1, 1}, {256, 1, 1}, 64 << 20, 0},
    {"wk_scan", {(64 << 20) / 256, 1, 1}, {256, 1, 1}, 64 << 20, 0},
    {"wk_histogram", {1056, 1, 1}, {256, 1, 1}, 16 << 20, 0},
    {"transpose", {8192 / 16, 8192 / 16, 1}, {16, 16, 1}, 8192, 8192},
};

#define CK(call)                                                                                 \
    do {                                                                                         \
        CUresult r_ = (call);                                                                    \
        if (r_ != CUDA_SUCCESS) {                                                                \
            const char *s_ = "?";                                                                \
            cuGetErrorName(r_, &s_);                                                             \
            fprintf(stderr, "watchdog_overhead: %s failed: %s\n", #call, s_);                    \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

static struct gt_jit jit;
static CUdeviceptr din, dout;
static CUstream stream;
static CUevent ev[2];

struct build {
    CUmodule mod;
    CUfunction fn;
    CUdeviceptr wd; /* the watchdog words, 0 for the plain build */
};

/* Builds `kernel` of the PTX for sm_90 and loads it; 0 or -1. */
static int build(const char *ptx, const char *kernel, int watchdog, struct build *b, char *note, size_t len)
{
    struct gt_jit_job job = {.input = GT_JIT_PTX, .text = ptx, .name = kernel, .arch = 90, .watchdog = watchdog,
                             .kernel = kernel};
    size_t size;
    gt_jit_build(&jit, NULL, &job);
    if (!job.ok) {
        fprintf(stderr, "watchdog_overhead: %s does not build: %s\n", kernel, job.log ? job.log : "no log");
        gt_jit_job_clear(&job);
        return -1;
    }
    if (note)
        snprintf(note, len, "%s", job.watch.note);
    CK(cuModuleLoadData(&b->mod, job.cubin));
    CK(cuModuleGetFunction(&b->fn, b->mod, kernel));
    b->wd = 0;
    if (watchdog && cuModuleGetGlobal(&b->wd, &size, b->mod, GT_WATCHDOG_SYMBOL) != CUDA_SUCCESS)
        b->wd = 0;
    gt_jit_job_clear(&job);
    return 0;
}

/* Arms as tune mode does: deadline 0, fixed by the first block; a budget of 10 s. */
static void arm(const struct build *b)
{
    unsigned long long budget = 10000000000ull;
    CK(cuMemsetD32Async(b->wd, 0, 4, stream));
    CK(cuMemsetD32Async(b->wd + 16, (unsigned)budget, 1, stream));
    CK(cuMemsetD32Async(b->wd + 20, (unsigned)(budget >> 32), 1, stream));
}

static float launch(const struct spec *s, const struct build *b)
{
    int n = s->n, h = s->height;
    void *args1[] = {&dout, &din, &n}, *args2[] = {&dout, &din, &n, &h};
    float ms = 0;
    if (b->wd)
        arm(b);
    CK(cuEventRecord(ev[0], stream));
    CK(cuLaunchKernel(b->fn, s->grid[0], s->grid[1], s->grid[2], s->block[0], s->block[1], s->block[2], 0, stream,
                      h ? args2 : args1, NULL));
    CK(cuEventRecord(ev[1], stream));
    CK(cuEventSynchronize(ev[1]));
    CK(cuEventElapsedTime(&ms, ev[0], ev[1]));
    return ms * 1000.0f;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static float median(float *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_float);
    return v[n / 2];
}

/* Both builds from zeroed output: the same bytes? */
static int same_output(const struct spec *s, const struct build *plain, const struct build *checked,
                       unsigned char *h1, unsigned char *h2)
{
    size_t bytes = MAX_ELEMS * sizeof(float);
    CK(cuMemsetD8Async(dout, 0, bytes, stream));
    launch(s, plain);
    CK(cuMemcpyDtoH(h1, dout, bytes));
    CK(cuMemsetD8Async(dout, 0, bytes, stream));
    launch(s, checked);
    CK(cuMemcpyDtoH(h2, dout, bytes));
    unsigned long long aborted = 0;
    CK(cuMemcpyDtoH(&aborted, checked->wd + 8, sizeof aborted));
    return !aborted && memcmp(h1, h2, bytes) == 0;
}

static float measure(const char *ptx, const struct spec *s, unsigned char *h1, unsigned char *h2)
{
    struct build plain, checked;
    char note[384];
    if (build(ptx, s->kernel, GT_WATCHDOG_OFF, &plain, NULL, 0) != 0 ||
        build(ptx, s->kernel, GT_WATCHDOG_LOOPS, &checked, note, sizeof note) != 0)
        return -1;
    if (!checked.wd) {
        printf("%-13s not instrumented: %s\n", s->kernel, note);
        return -1;
    }
    int same = same_output(s, &plain, &checked, h1, h2);
    float tp[ROUNDS], tc[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        tp[r] = launch(s, &plain);
        tc[r] = launch(s, &checked);
    }
    float p = median(tp, ROUNDS), c = median(tc, ROUNDS);
    printf("%-13s %10.1f %10.1f %7.3f  %-4s  %s\n", s->kernel, p, c, c / p, same ? "yes" : "NO", note);
    CK(cuModuleUnload(plain.mod));
    CK(cuModuleUnload(checked.mod));
    return c / p;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: watchdog_overhead FILE.ptx...\n");
        return 2;
    }
    CUdevice dev;
    CUcontext ctx;
    gt_jit_init(&jit, dlsym);
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS) {
        printf("SKIP: no usable CUDA device\n");
        return 0;
    }
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CK(cuEventCreate(&ev[0], CU_EVENT_DEFAULT));
    CK(cuEventCreate(&ev[1], CU_EVENT_DEFAULT));
    size_t bytes = MAX_ELEMS * sizeof(float);
    float *host = malloc(bytes);
    unsigned char *h2 = malloc(bytes);
    if (!host || !h2)
        return 1;
    unsigned long long x = 88172645463325252ull;
    for (size_t i = 0; i < MAX_ELEMS; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        host[i] = (float)(x >> 40) / (float)(1 << 24) * 2.0f - 1.0f;
    }
    CK(cuMemAlloc(&din, bytes));
    CK(cuMemAlloc(&dout, bytes));
    CK(cuMemcpyHtoD(din, host, bytes));

    float ratios[64];
    int n = 0;
    printf("%-13s %10s %10s %7s  %-4s  %s\n", "kernel", "plain us", "checked us", "ratio", "same", "checks");
    for (int a = 1; a < argc; a++) {
        FILE *f = fopen(argv[a], "rb");
        char *ptx = malloc(1 << 24);
        size_t len = f && ptx ? fread(ptx, 1, (1 << 24) - 1, f) : 0;
        if (f)
            fclose(f);
        if (!len) {
            fprintf(stderr, "watchdog_overhead: cannot read %s\n", argv[a]);
            return 1;
        }
        ptx[len] = '\0';
        struct gt_ptx_module m;
        char err[256];
        if (gt_ptx_parse(ptx, len, &m, err, sizeof err) != 0) {
            fprintf(stderr, "watchdog_overhead: %s: %s\n", argv[a], err);
            return 1;
        }
        for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
            float r = gt_ptx_find(&m, specs[i].kernel) ? measure(ptx, &specs[i], (unsigned char *)host, h2) : -1;
            if (r > 0 && n < 64)
                ratios[n++] = r;
        }
        gt_ptx_free(&m);
        free(ptx);
    }
    if (n)
        printf("median ratio %.4f over %d kernels (aim <= 1.03)\n", median(ratios, n), n);
    free(host);
    free(h2);
    return 0;
}
