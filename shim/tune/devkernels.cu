/* devkernels.cu: the shim's own device code, embedded in libgputune.so as PTX.
 *
 * Checking a candidate's output against the reference must not cost a trip
 * of every buffer to the host, so the comparison runs on the GPU: bitwise
 * over 8-byte words, or within a tolerance over elements of a float type.
 * Each kernel records the first index that differs (atomicMin) and how many
 * do.  gt_compare_poison checks a run from a state whose write-only buffers
 * were filled with 0xff bytes (GT_SNAP_POISON) against a run from the saved
 * state: bytes still 0xff pass, any other difference counts.  gt_arm arms
 * the watchdog of an instrumented trial (watchdog.c).  Built for compute_75
 * so that the driver can compile it for any device the shim tunes on. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ static void mismatch(unsigned long long i, unsigned long long *first, unsigned long long *count)
{
    atomicMin(first, i);
    atomicAdd(count, 1ull);
}

extern "C" __global__ void gt_compare_bits(const unsigned long long *a, const unsigned long long *b,
                                           unsigned long long n, unsigned long long *first, unsigned long long *count)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        if (a[i] != b[i])
            mismatch(i, first, count);
}

/* The high bit of each byte of x that is not zero. */
__device__ static unsigned long long nonzero_bytes(unsigned long long x)
{
    const unsigned long long low7 = 0x7f7f7f7f7f7f7f7full;
    return (((x & low7) + low7) | x) & ~low7;
}

extern "C" __global__ void gt_compare_poison(const unsigned long long *a, const unsigned long long *b,
                                             unsigned long long n, unsigned long long *first, unsigned long long *count)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        if (nonzero_bytes(a[i] ^ b[i]) & nonzero_bytes(~a[i]))
            mismatch(i, first, count);
}

/* Equal bits, or both NaN, or within abs + rel * |reference|. */
__device__ static bool close(double got, double want, double abs_tol, double rel_tol)
{
    if (got == want || (isnan(got) && isnan(want)))
        return true;
    return fabs(got - want) <= abs_tol + rel_tol * fabs(want);
}

#define COMPARE_AS(name, type, convert)                                                                           \
    extern "C" __global__ void name(const type *a, const type *b, unsigned long long n, double abs_tol,           \
                                    double rel_tol, unsigned long long *first, unsigned long long *count)         \
    {                                                                                                             \
        for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;             \
             i += (unsigned long long)gridDim.x * blockDim.x)                                                     \
            if (!close(convert(a[i]), convert(b[i]), abs_tol, rel_tol))                                           \
                mismatch(i, first, count);                                                                        \
    }

__device__ static double from_f32(float v) { return v; }
__device__ static double from_f64(double v) { return v; }
__device__ static double from_f16(__half v) { return __half2float(v); }
__device__ static double from_bf16(__nv_bfloat16 v) { return __bfloat162float(v); }

COMPARE_AS(gt_compare_f32, float, from_f32)
COMPARE_AS(gt_compare_f64, double, from_f64)
COMPARE_AS(gt_compare_f16, __half, from_f16)
COMPARE_AS(gt_compare_bf16, __nv_bfloat16, from_bf16)

/* Before each launch of an instrumented trial, on its stream: the deadline
 * is fixed by the grid's first block (0 until then), or never comes when
 * the trial must not be cut (budget 0).  The mark of a stop is cleared
 * only before the first launch of a measurement (clear), so that a stop in
 * any of its launches is still there after the last. */
extern "C" __global__ void gt_arm(unsigned long long *watchdog, unsigned long long budget_ns, int clear)
{
    watchdog[0] = budget_ns ? 0ull : ~0ull;
    if (clear)
        watchdog[1] = 0;
    watchdog[2] = budget_ns;
}
