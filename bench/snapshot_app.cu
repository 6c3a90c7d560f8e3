/* snapshot_app: the buffers of bench/snapshot.
 *
 *   snapshot_app GIB   two buffers of GIB/2 GiB each; times a plain
 *                      device-to-device copy of them (cudaMemcpy, median of
 *                      5, events), prints `copy_gbps X`, then launches one
 *                      kernel over both, which the shim snapshots when tuning. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void touch(float *out, const float *in, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i] + 1.0f;
}

static int by_value(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    double gib = argc > 1 ? atof(argv[1]) : 4;
    size_t bytes = (size_t)(gib * (1 << 30) / 2), n = bytes / sizeof(float);
    float *a, *b, ms[5];
    cudaEvent_t e0, e1;
    if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) {
        printf("cannot allocate %.1f GiB\n", gib);
        return 1;
    }
    cudaMemset(a, 1, bytes);
    cudaMemset(b, 2, bytes);
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int i = 0; i < 5; i++) {
        cudaEventRecord(e0);
        cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms[i], e0, e1);
    }
    qsort(ms, 5, sizeof ms[0], by_value);
    printf("copy_gbps %.1f\n", bytes / (ms[2] * 1e-3) / 1e9);
    touch<<<1320, 256>>>(b, a, n);
    cudaError_t err = cudaDeviceSynchronize();
    printf("%s\n", err == cudaSuccess ? "result OK" : cudaGetErrorString(err));
    return err != cudaSuccess;
}
