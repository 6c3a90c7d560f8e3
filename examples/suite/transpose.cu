/* transpose: out = in^T for an 8192 x 8192 float matrix (300 x 200 with --small: partial tiles from
 * 16 up).  Work per launch: bytes = every element read once and written once (2 * 4 * width *
 * height), flops = 0.  The check compares every element (a transpose is exact). */
#include "suite.h"

#include "../../kernels/transpose.cu"

/* Compares out with in^T in 64 x 64 blocks (in's columns are far apart); says where the first
 * mismatch is. */
static void transpose_check(struct ex *e, const float *out, const float *in, int width, int height)
{
    for (int y0 = 0; y0 < width; y0 += 64)
        for (int x0 = 0; x0 < height; x0 += 64)
            for (int y = y0; y < y0 + 64 && y < width; y++)
                for (int x = x0; x < x0 + 64 && x < height; x++)
                    if (out[(size_t)y * height + x] != in[(size_t)x * width + y]) {
                        ex_fail(e, "out[%d][%d] = %.9g, expected %.9g", y, x, (double)out[(size_t)y * height + x],
                                (double)in[(size_t)x * width + y]);
                        return;
                    }
}

void suite_transpose(struct suite *s)
{
    int width = s->small ? 300 : 8192, height = s->small ? 200 : 8192;
    size_t count = (size_t)width * height, bytes = count * sizeof(float);
    float *h_in = (float *)ex_alloc(bytes), *h_out = (float *)ex_alloc(bytes);
    ex_fill(h_in, count, 21, -1.0f, 1.0f);
    float *d_in = (float *)suite_dev(bytes), *d_out = (float *)suite_dev(bytes);
    suite_up(d_in, h_in, bytes);
    CK(cudaMemset(d_out, 0, bytes));

    /* The policy's geometry for the default macros. */
    dim3 block(TILE / VEC, ROWS), grid((width + TILE - 1) / TILE, (height + TILE - 1) / TILE);
    for (int r = 0; suite_rep(s, r); r++)
        transpose<<<grid, block, 0, s->stream>>>(d_out, d_in, width, height);
    suite_time_stop(s, s->reps, 2.0 * sizeof(float) * count, 0);

    suite_down(h_out, d_out, bytes);
    transpose_check(&s->e, h_out, h_in, width, height);
    ex_write(&s->e, h_out, bytes);
    suite_expect(s, "transpose", suite_bodies(s));
    CK(cudaFree(d_in));
    CK(cudaFree(d_out));
    free(h_in);
    free(h_out);
}
