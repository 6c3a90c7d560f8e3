/* nvrtc_app: CUDA C++ compiled while the application runs.
 *
 * Two programs go through NVRTC with macro definitions on the command line,
 * as applications that specialize kernels at run time do: one is taken out
 * as PTX for the device's virtual architecture (an extern "C" kernel and a
 * template instantiation found through its lowered name), the other as a
 * cubin for the device's real architecture.  Both are loaded with
 * cuModuleLoadData and launched with cuLaunchKernel. */
#include "../common.h"

#include <cuda.h>
#include <nvrtc.h>

#define CK(call)                                                                       \
    do {                                                                               \
        CUresult r_ = (call);                                                          \
        if (r_ != CUDA_SUCCESS) {                                                      \
            const char *name_ = NULL;                                                  \
            cuGetErrorName(r_, &name_);                                                \
            ex_die("%s failed: %s (%d)", #call, name_ ? name_ : "unknown error", (int)r_); \
        }                                                                              \
    } while (0)

#define NV(call)                                                                       \
    do {                                                                               \
        nvrtcResult r_ = (call);                                                       \
        if (r_ != NVRTC_SUCCESS)                                                       \
            ex_die("%s failed: %s", #call, nvrtcGetErrorString(r_));                   \
    } while (0)

enum {
    N = 1 << 20,
    AFFINE_LAUNCHES = 8,
    STENCIL_LAUNCHES = 6,
    SUM_LAUNCHES = 4,
    SUM_BLOCK = 256, /* -DBLOCK for the second program */
    RADIUS = 2,      /* the stencil instantiation */
};

/* SCALE and OFFSET come from the command line; the build fails without them. */
static const char affine_src[] =
    "#if !defined(SCALE) || !defined(OFFSET)\n"
    "#error SCALE and OFFSET must be defined\n"
    "#endif\n"
    "extern \"C\" __global__ void rtc_affine(float *x, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        x[i] = fmaf(x[i], SCALE, OFFSET);\n"
    "}\n"
    "template <int R> __global__ void rtc_stencil(const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        float s = 0.0f;\n"
    "        for (int k = -R; k <= R; k++) {\n"
    "            int j = i + k;\n"
    "            if (j >= 0 && j < n)\n"
    "                s += x[j];\n"
    "        }\n"
    "        y[i] = s / (float)(2 * R + 1);\n"
    "    }\n"
    "}\n";

static const char sum_src[] =
    "extern \"C\" __global__ void rtc_block_sum(const float *x, float *partial, int n)\n"
    "{\n"
    "    __shared__ float s[BLOCK];\n"
    "    int i = blockIdx.x * BLOCK + threadIdx.x;\n"
    "    s[threadIdx.x] = i < n ? x[i] : 0.0f;\n"
    "    __syncthreads();\n"
    "    for (int w = BLOCK / 2; w > 0; w /= 2) {\n"
    "        if (threadIdx.x < w)\n"
    "            s[threadIdx.x] += s[threadIdx.x + w];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (threadIdx.x == 0)\n"
    "        partial[blockIdx.x] = s[0];\n"
    "}\n";

static const float SCALE = 0.5f, OFFSET = 0.75f;

/* Compiles src with opts; returns the PTX (cubin = 0) or the cubin. */
static char *compile(const char *src, const char *name, const char **opts, int nopts, int cubin,
                     const char *expr, char **lowered)
{
    nvrtcProgram prog;
    NV(nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL));
    if (expr)
        NV(nvrtcAddNameExpression(prog, expr));
    nvrtcResult r = nvrtcCompileProgram(prog, nopts, opts);
    if (r != NVRTC_SUCCESS) {
        size_t len = 0;
        nvrtcGetProgramLogSize(prog, &len);
        char *log = ex_alloc(len + 1);
        log[0] = '\0';
        nvrtcGetProgramLog(prog, log);
        fprintf(stderr, "%s", log);
        ex_die("nvrtcCompileProgram(%s) failed: %s", name, nvrtcGetErrorString(r));
    }
    size_t size = 0;
    char *out;
    if (cubin) {
        NV(nvrtcGetCUBINSize(prog, &size));
        out = ex_alloc(size);
        NV(nvrtcGetCUBIN(prog, out));
    } else {
        NV(nvrtcGetPTXSize(prog, &size));
        out = ex_alloc(size);
        NV(nvrtcGetPTX(prog, out));
    }
    if (expr) {
        const char *low = NULL;
        NV(nvrtcGetLoweredName(prog, expr, &low));
        *lowered = strdup(low); /* owned by the program, which goes now */
    }
    NV(nvrtcDestroyProgram(&prog));
    return out;
}

static int arch_supported(int arch)
{
    int n = 0;
    if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0)
        return 0;
    int *archs = ex_alloc((size_t)n * sizeof *archs);
    int found = 0;
    if (nvrtcGetSupportedArchs(archs) == NVRTC_SUCCESS)
        for (int i = 0; i < n; i++)
            found |= archs[i] == arch;
    free(archs);
    return found;
}

int main(int argc, char **argv)
{
    struct ex e;
    ex_init(&e, argc, argv);

    CUdevice dev;
    CUcontext ctx;
    int major = 0, minor = 0;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    if (!arch_supported(major * 10 + minor))
        ex_die("this NVRTC cannot compile for sm_%d%d", major, minor);

    char virt[64], real[64], block[32], scale[32], offset[32];
    snprintf(virt, sizeof virt, "--gpu-architecture=compute_%d%d", major, minor);
    snprintf(real, sizeof real, "-arch=sm_%d%d", major, minor);
    snprintf(block, sizeof block, "-DBLOCK=%d", SUM_BLOCK);
    snprintf(scale, sizeof scale, "-DSCALE=%.9gf", (double)SCALE);
    snprintf(offset, sizeof offset, "-DOFFSET=%.9gf", (double)OFFSET);
    const char *affine_opts[] = {virt, scale, offset, "--std=c++17"};
    const char *sum_opts[] = {real, block, "-lineinfo"};
    char expr[32], *stencil_name = NULL;
    snprintf(expr, sizeof expr, "rtc_stencil<%d>", RADIUS);

    char *ptx = compile(affine_src, "affine.cu", affine_opts, 4, 0, expr, &stencil_name);
    char *cubin = compile(sum_src, "block_sum.cu", sum_opts, 3, 1, NULL, NULL);
    CUmodule mptx, mcubin;
    CUfunction affine, stencil, block_sum;
    CK(cuModuleLoadData(&mptx, ptx));
    CK(cuModuleLoadData(&mcubin, cubin));
    free(ptx);
    free(cubin);
    CK(cuModuleGetFunction(&affine, mptx, "rtc_affine"));
    CK(cuModuleGetFunction(&stencil, mptx, stencil_name));
    CK(cuModuleGetFunction(&block_sum, mcubin, "rtc_block_sum"));

    const size_t fb = N * sizeof(float);
    float *x = ex_alloc(fb), *got = ex_alloc(fb), *ref = ex_alloc(fb), *tmp = ex_alloc(fb);
    double *want = ex_alloc(N * sizeof(double));
    ex_fill(x, N, 7, -3.0f, 3.0f);
    CUdeviceptr dx, dy, dpart;
    CK(cuMemAlloc(&dx, fb));
    CK(cuMemAlloc(&dy, fb));
    CK(cuMemAlloc(&dpart, fb / SUM_BLOCK + sizeof(float)));
    CK(cuMemcpyHtoD(dx, x, fb));
    int n = N;

    /* rtc_affine, in place, at two block sizes */
    for (int k = 0; k < AFFINE_LAUNCHES; k++) {
        unsigned blk = k % 2 ? 128 : 256;
        void *args[] = {&dx, &n};
        CK(cuLaunchKernel(affine, (N + blk - 1) / blk, 1, 1, blk, 1, 1, 0, NULL, args, NULL));
    }
    CK(cuMemcpyDtoH(got, dx, fb));
    for (int i = 0; i < N; i++) {
        float v = x[i];
        for (int k = 0; k < AFFINE_LAUNCHES; k++)
            v = fmaf(v, SCALE, OFFSET);
        ref[i] = v;
        want[i] = v;
    }
    ex_close(&e, "rtc_affine", got, want, N, 1e-6, 1e-7);
    ex_write(&e, got, fb);

    /* rtc_stencil<RADIUS>, ping-ponging between two buffers */
    CUdeviceptr src = dx, dst = dy;
    for (int k = 0; k < STENCIL_LAUNCHES; k++) {
        void *args[] = {&src, &dst, &n};
        CK(cuLaunchKernel(stencil, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
        CUdeviceptr t = src;
        src = dst;
        dst = t;
    }
    CK(cuMemcpyDtoH(got, src, fb));
    for (int k = 0; k < STENCIL_LAUNCHES; k++) {
        for (int i = 0; i < N; i++) {
            float s = 0.0f;
            for (int j = i - RADIUS; j <= i + RADIUS; j++)
                if (j >= 0 && j < N)
                    s += ref[j];
            tmp[i] = s / (float)(2 * RADIUS + 1);
        }
        float *t = ref;
        ref = tmp;
        tmp = t;
    }
    for (int i = 0; i < N; i++)
        want[i] = ref[i];
    ex_close(&e, "rtc_stencil", got, want, N, 1e-5, 1e-6);
    ex_write(&e, got, fb);

    /* rtc_block_sum over prefixes of the input, one partial per block */
    static const int sum_n[SUM_LAUNCHES] = {N, N / 2, N / 3 + 1, N / 5 + 7};
    for (int k = 0; k < SUM_LAUNCHES; k++) {
        int m = sum_n[k];
        unsigned grid = (unsigned)(m + SUM_BLOCK - 1) / SUM_BLOCK;
        void *args[] = {&dy, &dpart, &m};
        CK(cuMemcpyHtoD(dy, x, fb));
        CK(cuLaunchKernel(block_sum, grid, 1, 1, SUM_BLOCK, 1, 1, 0, NULL, args, NULL));
        CK(cuMemcpyDtoH(got, dpart, grid * sizeof(float)));
        for (unsigned b = 0; b < grid; b++) {
            double s = 0, mag = 0;
            for (int i = (int)b * SUM_BLOCK; i < m && i < (int)(b + 1) * SUM_BLOCK; i++)
                s += x[i], mag += fabs(x[i]);
            if (!(fabs(got[b] - s) <= 1e-5 * mag + 1e-6)) {
                ex_fail(&e, "rtc_block_sum n=%d: partial[%u] = %.9g, expected %.9g", m, b, got[b], s);
                break;
            }
        }
        ex_write(&e, got, grid * sizeof(float));
    }

    CK(cuMemFree(dx));
    CK(cuMemFree(dy));
    CK(cuMemFree(dpart));
    CK(cuModuleUnload(mptx));
    CK(cuModuleUnload(mcubin));
    CK(cuDevicePrimaryCtxRelease(dev));
    free(x), free(got), free(ref), free(tmp), free(want), free(stencil_name);

    ex_expect("rtc_affine", AFFINE_LAUNCHES);
    printf("expect void rtc_stencil<%d>( %d\n", RADIUS, STENCIL_LAUNCHES);
    ex_expect("rtc_block_sum", SUM_LAUNCHES);
    return ex_finish(&e);
}
