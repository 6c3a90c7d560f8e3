/* transpose.cu: out = in^T for a row-major height x width float matrix.
 *
 * Tunable through macros (defaults: an untuned but reasonable choice):
 *   TILE  side of the square tile a block moves through shared memory
 *   ROWS  rows of the tile a thread block covers per step (block = TILE x ROWS)
 *   PAD   1 pads each shared-memory row by one float, avoiding bank conflicts
 * Launch: block (TILE, ROWS), grid (ceil(width / TILE), ceil(height / TILE)). */
#ifndef TILE
#define TILE 16
#endif
#ifndef ROWS
#define ROWS 16
#endif
#ifndef PAD
#define PAD 0
#endif

extern "C" __global__ void transpose(float *out, const float *in, int width, int height)
{
    __shared__ float tile[TILE][TILE + PAD];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < height && y + j < width)
            out[(size_t)(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
