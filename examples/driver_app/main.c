/* driver_app: a C program that uses the driver API only, linked with -lcuda.
 *
 * It loads the kernels of kernels.cu three ways, each the way real programs
 * do it: a PTX file by path (cuModuleLoad), a fatbin read into memory
 * (cuModuleLoadData, the buffer freed right after), and the same fatbin
 * file as a library whose CUkernel handle goes straight to cuLaunchKernel.
 * Launches use cuLaunchKernel and cuLaunchKernelEx.  Each kernel is
 * launched from one of the three only, so every row of the shim's table
 * has one known count.  The files are found next to the executable. */
#include "../common.h"

#include <cuda.h>
#include <unistd.h>

#define CK(call)                                                                       \
    do {                                                                               \
        CUresult r_ = (call);                                                          \
        if (r_ != CUDA_SUCCESS) {                                                      \
            const char *name_ = NULL;                                                  \
            cuGetErrorName(r_, &name_);                                                \
            ex_die("%s failed: %s (%d)", #call, name_ ? name_ : "unknown error", (int)r_); \
        }                                                                              \
    } while (0)

enum {
    N = 1 << 20,
    ADD_LAUNCHES = 10,   /* PTX module, cuLaunchKernel */
    SCALE_LAUNCHES = 6,  /* PTX module, cuLaunchKernelEx */
    DOT_LAUNCHES = 4,    /* fatbin module, cuLaunchKernel */
    HASH_LAUNCHES = 3,   /* fatbin module, cuLaunchKernelEx */
    AXPY_LAUNCHES = 5,   /* library, CUkernel through cuLaunchKernel */
    DOT_BLOCK = 256,     /* as in kernels.cu */
    MAX_DOT_GRID = 256,
};

static char *beside_exe(const char *name)
{
    static char dir[4096];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n <= 0)
        ex_die("cannot read /proc/self/exe");
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    size_t len = strlen(dir) + 1 + strlen(name) + 1;
    char *path = ex_alloc(len);
    snprintf(path, len, "%s/%s", dir, name);
    return path;
}

static void *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        ex_die("cannot open %s", path);
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (size <= 0 || fseek(f, 0, SEEK_SET) != 0)
        ex_die("cannot size %s", path);
    void *buf = ex_alloc((size_t)size);
    if (fread(buf, 1, (size_t)size, f) != (size_t)size)
        ex_die("cannot read %s", path);
    fclose(f);
    return buf;
}

static CUlaunchConfig config(unsigned grid, unsigned block, CUstream s)
{
    CUlaunchConfig c;
    memset(&c, 0, sizeof c);
    c.gridDimX = grid, c.gridDimY = 1, c.gridDimZ = 1;
    c.blockDimX = block, c.blockDimY = 1, c.blockDimZ = 1;
    c.hStream = s;
    return c;
}

int main(int argc, char **argv)
{
    struct ex e;
    ex_init(&e, argc, argv);

    CUdevice dev;
    CUcontext ctx;
    CUstream st;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));

    char *ptx_path = beside_exe("kernels.ptx"), *fatbin_path = beside_exe("kernels.fatbin");
    CUmodule mptx, mfat;
    CUlibrary lib;
    CK(cuModuleLoad(&mptx, ptx_path));
    void *fatbin = read_file(fatbin_path);
    CK(cuModuleLoadData(&mfat, fatbin));
    free(fatbin); /* the driver has what it needs; so must any tool watching */
    CK(cuLibraryLoadFromFile(&lib, fatbin_path, NULL, NULL, 0, NULL, NULL, 0));

    CUfunction add_vectors, scale_shift, dot_partial, hash_fill;
    CUkernel lib_axpy;
    CK(cuModuleGetFunction(&add_vectors, mptx, "add_vectors"));
    CK(cuModuleGetFunction(&scale_shift, mptx, "scale_shift"));
    CK(cuModuleGetFunction(&dot_partial, mfat, "dot_partial"));
    CK(cuModuleGetFunction(&hash_fill, mfat, "hash_fill"));
    CK(cuLibraryGetKernel(&lib_axpy, lib, "lib_axpy"));

    const size_t fb = N * sizeof(float);
    float *a = ex_alloc(fb), *b = ex_alloc(fb), *got = ex_alloc(fb);
    double *want = ex_alloc(N * sizeof(double));
    uint32_t *hgot = ex_alloc(N * sizeof(uint32_t)), *hwant = ex_alloc(N * sizeof(uint32_t));
    ex_fill(a, N, 1, -1.0f, 1.0f);
    ex_fill(b, N, 2, -0.5f, 1.5f);
    CUdeviceptr da, db, dx, dy, dpart, dhash;
    CK(cuMemAlloc(&da, fb));
    CK(cuMemAlloc(&db, fb));
    CK(cuMemAlloc(&dx, fb));
    CK(cuMemAlloc(&dy, fb));
    CK(cuMemAlloc(&dpart, MAX_DOT_GRID * sizeof(float)));
    CK(cuMemAlloc(&dhash, N * sizeof(uint32_t)));
    CK(cuMemcpyHtoD(da, a, fb));
    CK(cuMemcpyHtoD(db, b, fb));
    int n = N;

    /* add_vectors: x = a + b + b + ..., ping-ponging between two buffers */
    CUdeviceptr src = da, dst = dx;
    for (int k = 0; k < ADD_LAUNCHES; k++) {
        unsigned block = 128u << (k % 3);
        void *args[] = {&src, &db, &dst, &n};
        CK(cuLaunchKernel(add_vectors, (N + block - 1) / block, 1, 1, block, 1, 1, 0, NULL, args, NULL));
        src = dst;
        dst = dst == dx ? dy : dx;
    }
    CUdeviceptr sum = src;

    /* scale_shift on that sum, grid-stride, on a stream of its own */
    CK(cuCtxSynchronize());
    static const float ss[SCALE_LAUNCHES] = {1.5f, 0.5f, -1.25f, 0.75f, 2.0f, -0.5f};
    for (int k = 0; k < SCALE_LAUNCHES; k++) {
        CUlaunchConfig c = config(80 + 16 * k, 256, st);
        float s = ss[k], t = 0.125f * (float)(k + 1);
        void *args[] = {&sum, &s, &t, &n};
        CK(cuLaunchKernelEx(&c, scale_shift, args, NULL));
    }
    CK(cuStreamSynchronize(st));
    CK(cuMemcpyDtoH(got, sum, fb));
    for (int i = 0; i < N; i++) {
        float v = a[i];
        for (int k = 0; k < ADD_LAUNCHES; k++)
            v = v + b[i];
        for (int k = 0; k < SCALE_LAUNCHES; k++)
            v = fmaf(v, ss[k], 0.125f * (float)(k + 1));
        want[i] = v;
    }
    ex_close(&e, "add_vectors+scale_shift", got, want, N, 1e-6, 1e-6);
    ex_write(&e, got, fb);

    /* dot_partial at several grid sizes: one partial sum per block */
    for (int k = 0; k < DOT_LAUNCHES; k++) {
        unsigned grid = 32u << k;
        void *args[] = {&da, &db, &dpart, &n};
        CK(cuLaunchKernel(dot_partial, grid, 1, 1, DOT_BLOCK, 1, 1, 0, NULL, args, NULL));
        float part[MAX_DOT_GRID];
        double ref[MAX_DOT_GRID] = {0}, mag[MAX_DOT_GRID] = {0};
        CK(cuMemcpyDtoH(part, dpart, grid * sizeof(float)));
        for (int i = 0; i < N; i++) {
            unsigned blk = (unsigned)(i / DOT_BLOCK) % grid;
            ref[blk] += (double)a[i] * b[i];
            mag[blk] += fabs((double)a[i] * b[i]);
        }
        for (unsigned blk = 0; blk < grid; blk++)
            if (!(fabs(part[blk] - ref[blk]) <= 1e-4 * mag[blk] + 1e-6)) {
                ex_fail(&e, "dot_partial grid=%u: partial[%u] = %.9g, expected %.9g", grid, blk, part[blk],
                        ref[blk]);
                break;
            }
        ex_write(&e, part, grid * sizeof(float));
    }

    /* hash_fill: integer results, exact */
    static const int hash_n[HASH_LAUNCHES] = {N, N / 3, 1000};
    for (int k = 0; k < HASH_LAUNCHES; k++) {
        int hn = hash_n[k];
        unsigned seed = 0x9e3779b9u * (unsigned)(k + 1);
        CUlaunchConfig c = config((unsigned)(hn + 255) / 256, 256, st);
        void *args[] = {&dhash, &hn, &seed};
        CK(cuLaunchKernelEx(&c, hash_fill, args, NULL));
        CK(cuStreamSynchronize(st));
        CK(cuMemcpyDtoH(hgot, dhash, hn * sizeof(uint32_t)));
        for (int i = 0; i < hn; i++) {
            uint32_t h = (uint32_t)i ^ seed;
            h ^= h >> 16;
            h *= 0x7feb352dU;
            h ^= h >> 15;
            h *= 0x846ca68bU;
            h ^= h >> 16;
            hwant[i] = h;
        }
        ex_same_u32(&e, "hash_fill", hgot, hwant, hn);
        ex_write(&e, hgot, hn * sizeof(uint32_t));
    }

    /* lib_axpy: y = b; y += c_k a, launched through the library's CUkernel */
    CK(cuMemcpyDtoD(dy, db, fb));
    for (int k = 0; k < AXPY_LAUNCHES; k++) {
        float ak = 0.25f * (float)(k + 1) - 0.6f;
        unsigned block = 256;
        void *args[] = {&ak, &da, &dy, &n};
        CK(cuLaunchKernel((CUfunction)lib_axpy, (N + block - 1) / block, 1, 1, block, 1, 1, 0, NULL, args, NULL));
    }
    CK(cuMemcpyDtoH(got, dy, fb));
    for (int i = 0; i < N; i++) {
        float v = b[i];
        for (int k = 0; k < AXPY_LAUNCHES; k++)
            v = fmaf(0.25f * (float)(k + 1) - 0.6f, a[i], v);
        want[i] = v;
    }
    ex_close(&e, "lib_axpy", got, want, N, 1e-6, 1e-7);
    ex_write(&e, got, fb);

    CK(cuMemFree(da));
    CK(cuMemFree(db));
    CK(cuMemFree(dx));
    CK(cuMemFree(dy));
    CK(cuMemFree(dpart));
    CK(cuMemFree(dhash));
    CK(cuStreamDestroy(st));
    CK(cuModuleUnload(mptx));
    CK(cuModuleUnload(mfat));
    CK(cuLibraryUnload(lib));
    CK(cuDevicePrimaryCtxRelease(dev));
    free(a), free(b), free(got), free(want), free(hgot), free(hwant), free(ptx_path), free(fatbin_path);

    ex_expect("add_vectors", ADD_LAUNCHES);
    ex_expect("scale_shift", SCALE_LAUNCHES);
    ex_expect("dot_partial", DOT_LAUNCHES);
    ex_expect("hash_fill", HASH_LAUNCHES);
    ex_expect("lib_axpy", AXPY_LAUNCHES);
    return ex_finish(&e);
}
