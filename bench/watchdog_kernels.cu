/* watchdog_kernels.cu: kernels of the shapes tuned code has, for measuring
 * what the watchdog's checks cost (bench/watchdog_overhead.c): memory-bound
 * and compute-bound loops without collectives (checks at loop heads),
 * shared-memory tiles with barriers in the loop (barriers that decide), a
 * reduction and a scan with warp shuffles (the entry check only).  All take
 * (out, in, n); gemm reads A and B from `in` (n x n each). */

/* Memory-bound: one grid-stride loop. */
extern "C" __global__ void wk_axpy(float *out, const float *in, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = 1.5f * in[i] + out[i];
}

/* Compute-bound: every thread folds a window of 512 values (an n-body-like
 * inner loop, the worst case for a check at each loop head). */
extern "C" __global__ void wk_window(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int j = 0; j < 512; j++) {
        float d = in[(i + j) & (n - 1)] - in[i];
        acc += d * rsqrtf(d * d + 0.01f);
    }
    out[i] = acc;
}

/* Nested loops: each thread walks a column of a 5-point stencil. */
extern "C" __global__ void wk_stencil(float *out, const float *in, int n)
{
    const int width = 4096, height = n / width;
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < 1 || x >= width - 1)
        return;
    for (int y = 1; y < height - 1; y++) {
        float s = 0.0f;
        for (int k = -1; k <= 1; k += 2)
            s += in[(y + k) * width + x] + in[y * width + x + k];
        out[y * width + x] = 0.25f * s - in[y * width + x];
    }
}

/* Tiled matrix product, 32 x 32 tiles: two barriers per step of k. */
extern "C" __global__ void wk_gemm(float *out, const float *in, int n)
{
    __shared__ float as[32][33], bs[32][33];
    const float *a = in, *b = in + (size_t)n * n;
    int row = blockIdx.y * 32 + threadIdx.y, col = blockIdx.x * 32 + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += 32) {
        as[threadIdx.y][threadIdx.x] = a[(size_t)row * n + k0 + threadIdx.x];
        bs[threadIdx.y][threadIdx.x] = b[(size_t)(k0 + threadIdx.y) * n + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 32; k++)
            acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
        __syncthreads();
    }
    out[(size_t)row * n + col] = acc;
}

/* Block reduction: a grid-stride loop, a barrier tree, warp shuffles. */
extern "C" __global__ void wk_reduce(float *out, const float *in, int n)
{
    __shared__ float part[256];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += in[i];
    part[threadIdx.x] = v;
    __syncthreads();
    for (int s = 128; s >= 32; s >>= 1) {
        if (threadIdx.x < s)
            part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x < 32) {
        v = part[threadIdx.x];
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
        if (threadIdx.x == 0)
            out[blockIdx.x] = v;
    }
}

/* Warp-level inclusive scan of each 32 elements. */
extern "C" __global__ void wk_scan(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = in[i];
    for (int o = 1; o < 32; o <<= 1) {
        float u = __shfl_up_sync(0xffffffffu, v, o);
        if ((threadIdx.x & 31) >= o)
            v += u;
    }
    out[i] = v;
}

/* Atomics in a grid-stride loop: a histogram of 256 bins. */
extern "C" __global__ void wk_histogram(float *out, const float *in, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int bin = (int)((in[i] + 1.0f) * 127.5f) & 255;
        atomicAdd(&out[bin], 1.0f);
    }
}
