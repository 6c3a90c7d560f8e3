/* nbody.cu: one step's accelerations of an all-pairs gravitational n-body
 * system (GPU Gems 3, chapter 31).  pos[i] = (x, y, z, mass); for every body
 *   accel[i] = (sum over j = 0..n-1 of m_j r_ij / (|r_ij|^2 + eps2)^(3/2), 0),
 *   r_ij = pos[j].xyz - pos[i].xyz,
 * with 1/sqrt taken by rsqrtf.  eps2 > 0 softens close encounters; j == i is
 * not skipped (r = 0 makes its term 0), so every body does n interactions.
 *
 * Tunable through macros (defaults: an untuned but reasonable choice):
 *   BLOCK   threads per block
 *   BODIES  bodies per thread, i, i + BLOCK, ..., i + (BODIES-1) BLOCK: each
 *           body j read is reused BODIES times (register blocking)
 *   STAGE   1 stages the j bodies through shared memory, TILE_J at a time,
 *           loaded cooperatively by the block; 0 reads them straight from
 *           global memory through the read-only cache (__ldg), no barriers
 *   TILE_J  bodies per shared-memory tile (STAGE 1 only), any power of two
 *           whatever BLOCK: TILE_J * 16 bytes of shared memory
 *   UNROLL  unroll factor of the loop over j; 0 leaves it to the compiler
 * Launch: block BLOCK, grid ceil(n / (BLOCK * BODIES)).
 *
 * Every configuration computes bit-identical results: each body has one
 * accumulator per component, fed j = 0, 1, ..., n-1 in order by the same
 * expression (nbody_pull), whose every multiply-add is written as an fmaf and
 * whose plain products use __fmul_rn, which the compiler never contracts, so
 * no configuration can fuse differently.  Tiling, unrolling and register
 * blocking change only where body j comes from and when. */
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef BODIES
#define BODIES 1
#endif
#ifndef STAGE
#define STAGE 1
#endif
#ifndef TILE_J
#define TILE_J 256
#endif
#ifndef UNROLL
#define UNROLL 0
#endif

/* #pragma unroll does not expand macros; _Pragma of a string built here does. */
#define NBODY_PRAGMA_(x) _Pragma(#x)
#define NBODY_PRAGMA_UNROLL_(n) NBODY_PRAGMA_(unroll n)
#if UNROLL > 0
#define NBODY_UNROLL NBODY_PRAGMA_UNROLL_(UNROLL)
#else
#define NBODY_UNROLL
#endif

/* Adds body pj's pull on the body at p to acc: the one expression of every
 * configuration. */
static __device__ __forceinline__ void nbody_pull(float3 &acc, float3 p, float4 pj, float eps2)
{
    float rx = pj.x - p.x, ry = pj.y - p.y, rz = pj.z - p.z;
    float inv = rsqrtf(fmaf(rx, rx, fmaf(ry, ry, fmaf(rz, rz, eps2))));
    float s = __fmul_rn(pj.w, __fmul_rn(__fmul_rn(inv, inv), inv));
    acc.x = fmaf(rx, s, acc.x);
    acc.y = fmaf(ry, s, acc.y);
    acc.z = fmaf(rz, s, acc.z);
}

extern "C" __global__ void __launch_bounds__(BLOCK) nbody(float4 *accel, const float4 *pos, int n, float eps2)
{
    int first = blockIdx.x * (BLOCK * BODIES) + threadIdx.x;
    float3 p[BODIES], acc[BODIES];
#pragma unroll
    for (int b = 0; b < BODIES; b++) {
        int i = first + b * BLOCK;
        float4 q = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f); /* past n: computed, never stored */
        p[b] = make_float3(q.x, q.y, q.z);
        acc[b] = make_float3(0.0f, 0.0f, 0.0f);
    }
#if STAGE
    __shared__ float4 tile[TILE_J];
    for (int base = 0; base < n; base += TILE_J) {
        int count = min(n - base, TILE_J);
        __syncthreads(); /* everyone is done with the previous tile */
        for (int k = threadIdx.x; k < count; k += BLOCK)
            tile[k] = pos[base + k];
        __syncthreads();
        if (count == TILE_J) {
            /* Full tile: a trip count known at compile time. */
            NBODY_UNROLL
            for (int k = 0; k < TILE_J; k++) {
                float4 pj = tile[k];
#pragma unroll
                for (int b = 0; b < BODIES; b++)
                    nbody_pull(acc[b], p[b], pj, eps2);
            }
        } else {
            NBODY_UNROLL
            for (int k = 0; k < count; k++) {
                float4 pj = tile[k];
#pragma unroll
                for (int b = 0; b < BODIES; b++)
                    nbody_pull(acc[b], p[b], pj, eps2);
            }
        }
    }
#else
    NBODY_UNROLL
    for (int j = 0; j < n; j++) {
        float4 pj = __ldg(&pos[j]);
#pragma unroll
        for (int b = 0; b < BODIES; b++)
            nbody_pull(acc[b], p[b], pj, eps2);
    }
#endif
#pragma unroll
    for (int b = 0; b < BODIES; b++) {
        int i = first + b * BLOCK;
        if (i < n)
            accel[i] = make_float4(acc[b].x, acc[b].y, acc[b].z, 0.0f);
    }
}
