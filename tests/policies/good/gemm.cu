// A tiled matrix product whose tile and unrolling are macros with defaults,
// the way a closed application would have been built.
#ifndef TILE
#define TILE 16
#endif
#ifndef UNROLL
#define UNROLL 1
#endif

template <int T>
__global__ void gemm(const float *a, const float *b, float *c, int n)
{
    __shared__ float as[T][T], bs[T][T];
    int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    float acc = 0;
    for (int k0 = 0; k0 < n; k0 += T) {
        as[threadIdx.y][threadIdx.x] = row < n && k0 + threadIdx.x < n ? a[row * n + k0 + threadIdx.x] : 0;
        bs[threadIdx.y][threadIdx.x] = col < n && k0 + threadIdx.y < n ? b[(k0 + threadIdx.y) * n + col] : 0;
        __syncthreads();
#pragma unroll UNROLL
        for (int k = 0; k < T; k++)
            acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n)
        c[row * n + col] = acc;
}

template __global__ void gemm<TILE>(const float *, const float *, float *, int);
