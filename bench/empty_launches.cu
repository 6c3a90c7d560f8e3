/* empty_launches: what one kernel launch costs the host.
 *
 * An empty kernel, launched N times (default 200000) in a loop on one
 * stream after 1000 warm-up launches; the time from the first launch of
 * the loop to the end of the synchronization that follows it is printed as
 * `launch_loop_seconds S`.  The kernel does nothing, so the time is the
 * launch path: the CUDA runtime, the driver and anything between them.
 * Then the same loop with the kernel's cache preference set before each
 * launch, L1 and none by turns, as the shim sets and restores it where one
 * geometry of a function runs a kept preference and the others the
 * original: `flip_loop_seconds S`.  That host time is outside what the
 * guard's events time on the GPU. */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__global__ void empty_kernel() {}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void check(cudaError_t err, const char *what)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "empty_launches: %s: %s\n", what, cudaGetErrorString(err));
        exit(1);
    }
}

int main(int argc, char **argv)
{
    long n = 200000;
    if (argc > 2 || (argc == 2 && (n = strtol(argv[1], NULL, 10)) <= 0)) {
        fprintf(stderr, "usage: %s [LAUNCHES]\n", argv[0]);
        return 2;
    }
    cudaStream_t s;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    for (int i = 0; i < 1000; i++)
        empty_kernel<<<1, 1, 0, s>>>();
    check(cudaStreamSynchronize(s), "warm-up");

    double t0 = now();
    for (long i = 0; i < n; i++)
        empty_kernel<<<1, 1, 0, s>>>();
    check(cudaGetLastError(), "launch");
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    double t1 = now();

    double t2 = now();
    for (long i = 0; i < n; i++) {
        check(cudaFuncSetCacheConfig(empty_kernel, i & 1 ? cudaFuncCachePreferNone : cudaFuncCachePreferL1),
              "cudaFuncSetCacheConfig");
        empty_kernel<<<1, 1, 0, s>>>();
    }
    check(cudaGetLastError(), "launch");
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    double t3 = now();

    check(cudaStreamDestroy(s), "cudaStreamDestroy");
    printf("launches %ld\n", n);
    printf("launch_loop_seconds %.6f\n", t1 - t0);
    printf("flip_loop_seconds %.6f\n", t3 - t2);
    return 0;
}
