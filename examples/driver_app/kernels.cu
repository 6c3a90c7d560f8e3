/* kernels.cu: the kernels driver_app loads, built apart from it as a PTX
 * file (compute_75) and a fatbin file (compute_75 PTX + sm_90 SASS).
 * extern "C" keeps the names the application asks the driver for readable. */

#define DOT_BLOCK 256

extern "C" __global__ void add_vectors(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" __global__ void scale_shift(float *x, float s, float t, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        x[i] = fmaf(x[i], s, t);
}

/* One partial dot product per block, summed in a fixed order: the same bits every run. */
extern "C" __global__ void dot_partial(const float *a, const float *b, float *partial, int n)
{
    __shared__ float sum[DOT_BLOCK];
    float acc = 0.0f;
    for (int i = blockIdx.x * DOT_BLOCK + threadIdx.x; i < n; i += gridDim.x * DOT_BLOCK)
        acc = fmaf(a[i], b[i], acc);
    sum[threadIdx.x] = acc;
    __syncthreads();
    for (int w = DOT_BLOCK / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            sum[threadIdx.x] += sum[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = sum[0];
}

extern "C" __global__ void hash_fill(unsigned *out, int n, unsigned seed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned h = (unsigned)i ^ seed;
        h ^= h >> 16;
        h *= 0x7feb352dU;
        h ^= h >> 15;
        h *= 0x846ca68bU;
        h ^= h >> 16;
        out[i] = h;
    }
}

extern "C" __global__ void lib_axpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = fmaf(a, x[i], y[i]);
}
