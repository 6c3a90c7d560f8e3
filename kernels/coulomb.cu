/* coulomb.cu: direct Coulomb summation over one z-slice of a regular lattice
 * (the "DCS" kernel of VMD's cionize and of Kirk & Hwu's textbook).  Point
 * (x, y) of a width x height slice at height z, lattice spacing `spacing`,
 * sits at (spacing x, spacing y, z); for every point
 *   energy[y * width + x] += sum over a = 0..natoms-1 of q_a / |point - atom_a|
 * where the atoms are the float4 (x, y, z, q) the host put in the __constant__
 * array atoms[] (at most MAXATOMS: the host uploads a chunk and launches once
 * per chunk and slice).  1/|r| is rsqrtf(r^2).
 *
 * Tunable through macros (defaults: an untuned but reasonable choice):
 *   BLOCK_X, BLOCK_Y  threads per block along x and y
 *   UNROLL_X  lattice points per thread along x ("unroll and jam"): they share
 *             each atom's load and dy^2 + dz^2
 *   STRIDED   1 spaces a thread's points BLOCK_X apart (a warp stores
 *             contiguous runs: coalesced); 0 makes them consecutive, as the
 *             textbook does (each thread stores UNROLL_X neighbours)
 *   UNROLL_A  unroll factor of the loop over atoms; 0 leaves it to the compiler
 *   TILE_A    0 reads each atom from constant memory in every thread; N > 0
 *             has the block copy N atoms at a time into shared memory, with
 *             dz^2 computed there once per atom and block (TILE_A * 16 bytes
 *             of shared memory)
 * Launch: block (BLOCK_X, BLOCK_Y),
 *         grid (ceil(width / (BLOCK_X * UNROLL_X)), ceil(height / BLOCK_Y)).
 *
 * Every configuration computes bit-identical results: each point has one
 * accumulator, fed atoms 0, 1, ..., natoms-1 in order by the same expression;
 * its x coordinate is computed from its own index (never as a neighbour's
 * plus a multiple of spacing), every multiply-add is an explicit fmaf and
 * every plain product a __fmul_rn, which the compiler never contracts, and
 * dy^2 + dz^2 and dz^2 are the same values whether computed once for many
 * points or for one.  Points past the lattice's edge are computed but never
 * loaded or stored. */
#ifndef BLOCK_X
#define BLOCK_X 16
#endif
#ifndef BLOCK_Y
#define BLOCK_Y 16
#endif
#ifndef UNROLL_X
#define UNROLL_X 1
#endif
#ifndef STRIDED
#define STRIDED 0
#endif
#ifndef UNROLL_A
#define UNROLL_A 0
#endif
#ifndef TILE_A
#define TILE_A 0
#endif

#define MAXATOMS 4000

__constant__ float4 atoms[MAXATOMS];

/* #pragma unroll does not expand macros; _Pragma of a string built here does. */
#define COULOMB_PRAGMA_(x) _Pragma(#x)
#define COULOMB_PRAGMA_UNROLL_(n) COULOMB_PRAGMA_(unroll n)
#if UNROLL_A > 0
#define COULOMB_UNROLL_A COULOMB_PRAGMA_UNROLL_(UNROLL_A)
#else
#define COULOMB_UNROLL_A
#endif

#if STRIDED
#define COULOMB_X0 (blockIdx.x * (BLOCK_X * UNROLL_X) + threadIdx.x)
#define COULOMB_STEP BLOCK_X
#else
#define COULOMB_X0 (blockIdx.x * (BLOCK_X * UNROLL_X) + threadIdx.x * UNROLL_X)
#define COULOMB_STEP 1
#endif

/* Adds atom a = (x, y, dz^2, q) to the thread's points: the one expression of
 * every configuration. */
static __device__ __forceinline__ void coulomb_add(float (&e)[UNROLL_X], const float (&gx)[UNROLL_X], float gy,
                                                   float4 a)
{
    float dy = gy - a.y;
    float dyz2 = fmaf(dy, dy, a.z);
#pragma unroll
    for (int k = 0; k < UNROLL_X; k++) {
        float dx = gx[k] - a.x;
        e[k] = fmaf(a.w, rsqrtf(fmaf(dx, dx, dyz2)), e[k]);
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
    coulomb(float *energy, int width, int height, float spacing, float z, int natoms)
{
    int y = blockIdx.y * BLOCK_Y + threadIdx.y; /* rows past height compute too (barriers), never store */
    int x0 = COULOMB_X0;
    float gy = __fmul_rn(spacing, (float)y);
    float gx[UNROLL_X], e[UNROLL_X];
#pragma unroll
    for (int k = 0; k < UNROLL_X; k++) {
        gx[k] = __fmul_rn(spacing, (float)(x0 + k * COULOMB_STEP));
        e[k] = 0.0f;
    }
    int m = min(natoms, MAXATOMS); /* never read past the array */
#if TILE_A
    __shared__ float4 tile[TILE_A];
    for (int base = 0; base < m; base += TILE_A) {
        int count = min(m - base, TILE_A);
        __syncthreads(); /* everyone is done with the previous tile */
        for (int k = threadIdx.y * BLOCK_X + threadIdx.x; k < count; k += BLOCK_X * BLOCK_Y) {
            float4 at = atoms[base + k];
            float dz = z - at.z;
            tile[k] = make_float4(at.x, at.y, __fmul_rn(dz, dz), at.w);
        }
        __syncthreads();
        if (count == TILE_A) {
            /* Full tile: a trip count known at compile time. */
            COULOMB_UNROLL_A
            for (int k = 0; k < TILE_A; k++)
                coulomb_add(e, gx, gy, tile[k]);
        } else {
            COULOMB_UNROLL_A
            for (int k = 0; k < count; k++)
                coulomb_add(e, gx, gy, tile[k]);
        }
    }
#else
    COULOMB_UNROLL_A
    for (int a = 0; a < m; a++) {
        float4 at = atoms[a];
        float dz = z - at.z;
        coulomb_add(e, gx, gy, make_float4(at.x, at.y, __fmul_rn(dz, dz), at.w));
    }
#endif
    if (y >= height)
        return;
    float *row = energy + (size_t)y * width;
#pragma unroll
    for (int k = 0; k < UNROLL_X; k++) {
        int x = x0 + k * COULOMB_STEP;
        if (x < width)
            row[x] += e[k];
    }
}
