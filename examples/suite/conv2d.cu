/* conv2d: a 17 x 17 convolution of a single-channel float image (kernels/conv2d.cu), 4096 x 4096 outputs
 * from a 4112 x 4112 input the host pads (--small: 300 x 200 outputs).
 *
 * Work of one launch: flops = 2 * W * H * F * F (one multiply and one add per filter tap and output);
 * bytes = 4 * ((W + F - 1) * (H + F - 1) + W * H), the input read and the output written once (the
 * filter's 1 KiB in constant memory not counted).
 *
 * The check compares, in double precision, 1024 sampled outputs (every output with --small). */
#include "suite.h"

#include "../../kernels/conv2d.cu"

static void conv2d_launch(cudaStream_t stream, float *out, const float *in, int width, int height)
{
    dim3 block(BLOCK_X, BLOCK_Y);
    const int tile_w = BLOCK_X * TILE_X, tile_h = BLOCK_Y * TILE_Y;
    dim3 grid((width + tile_w - 1) / tile_w, (height + tile_h - 1) / tile_h);
    conv2d<<<grid, block, 0, stream>>>(out, in, width, height);
}

void suite_conv2d(struct suite *s)
{
    const int W = s->small ? 300 : 4096, H = s->small ? 200 : 4096, F = FILTER;
    const int in_w = W + F - 1, in_h = H + F - 1;
    const size_t nin = (size_t)in_w * in_h, nout = (size_t)W * H;
    float *hin = (float *)ex_alloc(nin * sizeof(float));
    float *hout = (float *)ex_alloc(nout * sizeof(float));
    float hf[FILTER * FILTER];
    ex_fill(hin, nin, 41, -1.0f, 1.0f);
    ex_fill(hf, (size_t)F * F, 42, -1.0f, 1.0f);

    float *din = (float *)suite_dev(nin * sizeof(float));
    float *dout = (float *)suite_dev(nout * sizeof(float));
    suite_up(din, hin, nin * sizeof(float));
    CK(cudaMemcpyToSymbol(conv_filter, hf, sizeof hf));
    CK(cudaMemset(dout, 0, nout * sizeof(float)));

    for (int r = 0; suite_rep(s, r); r++)
        conv2d_launch(s->stream, dout, din, W, H);
    suite_time_stop(s, s->reps, 4.0 * ((double)nin + nout), 2.0 * (double)nout * F * F);
    suite_down(hout, dout, nout * sizeof(float));

    const size_t checks = s->small ? nout : 1024;
    uint64_t seed = 43;
    float *got = (float *)ex_alloc(checks * sizeof(float));
    double *want = (double *)ex_alloc(checks * sizeof(double));
    for (size_t c = 0; c < checks; c++) {
        size_t e = s->small ? c : suite_sample(&seed, nout);
        size_t y = e / W, x = e % W;
        double sum = 0;
        for (int i = 0; i < F; i++)
            for (int j = 0; j < F; j++)
                sum += (double)hin[(y + i) * in_w + x + j] * hf[i * F + j];
        got[c] = hout[e];
        want[c] = sum;
    }
    /* 289 float terms of magnitude <= 1 */
    ex_close(&s->e, "out", got, want, checks, 1e-4, 1e-4);
    ex_write(&s->e, hout, nout * sizeof(float));
    suite_expect(s, "conv2d", suite_bodies(s));

    free(got);
    free(want);
    CK(cudaFree(din));
    CK(cudaFree(dout));
    free(hin);
    free(hout);
}
