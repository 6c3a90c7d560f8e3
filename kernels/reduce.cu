/* reduce.cu: *out = the sum of in[0 .. n-1], in one launch (the "threadFenceReduction" pattern).
 *
 * Each block sums a grid-stride share of the input, reduces it within the block and writes it to
 * partial[blockIdx.x]; the last block to finish (a fence, then a ticket from atomicInc on *counter)
 * adds the partials up and writes *out.  atomicInc wraps the counter back to 0 at the last ticket,
 * so the next launch starts from a clean counter (*counter must be 0 before the first one).
 * partial must hold one float per block of the grid.
 *
 * Tunable through macros (defaults: an untuned but reasonable choice):
 *   BLOCK        threads per block, a power of two from 32 to 1024
 *   VEC          1, 2 or 4: floats per load (float, float2, float4); elements past the last whole
 *                vector (or all of them, when in is not VEC-aligned) are loaded one by one
 *   ITEMS        loads per thread per grid-stride step, all issued before they are added
 *   GRID         blocks launched: a fixed count, e.g. a multiple of the H200's 132 SMs (the host
 *                launches min(GRID, blocks that have work); the kernel itself reads gridDim.x)
 *   USE_SHUFFLE  1: warp shuffles for the in-block stage; 0: a tree in shared memory
 * Launch: block BLOCK, grid min(GRID, max(1, ceil(n / (BLOCK * VEC * ITEMS)))).
 *
 * Results are NOT bitwise the same across configurations: another grid, block or load width adds
 * the floats in another order, so sums differ in their last bits (tune with a tolerance).  Each
 * configuration is deterministic: every thread adds its elements in a fixed order, the block
 * stage is a fixed tree, and the last block adds the partials in block order in a fixed tree
 * (no floating-point atomics). */
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef ITEMS
#define ITEMS 1
#endif
#ifndef GRID
#define GRID 1056
#endif
#ifndef USE_SHUFFLE
#define USE_SHUFFLE 0
#endif

#if BLOCK < 32 || BLOCK > 1024 || (BLOCK & (BLOCK - 1)) != 0
#error "BLOCK must be a power of two from 32 to 1024"
#endif
#if VEC != 1 && VEC != 2 && VEC != 4
#error "VEC must be 1, 2 or 4"
#endif

#if VEC == 4
typedef float4 reduce_vec;
#elif VEC == 2
typedef float2 reduce_vec;
#else
typedef float reduce_vec;
#endif

/* The sum of one vector's floats, in a fixed order. */
__device__ __forceinline__ float reduce_hsum(reduce_vec v)
{
#if VEC == 4
    return (v.x + v.y) + (v.z + v.w);
#elif VEC == 2
    return v.x + v.y;
#else
    return v;
#endif
}

/* The sum of every thread's x, valid in thread 0.  s: BLOCK floats of shared memory. */
__device__ __forceinline__ float reduce_block(float x, float *s)
{
#if USE_SHUFFLE
    /* Each warp folds its 32 values, warp 0 folds the warps' sums. */
    for (int d = 16; d > 0; d >>= 1)
        x += __shfl_down_sync(0xffffffffu, x, d);
    if (BLOCK > 32) {
        if (threadIdx.x % 32 == 0)
            s[threadIdx.x / 32] = x;
        __syncthreads();
        if (threadIdx.x < 32) {
            x = threadIdx.x < BLOCK / 32 ? s[threadIdx.x] : 0.0f;
            for (int d = 16; d > 0; d >>= 1)
                x += __shfl_down_sync(0xffffffffu, x, d);
        }
    }
    return x;
#else
    s[threadIdx.x] = x;
    __syncthreads();
    for (int d = BLOCK / 2; d > 0; d >>= 1) {
        if (threadIdx.x < d)
            s[threadIdx.x] += s[threadIdx.x + d];
        __syncthreads();
    }
    return s[0];
#endif
}

extern "C" __global__ void __launch_bounds__(BLOCK)
reduce(float *out, float *partial, unsigned *counter, const float *in, int n)
{
    __shared__ float s[USE_SHUFFLE ? 32 : BLOCK];
    __shared__ bool last;
    const bool aligned = (unsigned long long)in % (VEC * sizeof(float)) == 0;
    const size_t nv = aligned ? (size_t)(n > 0 ? n : 0) / VEC : 0; /* whole vectors */
    const reduce_vec *v = (const reduce_vec *)in;
    float sum = 0.0f;

    /* Grid-stride steps of ITEMS vectors per thread, BLOCK apart so that each load is coalesced. */
    size_t i = (size_t)blockIdx.x * BLOCK * ITEMS + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * BLOCK * ITEMS;
    for (; i + (ITEMS - 1) * BLOCK < nv; i += stride) {
        reduce_vec x[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
            x[k] = __ldg(v + i + k * BLOCK);
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
            sum += reduce_hsum(x[k]);
    }
    /* The one step that is not whole. */
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
        if (i + k * BLOCK < nv)
            sum += reduce_hsum(__ldg(v + i + k * BLOCK));
    /* Floats after the last whole vector. */
    for (size_t e = nv * VEC + (size_t)blockIdx.x * BLOCK + threadIdx.x; e < (size_t)(n > 0 ? n : 0);
         e += (size_t)gridDim.x * BLOCK)
        sum += __ldg(in + e);

    sum = reduce_block(sum, s);
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = sum;
        __threadfence(); /* the partial is visible before the ticket is taken */
        last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;

    /* The last block: partials in block order, BLOCK apart per thread, then the same tree (the
     * barrier above ended every read of s).  __ldcg reads them from L2, where the other blocks'
     * writes are. */
    __threadfence();
    sum = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK)
        sum += __ldcg(partial + b);
    sum = reduce_block(sum, s);
    if (threadIdx.x == 0)
        *out = sum;
}
