/* nvrtc_min: NVRTC output loaded through a driver linked with -lcuda.
 *
 * Compiles a kernel with NVRTC (which needs no GPU), loads the PTX with
 * cuModuleLoadData and launches it through the exported driver symbols;
 * run against tests/helpers/fakecuda.c it tests, without a GPU, that the
 * shim links a module to the NVRTC program it came from.  A second module,
 * hand-written PTX, holds a kernel that does nothing and one that prints
 * "hi" with device printf (vprintf), launched in two geometries.
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
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n"
    ".visible .entry touch()\n{\n\tret;\n}\n"
    ".visible .entry chatty()\n{\n\t.local .align 4 .b8 fmt[4];\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<4>;\n"
    "\tmov.u32 %r1, 0x000a6968;\n\tst.local.u32 [fmt], %r1;\n\tmov.u64 %rd1, fmt;\n\tcvta.local.u64 %rd2, %rd1;\n"
    "\tmov.u64 %rd3, 0;\n\t{\n\t.param .b64 p0;\n\tst.param.b64 [p0], %rd2;\n\t.param .b64 p1;\n"
    "\tst.param.b64 [p1], %rd3;\n\t.param .b32 r;\n\tcall.uni (r), vprintf, (p0, p1);\n\t}\n\tret;\n}\n";

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
    CUfunction axpy, touch, chatty;
    CHECK(cuInit(0));
    CHECK(cuModuleLoadData(&mod, ptx));
    free(ptx); /* the application may drop its copy once loaded */
    CHECK(cuModuleGetFunction(&axpy, mod, "axpy"));
    CHECK(cuModuleLoadData(&other, handwritten));
    CHECK(cuModuleGetFunction(&touch, other, "touch"));
    CHECK(cuModuleGetFunction(&chatty, other, "chatty"));
    for (int i = 1; i < argc; i++)
        launch_with_n(axpy, atoi(argv[i]));
    for (int i = 0; argc == 1 && i < 3; i++)
        CHECK(cuLaunchKernel(axpy, 4, 1, 1, 128, 1, 1, 0, NULL, NULL, NULL));
    CHECK(cuLaunchKernel(touch, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
    CHECK(cuLaunchKernel(chatty, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
    CHECK(cuLaunchKernel(chatty, 2, 1, 1, 64, 1, 1, 0, NULL, NULL, NULL));
    CHECK(cuModuleUnload(mod));
    CHECK(cuModuleUnload(other));
    printf("nvrtc_min: done\n");
    return 0;
}
