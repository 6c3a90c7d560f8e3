/* conv2d.cu: 2D convolution (cross-correlation) of a single-channel float image with a FILTER x FILTER
 * filter held in constant memory: out[y][x] = sum over i, j of in[y + i][x + j] * conv_filter[i][j], for an
 * output of width x height and an input already padded by the host to (width + FILTER - 1) x
 * (height + FILTER - 1), row-major.  The host fills conv_filter with cudaMemcpyToSymbol.
 *
 * Each block stages the input its outputs need, (BLOCK_Y * TILE_Y + FILTER - 1) rows of
 * (BLOCK_X * TILE_X + FILTER - 1) floats, in shared memory.  Each thread computes TILE_X x TILE_Y outputs:
 * TILE_X consecutive ones in x, TILE_Y rows spaced BLOCK_Y apart.  It walks the input rows its outputs
 * need once, reading each row's window of TILE_X + FILTER - 1 values into registers (with float4 or float2
 * reads when TILE_X allows) and using it for every output and filter row that needs it.
 *
 * Tunable through macros (defaults: an untuned but reasonable choice):
 *   BLOCK_X, BLOCK_Y  thread block shape
 *   TILE_X, TILE_Y    outputs per thread in x and y
 *   USE_PADDING       1 pads the shared rows when BLOCK_X is not a multiple of 32, so that their stride is
 *                     BLOCK_X * TILE_X modulo 32: a warp that spans two rows then reads as if from one
 *   READ_ONLY         1 loads the input through the read-only data cache (__ldg)
 *   FILTER            the filter's side (fixed at 17 by the applications, not a tuning dimension)
 * Launch: block (BLOCK_X, BLOCK_Y), grid (ceil(width / (BLOCK_X * TILE_X)), ceil(height / (BLOCK_Y * TILE_Y))).
 * Needs (policy constraint): CONV_ROWS * CONV_STRIDE * 4 bytes of shared memory <= 48 KiB.
 *
 * Results are bitwise the same for every configuration: each output has one accumulator, starting at 0,
 * updated as acc = fmaf(in[y + i][x + j], conv_filter[i][j], acc) for i = 0 .. FILTER - 1 and, within
 * each i, j = 0 .. FILTER - 1, in that order.  Block and tile shapes only change which thread computes an
 * output and where its inputs are staged, never the operations on it. */
#ifndef FILTER
#define FILTER 17
#endif
#ifndef BLOCK_X
#define BLOCK_X 16
#endif
#ifndef BLOCK_Y
#define BLOCK_Y 16
#endif
#ifndef TILE_X
#define TILE_X 1
#endif
#ifndef TILE_Y
#define TILE_Y 1
#endif
#ifndef USE_PADDING
#define USE_PADDING 0
#endif
#ifndef READ_ONLY
#define READ_ONLY 0
#endif

#define CONV_COLS (BLOCK_X * TILE_X + FILTER - 1) /* input columns a block needs */
#define CONV_ROWS (BLOCK_Y * TILE_Y + FILTER - 1) /* input rows a block needs */
/* Row stride: a multiple of 4 floats (float4 reads); padded, congruent to BLOCK_X * TILE_X modulo 32. */
#define CONV_ALIGNED ((CONV_COLS + 3) / 4 * 4)
#if USE_PADDING && BLOCK_X % 32 != 0
#define CONV_STRIDE (CONV_ALIGNED + (BLOCK_X * TILE_X - CONV_ALIGNED % 32 + 32) % 32)
#else
#define CONV_STRIDE CONV_ALIGNED
#endif
/* Width of the shared-memory reads: a thread's window starts at a multiple of TILE_X. */
#define CONV_VW (TILE_X % 4 == 0 ? 4 : TILE_X % 2 == 0 ? 2 : 1)
#define CONV_WIN (TILE_X + FILTER - 1) /* input columns a thread's outputs need */
#define CONV_WIN_ALLOC ((CONV_WIN + CONV_VW - 1) / CONV_VW * CONV_VW)

#if READ_ONLY
#define CONV_LOAD(p) __ldg(p)
#else
#define CONV_LOAD(p) (*(p))
#endif

__constant__ float conv_filter[FILTER * FILTER];

extern "C" __global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
conv2d(float *out, const float *in, int width, int height)
{
    __shared__ __align__(16) float tile[CONV_ROWS][CONV_STRIDE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x0 = blockIdx.x * (BLOCK_X * TILE_X);
    const int y0 = blockIdx.y * (BLOCK_Y * TILE_Y);
    const int in_w = width + FILTER - 1, in_h = height + FILTER - 1;

    /* Cells past the input's edge stay unset: only outputs past the output's edge read them. */
    for (int i = ty; i < CONV_ROWS; i += BLOCK_Y)
        for (int j = tx; j < CONV_COLS; j += BLOCK_X)
            if (y0 + i < in_h && x0 + j < in_w)
                tile[i][j] = CONV_LOAD(in + (size_t)(y0 + i) * in_w + x0 + j);
    __syncthreads();

    float sum[TILE_Y][TILE_X];
#pragma unroll
    for (int yi = 0; yi < TILE_Y; yi++)
#pragma unroll
        for (int xi = 0; xi < TILE_X; xi++)
            sum[yi][xi] = 0.0f;

    /* Row r of the thread's input rows is filter row r - BLOCK_Y * yi of output row yi: rows in increasing
     * order give each output its filter rows in increasing order.  Each row's window of TILE_X + FILTER - 1
     * columns is read once, with vector reads, and serves all of the thread's outputs. */
#pragma unroll
    for (int r = 0; r < BLOCK_Y * (TILE_Y - 1) + FILTER; r++) {
        bool used = false;
#pragma unroll
        for (int yi = 0; yi < TILE_Y; yi++)
            used |= r - BLOCK_Y * yi >= 0 && r - BLOCK_Y * yi < FILTER;
        if (!used)
            continue;
        float w[CONV_WIN_ALLOC];
        const float *row = &tile[ty + r][tx * TILE_X];
#pragma unroll
        for (int c = 0; c < CONV_WIN_ALLOC; c += CONV_VW) {
            if (CONV_VW == 4) {
                float4 v = *(const float4 *)(row + c);
                w[c] = v.x;
                w[c + 1] = v.y;
                w[c + 2] = v.z;
                w[c + 3] = v.w;
            } else if (CONV_VW == 2) {
                float2 v = *(const float2 *)(row + c);
                w[c] = v.x;
                w[c + 1] = v.y;
            } else {
                w[c] = row[c];
            }
        }
#pragma unroll
        for (int yi = 0; yi < TILE_Y; yi++) {
            int i = r - BLOCK_Y * yi;
            if (i >= 0 && i < FILTER) {
#pragma unroll
                for (int j = 0; j < FILTER; j++)
#pragma unroll
                    for (int xi = 0; xi < TILE_X; xi++)
                        sum[yi][xi] = fmaf(w[xi + j], conv_filter[i * FILTER + j], sum[yi][xi]);
            }
        }
    }

#pragma unroll
    for (int yi = 0; yi < TILE_Y; yi++) {
        int y = y0 + ty + BLOCK_Y * yi;
#pragma unroll
        for (int xi = 0; xi < TILE_X; xi++) {
            int x = x0 + tx * TILE_X + xi;
            if (x < width && y < height)
                out[(size_t)y * width + x] = sum[yi][xi];
        }
    }
}
