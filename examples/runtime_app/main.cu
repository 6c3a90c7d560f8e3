/* runtime_app: an application written against the CUDA runtime API.
 *
 * Built with nvcc's defaults it links the runtime statically and carries
 * compute_75 PTX, which the driver compiles for the device at load time:
 * the case where the runtime reaches the driver through cuGetProcAddress and
 * launches CUkernel handles.  Built with --default-stream per-thread, the
 * same source reaches the driver's _ptsz entry points.
 *
 * It covers what a tuner must not disturb: the same kernels at several
 * sizes and geometries, a template, an extern "C" kernel, module-scope
 * __device__ and __constant__ variables, dynamic shared memory above the
 * 48 KiB default limit, and launches recorded into a graph by stream
 * capture and replayed. */
#include "../runtime.h"

/* Launch counts; the expect lines are printed from these. */
enum {
    NSIZES = 3,
    SAXPY_REPS = 40,
    SCALE_F_REPS = 4,
    SCALE_D_REPS = 2,
    RELU_REPS = 5,
    CAPTURED_STEPS = 4, /* launches recorded into the graph */
    GRAPH_REPLAYS = 5,  /* replays run them without a launch call */
};

static const int sizes[NSIZES] = {1 << 10, 1 << 16, 1 << 20};
static const int blocks[NSIZES] = {128, 256, 512};

#include "kernels.cuh"

static int grid_for(int n, int block)
{
    return (n + block - 1) / block;
}

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    CK(cudaMalloc(&p, bytes));
    return p;
}

/* The kernels that run at every size; results are checked and written per size. */
static void run_size(struct ex *e, int si, unsigned *above_out)
{
    const int n = sizes[si], block = blocks[si], grid = grid_for(n, block);
    const size_t fb = (size_t)n * sizeof(float), db = (size_t)n * sizeof(double);
    const int nbias = 97;
    char what[64];

    float *x = (float *)ex_alloc(fb), *y = (float *)ex_alloc(fb), *got = (float *)ex_alloc(fb);
    float *bias = (float *)ex_alloc(nbias * sizeof(float));
    double *xd = (double *)ex_alloc(db), *gotd = (double *)ex_alloc(db), *want = (double *)ex_alloc(db);
    ex_fill(x, n, 10 + si, -1.0f, 1.0f);
    ex_fill(y, n, 20 + si, -1.0f, 1.0f);
    ex_fill(bias, nbias, 30 + si, -0.5f, 1.0f);
    ex_fill_double(xd, n, 40 + si, -2.0, 2.0);

    float *dx = (float *)dev_alloc(fb), *dy = (float *)dev_alloc(fb), *dt = (float *)dev_alloc(fb);
    float *dbias = (float *)dev_alloc(nbias * sizeof(float));
    double *dxd = (double *)dev_alloc(db);
    CK(cudaMemcpy(dx, x, fb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dy, y, fb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dbias, bias, nbias * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dxd, xd, db, cudaMemcpyHostToDevice));

    /* saxpy, many times: y += a x */
    const float a = 0.37f;
    for (int r = 0; r < SAXPY_REPS; r++)
        saxpy<<<grid, block>>>(n, a, dx, dy);
    LAUNCHED();
    CK(cudaMemcpy(got, dy, fb, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float v = y[i];
        for (int r = 0; r < SAXPY_REPS; r++)
            v = a * x[i] + v;
        want[i] = v;
    }
    snprintf(what, sizeof what, "saxpy n=%d", n);
    ex_close(e, what, got, want, n, 1e-5, 1e-4);
    ex_write(e, got, fb);

    /* scale<float> on x, grid-stride over a capped grid; float products round alike on both sides */
    static const float fs[SCALE_F_REPS] = {1.25f, 0.8f, 1.5f, -0.5f};
    int capped = grid < 120 ? grid : 120;
    for (int r = 0; r < SCALE_F_REPS; r++)
        scale<float><<<capped, block>>>(dx, fs[r], n);
    LAUNCHED();
    CK(cudaMemcpy(got, dx, fb, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float v = x[i];
        for (int r = 0; r < SCALE_F_REPS; r++)
            v = v * fs[r];
        want[i] = v;
    }
    snprintf(what, sizeof what, "scale<float> n=%d", n);
    ex_close(e, what, got, want, n, 0, 0);
    ex_write(e, got, fb);

    static const double ds[SCALE_D_REPS] = {1.1, -0.9};
    for (int r = 0; r < SCALE_D_REPS; r++)
        scale<double><<<capped, block>>>(dxd, ds[r], n);
    LAUNCHED();
    CK(cudaMemcpy(gotd, dxd, db, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        double v = xd[i];
        for (int r = 0; r < SCALE_D_REPS; r++)
            v = v * ds[r];
        want[i] = v;
    }
    snprintf(what, sizeof what, "scale<double> n=%d", n);
    ex_close_double(e, what, gotd, want, n, 0, 0);
    ex_write(e, gotd, db);

    /* bias_relu, chained in place on a copy of y */
    CK(cudaMemcpy(dt, y, fb, cudaMemcpyHostToDevice));
    for (int r = 0; r < RELU_REPS; r++)
        bias_relu<<<grid, block>>>(dt, dbias, nbias, 7 * r, n);
    LAUNCHED();
    CK(cudaMemcpy(got, dt, fb, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float v = y[i];
        for (int r = 0; r < RELU_REPS; r++)
            v = fmaxf(v + bias[(i + 7 * r) % nbias], 0.0f) * 0.75f;
        want[i] = v;
    }
    snprintf(what, sizeof what, "bias_relu n=%d", n);
    ex_close(e, what, got, want, n, 1e-6, 1e-7);
    ex_write(e, got, fb);

    /* poly_const: a polynomial from __constant__ memory, a count in a __device__ variable */
    float poly[8];
    ex_fill(poly, 8, 50 + si, -1.0f, 1.0f);
    CK(cudaMemcpyToSymbol(c_poly, poly, sizeof poly));
    unsigned zero = 0, above = 0;
    CK(cudaMemcpyToSymbol(d_above, &zero, sizeof zero));
    const float threshold = 0.25f;
    poly_const<<<grid, block>>>(dx, dt, n, threshold);
    LAUNCHED();
    CK(cudaMemcpy(got, dt, fb, cudaMemcpyDeviceToHost));
    CK(cudaMemcpyFromSymbol(&above, d_above, sizeof above));
    float *xs = (float *)ex_alloc(fb); /* x after scale<float>, the kernel's input */
    CK(cudaMemcpy(xs, dx, fb, cudaMemcpyDeviceToHost));
    unsigned want_above = 0;
    for (int i = 0; i < n; i++) {
        double v = xs[i], acc = poly[7];
        for (int k = 6; k >= 0; k--)
            acc = acc * v + poly[k];
        want[i] = acc;
        want_above += xs[i] > threshold;
    }
    snprintf(what, sizeof what, "poly_const n=%d", n);
    ex_close(e, what, got, want, n, 1e-5, 1e-5);
    if (above != want_above)
        ex_fail(e, "poly_const n=%d counted %u above %g, expected %u", n, above, threshold, want_above);
    ex_write(e, got, fb);
    *above_out = above;

    /* tile_reverse: 64 KiB of dynamic shared memory per block */
    tile_reverse<<<grid_for(n, TILE), 512, TILE_BYTES>>>(dy, dt, n);
    LAUNCHED();
    CK(cudaMemcpy(got, dt, fb, cudaMemcpyDeviceToHost));
    float *ys = (float *)ex_alloc(fb); /* y after saxpy, the kernel's input */
    CK(cudaMemcpy(ys, dy, fb, cudaMemcpyDeviceToHost));
    for (int base = 0; base < n; base += TILE) {
        int len = n - base < TILE ? n - base : TILE;
        for (int j = 0; j < len; j++)
            want[base + j] = ys[base + len - 1 - j] - 0.5f * ys[base + j];
    }
    snprintf(what, sizeof what, "tile_reverse n=%d", n);
    ex_close(e, what, got, want, n, 1e-6, 1e-6);
    ex_write(e, got, fb);

    CK(cudaFree(dx));
    CK(cudaFree(dy));
    CK(cudaFree(dt));
    CK(cudaFree(dbias));
    CK(cudaFree(dxd));
    free(x), free(y), free(got), free(bias), free(xd), free(gotd), free(want), free(xs), free(ys);
}

/* graph_step: recorded into a graph by stream capture, then replayed. */
static void run_graph(struct ex *e)
{
    const int n = 1 << 18, block = 256;
    const size_t fb = (size_t)n * sizeof(float);
    float *v = (float *)ex_alloc(fb), *got = (float *)ex_alloc(fb);
    double *want = (double *)ex_alloc(n * sizeof(double));
    ex_fill(v, n, 60, -4.0f, 4.0f);
    float *dv = (float *)dev_alloc(fb);
    CK(cudaMemcpy(dv, v, fb, cudaMemcpyHostToDevice));

    cudaStream_t s;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int k = 0; k < CAPTURED_STEPS; k++)
        graph_step<<<grid_for(n, block), block, 0, s>>>(dv, n);
    cudaError_t launched = cudaGetLastError();
    CK(cudaStreamEndCapture(s, &graph));
    CK(launched);
    CK(cudaGraphInstantiate(&exec, graph, 0));
    for (int r = 0; r < GRAPH_REPLAYS; r++)
        CK(cudaGraphLaunch(exec, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(got, dv, fb, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float x = v[i];
        for (int k = 0; k < CAPTURED_STEPS * GRAPH_REPLAYS; k++)
            x = x * 0.875f + 0.125f * (float)(i & 7);
        want[i] = x;
    }
    ex_close(e, "graph_step", got, want, n, 1e-5, 1e-6);
    ex_write(e, got, fb);

    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(dv));
    free(v), free(got), free(want);
}

int main(int argc, char **argv)
{
    struct ex e;
    ex_init(&e, argc, argv);

    CK(cudaFuncSetAttribute(tile_reverse, cudaFuncAttributeMaxDynamicSharedMemorySize, TILE_BYTES));
    unsigned above[NSIZES];
    for (int si = 0; si < NSIZES; si++)
        run_size(&e, si, &above[si]);
    ex_write(&e, above, sizeof above);
    run_graph(&e);
    CK(cudaDeviceSynchronize());

    ex_expect("saxpy(", NSIZES * SAXPY_REPS);
    ex_expect("void scale<float>(", NSIZES * SCALE_F_REPS);
    ex_expect("void scale<double>(", NSIZES * SCALE_D_REPS);
    ex_expect("bias_relu", NSIZES * RELU_REPS);
    ex_expect("poly_const(", NSIZES);
    ex_expect("tile_reverse(", NSIZES);
    ex_expect("graph_step(", CAPTURED_STEPS);
    return ex_finish(&e);
}
