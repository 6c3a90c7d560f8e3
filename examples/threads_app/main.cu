/* threads_app: several host threads launching at once.
 *
 * Four threads share one context and launch concurrently, each on two
 * streams of its own, with stream-ordered allocations (cudaMallocAsync /
 * cudaFreeAsync) from the device's pool: the launch counts the shim reports
 * must come out exact however the threads interleave. */
#include "../common.h"

#include <cuda_runtime.h>

#include <thread>

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            snprintf(t->error, sizeof t->error, "%s failed: %s", #call,                \
                     cudaGetErrorString(err_));                                        \
            return;                                                                    \
        }                                                                              \
    } while (0)

enum {
    NTHREADS = 4,
    LAUNCHES = 500, /* per thread, across both of its streams */
    MIX_EVERY = 4,  /* on stream 0, every 4th launch is a mix */
    /* stream 0 gets 400 launches: 300 iterate + 100 mix; stream 1 gets 100 iterate */
    S0_LAUNCHES = 400,
    S1_LAUNCHES = LAUNCHES - S0_LAUNCHES,
    MIX_PER_THREAD = S0_LAUNCHES / MIX_EVERY,
    ITERATE_PER_THREAD = LAUNCHES - MIX_PER_THREAD,
};

__global__ void thread_iterate(float *v, int n, float a, float b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = fmaf(v[i], a, b);
}

__global__ void thread_mix(float *v, const float *w, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = fmaf(0.25f, w[i] - v[i], v[i]);
}

struct worker {
    int id, n;
    float a, b;
    float *v, *u, *w;        /* host: inputs, then results */
    float *want_v, *want_u;  /* CPU reference */
    char error[256];
};

static void work(struct worker *t)
{
    const int n = t->n, block = 128 << (t->id % 3), grid = (n + block - 1) / block;
    const size_t bytes = (size_t)n * sizeof(float);
    cudaStream_t s[2];
    float *dv, *du, *dw;

    CK(cudaSetDevice(0));
    CK(cudaStreamCreateWithFlags(&s[0], cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s[1], cudaStreamNonBlocking));
    CK(cudaMallocAsync((void **)&dv, bytes, s[0]));
    CK(cudaMallocAsync((void **)&dw, bytes, s[0]));
    CK(cudaMallocAsync((void **)&du, bytes, s[1]));
    CK(cudaMemcpyAsync(dv, t->v, bytes, cudaMemcpyHostToDevice, s[0]));
    CK(cudaMemcpyAsync(dw, t->w, bytes, cudaMemcpyHostToDevice, s[0]));
    CK(cudaMemcpyAsync(du, t->u, bytes, cudaMemcpyHostToDevice, s[1]));
    for (int k = 0, k1 = 0; k < S0_LAUNCHES; k++) {
        if (k % MIX_EVERY == MIX_EVERY - 1)
            thread_mix<<<grid, block, 0, s[0]>>>(dv, dw, n);
        else
            thread_iterate<<<grid, block, 0, s[0]>>>(dv, n, t->a, t->b);
        /* interleave the second stream's launches with the first's */
        if (k % (S0_LAUNCHES / S1_LAUNCHES) == 0 && k1++ < S1_LAUNCHES)
            thread_iterate<<<grid / 2 + 1, block * 2 > 1024 ? 1024 : block * 2, 0, s[1]>>>(du, n, t->b, t->a);
    }
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(t->v, dv, bytes, cudaMemcpyDeviceToHost, s[0]));
    CK(cudaMemcpyAsync(t->u, du, bytes, cudaMemcpyDeviceToHost, s[1]));
    CK(cudaFreeAsync(dv, s[0]));
    CK(cudaFreeAsync(dw, s[0]));
    CK(cudaFreeAsync(du, s[1]));
    CK(cudaStreamSynchronize(s[0]));
    CK(cudaStreamSynchronize(s[1]));
    CK(cudaStreamDestroy(s[0]));
    CK(cudaStreamDestroy(s[1]));
}

static void reference(struct worker *t)
{
    for (int i = 0; i < t->n; i++) {
        float v = t->v[i], u = t->u[i];
        for (int k = 0; k < S0_LAUNCHES; k++)
            v = k % MIX_EVERY == MIX_EVERY - 1 ? fmaf(0.25f, t->w[i] - v, v) : fmaf(v, t->a, t->b);
        for (int k = 0; k < S1_LAUNCHES; k++)
            u = fmaf(u, t->b, t->a);
        t->want_v[i] = v;
        t->want_u[i] = u;
    }
}

int main(int argc, char **argv)
{
    struct ex e;
    ex_init(&e, argc, argv);

    struct worker ws[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        struct worker *t = &ws[i];
        memset(t, 0, sizeof *t);
        t->id = i;
        t->n = (1 << 15) * (i + 1) + 37 * i;
        t->a = 0.97f - 0.01f * (float)i;
        t->b = 0.01f + 0.005f * (float)i;
        size_t bytes = (size_t)t->n * sizeof(float);
        t->v = (float *)ex_alloc(bytes);
        t->u = (float *)ex_alloc(bytes);
        t->w = (float *)ex_alloc(bytes);
        t->want_v = (float *)ex_alloc(bytes);
        t->want_u = (float *)ex_alloc(bytes);
        ex_fill(t->v, t->n, 100 + i, -2.0f, 2.0f);
        ex_fill(t->u, t->n, 200 + i, -2.0f, 2.0f);
        ex_fill(t->w, t->n, 300 + i, -1.0f, 3.0f);
        reference(t);
    }

    /* The runtime's context exists before the threads race to use it. */
    cudaError_t err = cudaFree(0);
    if (err != cudaSuccess)
        ex_die("cudaFree(0) failed: %s", cudaGetErrorString(err));

    std::thread th[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        th[i] = std::thread(work, &ws[i]);
    for (int i = 0; i < NTHREADS; i++)
        th[i].join();

    for (int i = 0; i < NTHREADS; i++) {
        struct worker *t = &ws[i];
        if (t->error[0])
            ex_die("thread %d: %s", i, t->error);
        double *want = (double *)ex_alloc((size_t)t->n * sizeof(double));
        char what[64];
        for (int j = 0; j < t->n; j++)
            want[j] = t->want_v[j];
        snprintf(what, sizeof what, "thread %d v", i);
        ex_close(&e, what, t->v, want, t->n, 1e-6, 1e-7);
        for (int j = 0; j < t->n; j++)
            want[j] = t->want_u[j];
        snprintf(what, sizeof what, "thread %d u", i);
        ex_close(&e, what, t->u, want, t->n, 1e-6, 1e-7);
        ex_write(&e, t->v, (size_t)t->n * sizeof(float));
        ex_write(&e, t->u, (size_t)t->n * sizeof(float));
        free(want), free(t->v), free(t->u), free(t->w), free(t->want_v), free(t->want_u);
    }

    ex_expect("thread_iterate(", (unsigned long)NTHREADS * ITERATE_PER_THREAD);
    ex_expect("thread_mix(", (unsigned long)NTHREADS * MIX_PER_THREAD);
    return ex_finish(&e);
}
