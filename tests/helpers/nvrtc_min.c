/* nvrtc_min: NVRTC output loaded through a driver linked with -lcuda.
 *
 * Compiles a kernel with NVRTC (which needs no GPU), loads the PTX with
 * cuModuleLoadData and launches it through the exported driver symbols;
 * run against tests/helpers/fakecuda.c it tests, without a GPU, that the
 * shim links a module to the NVRTC program it came from.
 *
 *   nvrtc_min          axpy launched three times without arguments
 *   nvrtc_min N...     axpy launched once per N with its arguments (a = 2,
 *                      null pointers, n = N), for policies that read n */
#define CUDA_ENABLE_DEPRECATED
#include <cuda.h>
#include <nvrtc.h>

#include <stdio.h>
#include <stdlib.h>

static const char source[] =
    "extern \"C\" __global__ void axpy(float a, const float *x, float *y, int n)\n"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += FACTOR * a * x[i]; }\n";

static const char handwritten[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry touch()\n{\n\tret;\n}\n";

#define CHECK(call)                                              \
    do {                                                         \
        int r_ = (int)(call);                                    \
        if (r_ != 0) {                                           \
            printf("nvrtc_min: %s -> %d\n", #call, r_);          \
            exit(4);                                             \
        }                                                        \
    } while (0)

static void launch_with_n(CUfunction axpy, int n)
{
    float a = 2;
    CUdeviceptr x = 0, y = 0;
    void *args[] = {&a, &x, &y, &n};
    CHECK(cuLaunchKernel(axpy, 4, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
}

int main(int argc, char **argv)
{
    nvrtcProgram prog;
    const char *opts[] = {"-DFACTOR=3", "--gpu-architecture=compute_75"};
    size_t size;
    CHECK(nvrtcCreateProgram(&prog, source, "axpy.cu", 0, NULL, NULL));
    CHECK(nvrtcCompileProgram(prog, 2, opts));
    CHECK(nvrtcGetPTXSize(prog, &size));
    char *ptx = malloc(size);
    CHECK(nvrtcGetPTX(prog, ptx));
    CHECK(nvrtcDestroyProgram(&prog));

    CUmodule mod, other;
    CUfunction axpy, touch;
    CHECK(cuInit(0));
    CHECK(cuModuleLoadData(&mod, ptx));
    free(ptx); /* the application may drop its copy once loaded */
    CHECK(cuModuleGetFunction(&axpy, mod, "axpy"));
    CHECK(cuModuleLoadData(&other, handwritten));
    CHECK(cuModuleGetFunction(&touch, other, "touch"));
    for (int i = 1; i < argc; i++)
        launch_with_n(axpy, atoi(argv[i]));
    for (int i = 0; argc == 1 && i < 3; i++)
        CHECK(cuLaunchKernel(axpy, 4, 1, 1, 128, 1, 1, 0, NULL, NULL, NULL));
    CHECK(cuLaunchKernel(touch, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
    CHECK(cuModuleUnload(mod));
    CHECK(cuModuleUnload(other));
    printf("nvrtc_min: done\n");
    return 0;
}
