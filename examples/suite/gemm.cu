/* gemm: C = alpha * A * B + beta * C in single precision (kernels/gemm.cu), 4096 x 4096 x 4096 (--small:
 * M x N x K = 250 x 196 x 332, not multiples of the tiles, with a partial last step in K).
 *
 * Work of one launch: flops = 2 * M * N * K (the alpha/beta epilogue not counted); bytes = 4 * (M * K +
 * K * N + 2 * M * N), A and B read once and C read and written once.
 *
 * Every launch updates C in place, so after L launches C = alpha * S * A * B + beta^L * C0 with
 * S = 1 + beta + ... + beta^(L - 1); the check compares that, in double precision, on a sample of 256
 * elements (every element with --small). */
#include "suite.h"

#include "../../kernels/gemm.cu"

static void gemm_launch(cudaStream_t stream, int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C)
{
    dim3 block((BN / TN) * (BM / TM));
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    gemm<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
}

void suite_gemm(struct suite *s)
{
    const int M = s->small ? 250 : 4096, N = s->small ? 196 : 4096, K = s->small ? 332 : 4096;
    const float alpha = 0.75f, beta = 0.5f;
    const size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *ha = (float *)ex_alloc(na * sizeof(float));
    float *hb = (float *)ex_alloc(nb * sizeof(float));
    float *hc0 = (float *)ex_alloc(nc * sizeof(float));
    float *hc = (float *)ex_alloc(nc * sizeof(float));
    ex_fill(ha, na, 31, -1.0f, 1.0f);
    ex_fill(hb, nb, 32, -1.0f, 1.0f);
    ex_fill(hc0, nc, 33, -1.0f, 1.0f);

    float *da = (float *)suite_dev(na * sizeof(float));
    float *db = (float *)suite_dev(nb * sizeof(float));
    float *dc = (float *)suite_dev(nc * sizeof(float));
    suite_up(da, ha, na * sizeof(float));
    suite_up(db, hb, nb * sizeof(float));
    suite_up(dc, hc0, nc * sizeof(float));

    for (int r = 0; suite_rep(s, r); r++)
        gemm_launch(s->stream, M, N, K, alpha, da, db, beta, dc);
    suite_time_stop(s, s->reps, 4.0 * ((double)na + nb + 2.0 * nc), 2.0 * M * N * (double)K);
    suite_down(hc, dc, nc * sizeof(float));

    const int launches = (int)suite_bodies(s);
    double scale = 0, beta_l = 1;
    for (int l = 0; l < launches; l++) {
        scale += beta_l;
        beta_l *= beta;
    }
    const size_t checks = s->small ? nc : 256;
    uint64_t seed = 34;
    float *got = (float *)ex_alloc(checks * sizeof(float));
    double *want = (double *)ex_alloc(checks * sizeof(double));
    for (size_t c = 0; c < checks; c++) {
        size_t e = s->small ? c : suite_sample(&seed, nc);
        size_t m = e / N, n = e % N;
        double dot = 0;
        for (int k = 0; k < K; k++)
            dot += (double)ha[m * K + k] * hb[(size_t)k * N + n];
        got[c] = hc[e];
        want[c] = alpha * scale * dot + beta_l * hc0[e];
    }
    /* float accumulation over K terms of magnitude <= 1: errors grow like sqrt(K) ulps of the sum */
    ex_close(&s->e, "C", got, want, checks, 1e-4, 1e-3);
    ex_write(&s->e, hc, nc * sizeof(float));
    suite_expect(s, "gemm", launches);

    free(got);
    free(want);
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
    free(ha);
    free(hb);
    free(hc0);
    free(hc);
}
