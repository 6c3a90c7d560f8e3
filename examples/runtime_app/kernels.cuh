/* kernels.cuh: runtime_app's device code, published as source.
 *
 * Self-contained, so that a policy can have it rebuilt with NVRTC: the
 * application includes it, and tuning may compile it again with another
 * POLY_UNROLL (which changes how poly_const's loop is unrolled, never what
 * it computes). */
#ifndef POLY_UNROLL
#define POLY_UNROLL 1
#endif
/* The unroll pragma takes a constant expression, not a macro. */
static constexpr int poly_unroll = POLY_UNROLL;

/* 64 KiB of floats per block: above the 48 KiB a launch gets without opting in. */
#define TILE 16384
#define TILE_BYTES (TILE * (int)sizeof(float))

__constant__ float c_poly[8];
__device__ unsigned int d_above;

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

template <typename T> __global__ void scale(T *x, T s, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        x[i] = x[i] * s;
}

extern "C" __global__ void bias_relu(float *io, const float *bias, int nbias, int shift, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        io[i] = fmaxf(io[i] + bias[(i + shift) % nbias], 0.0f) * 0.75f;
}

__global__ void poly_const(const float *x, float *y, int n, float threshold)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i], acc = c_poly[7];
#pragma unroll poly_unroll
        for (int k = 6; k >= 0; k--)
            acc = acc * v + c_poly[k];
        y[i] = acc;
        if (v > threshold)
            atomicAdd(&d_above, 1u);
    }
}

__global__ void tile_reverse(const float *in, float *out, int n)
{
    extern __shared__ float tile[];
    int base = blockIdx.x * TILE;
    int len = min(TILE, n - base);
    for (int j = threadIdx.x; j < len; j += blockDim.x)
        tile[j] = in[base + j];
    __syncthreads();
    for (int j = threadIdx.x; j < len; j += blockDim.x)
        out[base + j] = tile[len - 1 - j] - 0.5f * tile[j];
}

__global__ void graph_step(float *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = v[i] * 0.875f + 0.125f * (float)(i & 7);
}

