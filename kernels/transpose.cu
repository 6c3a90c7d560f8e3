/* transpose.cu: out = in^T for a row-major height x width float matrix (out is width x height).
 *
 * Tunable through macros (defaults: an untuned but reasonable choice):
 *   TILE  side of the square tile a block moves through shared memory
 *   ROWS  rows of the tile a thread block covers per step (block = TILE / VEC x ROWS); divides TILE
 *   PAD   floats added to each shared-memory row, avoiding bank conflicts (any value >= 0)
 *   VEC   1, 2 or 4: floats per global access (float, float2, float4); divides TILE.  Where rows are
 *         not VEC-aligned (a width or height not a multiple of VEC, a misaligned pointer), single floats
 * Launch: block (TILE / VEC, ROWS), grid (ceil(width / TILE), ceil(height / TILE)); shared-memory
 * indices stay below TILE because the block is exactly that size.
 *
 * Every element is a plain copy, so every configuration writes bitwise the same output.  Tiles that
 * cross the matrix edge guard each element, so any width and height are safe. */
#ifndef TILE
#define TILE 16
#endif
#ifndef ROWS
#define ROWS 16
#endif
#ifndef PAD
#define PAD 0
#endif
#ifndef VEC
#define VEC 1
#endif

#if VEC != 1 && VEC != 2 && VEC != 4
#error "VEC must be 1, 2 or 4"
#endif
#if TILE % VEC != 0 || TILE % ROWS != 0
#error "VEC and ROWS must divide TILE"
#endif

/* v = p[0 .. VEC-1]: one access when whole (p is then VEC-aligned), else the first `left` floats
 * one by one and zeros for the rest. */
__device__ __forceinline__ void load_vec(float *v, const float *p, bool whole, int left)
{
    if (whole) {
#if VEC == 4
        float4 t = *(const float4 *)p;
        v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
#elif VEC == 2
        float2 t = *(const float2 *)p;
        v[0] = t.x, v[1] = t.y;
#else
        v[0] = *p;
#endif
        return;
    }
#pragma unroll
    for (int k = 0; k < VEC; k++)
        v[k] = k < left ? p[k] : 0.0f;
}

/* p[0 .. VEC-1] = v, the same way; only the first `left` when not whole. */
__device__ __forceinline__ void store_vec(float *p, const float *v, bool whole, int left)
{
    if (whole) {
#if VEC == 4
        *(float4 *)p = make_float4(v[0], v[1], v[2], v[3]);
#elif VEC == 2
        *(float2 *)p = make_float2(v[0], v[1]);
#else
        *p = v[0];
#endif
        return;
    }
#pragma unroll
    for (int k = 0; k < VEC; k++)
        if (k < left)
            p[k] = v[k];
}

/* Tile rows are input rows: read along them, coalesced.  inner (a constant once inlined): the tile
 * lies inside the matrix and rows are VEC-aligned, so nothing needs a guard and the unrolled loop
 * issues every load before the first shared store.  Else cells past the edge get zeros; vec says
 * whether rows are VEC-aligned. */
__device__ __forceinline__ void tile_in(float (*tile)[TILE + PAD], const float *in, int width, int height,
                                        bool inner, bool vec)
{
    const int tx = threadIdx.x * VEC, x = blockIdx.x * TILE + tx;
#pragma unroll
    for (int j0 = 0; j0 < TILE; j0 += ROWS) {
        int j = j0 + threadIdx.y, y = blockIdx.y * TILE + j;
        int left = inner ? VEC : y < height ? width - x : 0;
        float v[VEC];
        load_vec(v, in + (size_t)(inner || y < height ? y : 0) * width + x, inner || (vec && left >= VEC), left);
#pragma unroll
        for (int k = 0; k < VEC; k++)
            tile[j][tx + k] = v[k];
    }
}

/* Output rows are tile columns: write along them, coalesced; inner and vec as for tile_in. */
__device__ __forceinline__ void tile_out(float *out, float (*tile)[TILE + PAD], int width, int height, bool inner,
                                         bool vec)
{
    const int tx = threadIdx.x * VEC, x = blockIdx.y * TILE + tx;
#pragma unroll
    for (int j0 = 0; j0 < TILE; j0 += ROWS) {
        int j = j0 + threadIdx.y, y = blockIdx.x * TILE + j;
        if (inner || y < width) {
            float v[VEC];
#pragma unroll
            for (int k = 0; k < VEC; k++)
                v[k] = tile[tx + k][j];
            int left = inner ? VEC : height - x;
            store_vec(out + (size_t)y * height + x, v, inner || (vec && left >= VEC), left);
        }
    }
}

extern "C" __global__ void __launch_bounds__(TILE / VEC * ROWS)
transpose(float *out, const float *in, int width, int height)
{
    __shared__ float tile[TILE][TILE + PAD];
    const bool inner = (blockIdx.x + 1) * TILE <= width && (blockIdx.y + 1) * TILE <= height;
    const bool in_vec = width % VEC == 0 && (unsigned long long)in % (VEC * sizeof(float)) == 0;
    const bool out_vec = height % VEC == 0 && (unsigned long long)out % (VEC * sizeof(float)) == 0;
    if (inner && in_vec)
        tile_in(tile, in, width, height, true, true);
    else
        tile_in(tile, in, width, height, false, in_vec);
    __syncthreads();
    if (inner && out_vec)
        tile_out(out, tile, width, height, true, true);
    else
        tile_out(out, tile, width, height, false, out_vec);
}
