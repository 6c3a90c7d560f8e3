/* timing_kinds: what each way of timing a kernel reads, against what the
 * kernel costs in a dense stream of its own launches.
 *
 *   timing_kinds [CUPTI_LIBRARY]
 *
 * The truth is a CUDA graph of 20 back-to-back launches replayed 10 times:
 * the GPU time per launch.  Against it, per launch: CUDA events around one
 * launch, and CUPTI's kernel records of the serialized kind and of the
 * concurrent kind, each also with a 1 MB device-to-device copy before every
 * launch, as a trial restores its buffers.  Three kernels: one block
 * (launch cost alone), 256 blocks of one warp (a 2 us kernel, as
 * TorchInductor's small reductions), and a 64 MB copy (bandwidth-bound).
 * Three rounds, interleaved; each cell is a median in us, then its ratio to
 * the dense time.  CUPTI is opened with dlopen (by default libcupti.so, then
 * the toolkit's lib64 and extras/CUPTI/lib64). */
#include <cuda_runtime.h>
#include <cupti.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_NAME "timing_kinds"
#include "check.h"

enum { ROUNDS = 3, GRAPH_LAUNCHES = 20, GRAPH_REPLAYS = 10, REPS = 200, MAX_RECORDS = 4096 };
static const size_t BIG_FLOATS = 16u << 20, RESTORE_BYTES = 1u << 20;

__global__ void one_block(float *y) { y[threadIdx.x] = 1.0f; }

__global__ void row_center(float *y, const float *x, int cols)
{
    const float *r = x + (size_t)blockIdx.x * cols;
    float s = 0;
    for (int c = threadIdx.x; c < cols; c += 32)
        s += r[c];
    for (int o = 16; o; o >>= 1)
        s += __shfl_xor_sync(~0u, s, o);
    for (int c = threadIdx.x; c < cols; c += 32)
        y[(size_t)blockIdx.x * cols + c] = r[c] - s / cols;
}

__global__ void copy(float4 *y, const float4 *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = x[i];
}

static struct {
    CUptiResult (*enable)(CUpti_ActivityKind), (*disable)(CUpti_ActivityKind), (*flush)(uint32_t);
    CUptiResult (*next)(uint8_t *, size_t, CUpti_Activity **);
    double us[MAX_RECORDS];
    int n;
} cupti;

static float *x, *y, *restore_src, *restore_dst;
static cudaStream_t stream;

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max)
{
    *buffer = (uint8_t *)aligned_alloc(8, 1 << 22);
    *size = *buffer ? 1 << 22 : 0;
    *max = 0;
}

static void CUPTIAPI completed(CUcontext ctx, uint32_t id, uint8_t *buffer, size_t size, size_t valid)
{
    CUpti_Activity *rec = NULL;
    (void)ctx, (void)id, (void)size;
    while (cupti.next(buffer, valid, &rec) == CUPTI_SUCCESS) {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        if ((rec->kind == CUPTI_ACTIVITY_KIND_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) &&
            cupti.n < MAX_RECORDS)
            cupti.us[cupti.n++] = (k->end - k->start) / 1e3;
    }
    free(buffer);
}

static void *sym(void *h, const char *name)
{
    void *p = dlsym(h, name);
    if (!p) {
        fprintf(stderr, "timing_kinds: CUPTI lacks %s\n", name);
        exit(1);
    }
    return p;
}

static void open_cupti(const char *given)
{
    const char *paths[] = {given, "libcupti.so", "/usr/local/cuda/lib64/libcupti.so",
                           "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so"};
    void *h = NULL;
    for (unsigned i = given ? 0 : 1; i < sizeof paths / sizeof *paths && !h; i++)
        h = dlopen(paths[i], RTLD_NOW);
    if (!h) {
        printf("SKIP: no CUPTI library (%s)\n", dlerror());
        exit(0);
    }
    typedef CUptiResult (*register_fn)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
    cupti.enable = (CUptiResult(*)(CUpti_ActivityKind))sym(h, "cuptiActivityEnable");
    cupti.disable = (CUptiResult(*)(CUpti_ActivityKind))sym(h, "cuptiActivityDisable");
    cupti.flush = (CUptiResult(*)(uint32_t))sym(h, "cuptiActivityFlushAll");
    cupti.next = (CUptiResult(*)(uint8_t *, size_t, CUpti_Activity **))sym(h, "cuptiActivityGetNextRecord");
    if (((register_fn)sym(h, "cuptiActivityRegisterCallbacks"))(requested, completed) != CUPTI_SUCCESS) {
        fprintf(stderr, "timing_kinds: CUPTI's callbacks could not be registered\n");
        exit(1);
    }
}

static int cmp(const void *a, const void *b)
{
    double d = *(const double *)a - *(const double *)b;
    return (d > 0) - (d < 0);
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp);
    return n ? v[n / 2] : -1;
}

static void launch(int kernel)
{
    if (kernel == 0)
        one_block<<<1, 128, 0, stream>>>(y);
    else if (kernel == 1)
        row_center<<<256, 32, 0, stream>>>(y, x, 256);
    else
        copy<<<132 * 8, 256, 0, stream>>>((float4 *)y, (const float4 *)x, BIG_FLOATS / 4);
}

static void restore(void)
{
    CK(cudaMemcpyAsync(restore_dst, restore_src, RESTORE_BYTES, cudaMemcpyDeviceToDevice, stream));
}

/* The truth: GPU time per launch in replays of a graph of back-to-back launches. */
static double dense(int kernel)
{
    cudaGraph_t g;
    cudaGraphExec_t e;
    cudaEvent_t a, b;
    double us[15];
    CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < GRAPH_LAUNCHES; i++)
        launch(kernel);
    CK(cudaStreamEndCapture(stream, &g));
    CK(cudaGraphInstantiate(&e, g, 0));
    CK(cudaGraphLaunch(e, stream));
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int r = 0; r < 15; r++) {
        float ms;
        CK(cudaEventRecord(a, stream));
        for (int i = 0; i < GRAPH_REPLAYS; i++)
            CK(cudaGraphLaunch(e, stream));
        CK(cudaEventRecord(b, stream));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms, a, b));
        us[r] = ms * 1e3 / (GRAPH_LAUNCHES * GRAPH_REPLAYS);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    CK(cudaGraphExecDestroy(e));
    CK(cudaGraphDestroy(g));
    return median(us, 15);
}

static double events(int kernel, int restoring)
{
    cudaEvent_t a, b;
    double us[REPS];
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int r = 0; r < REPS; r++) {
        float ms;
        if (restoring)
            restore();
        CK(cudaEventRecord(a, stream));
        launch(kernel);
        CK(cudaEventRecord(b, stream));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms, a, b));
        us[r] = ms * 1e3;
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return median(us, REPS);
}

static double records(CUpti_ActivityKind kind, int kernel, int restoring)
{
    CK(cudaDeviceSynchronize());
    cupti.flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    cupti.n = 0;
    if (cupti.enable(kind) != CUPTI_SUCCESS) {
        fprintf(stderr, "timing_kinds: CUPTI activity kind %d could not be enabled\n", (int)kind);
        exit(1);
    }
    for (int r = 0; r < REPS; r++) {
        if (restoring)
            restore();
        launch(kernel);
    }
    CK(cudaDeviceSynchronize());
    cupti.flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    cupti.disable(kind);
    cupti.flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    return median(cupti.us, cupti.n);
}

int main(int argc, char **argv)
{
    static const char *names[] = {"1 block", "256 warps", "64 MB copy"};
    static const char *ways[] = {"events", "events, restoring", "serialized", "serialized, restoring",
                                 "concurrent", "concurrent, restoring"};
    double t[3][7][ROUNDS];
    int count;
    if (argc > 2 || cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf(argc > 2 ? "usage: timing_kinds [CUPTI_LIBRARY]\n" : "SKIP: no usable CUDA device\n");
        return argc > 2 ? 2 : 0;
    }
    open_cupti(argc == 2 ? argv[1] : NULL);
    CK(cudaMalloc(&x, BIG_FLOATS * 4));
    CK(cudaMalloc(&y, BIG_FLOATS * 4));
    CK(cudaMalloc(&restore_src, RESTORE_BYTES));
    CK(cudaMalloc(&restore_dst, RESTORE_BYTES));
    CK(cudaMemset(x, 0, BIG_FLOATS * 4));
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < 3; k++) {
            t[k][0][r] = dense(k);
            for (int w = 0; w < 2; w++)
                t[k][1 + w][r] = events(k, w);
            for (int w = 0; w < 2; w++)
                t[k][3 + w][r] = records(CUPTI_ACTIVITY_KIND_KERNEL, k, w);
            for (int w = 0; w < 2; w++)
                t[k][5 + w][r] = records(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, k, w);
        }
    for (int k = 0; k < 3; k++) {
        double truth = median(t[k][0], ROUNDS);
        printf("%-11s dense graph replay     %9.3f us\n", names[k], truth);
        for (int w = 0; w < 6; w++) {
            double m = median(t[k][1 + w], ROUNDS);
            printf("%-11s %-22s %9.3f us  ratio %.3f\n", names[k], ways[w], m, m / truth);
        }
    }
    return 0;
}
