/* stencil: red-black SOR sweeps of the 5-point Poisson equation on an 8192 x 8192 grid (u and f
 * 256 MiB each; 257 x 257 with --small), in place, one launch per color: a (red, black) sweep
 * untimed, then REPS timed ones.
 *
 * Work per launch (a half sweep), the minimal traffic: bytes = read u (4 n^2) + read f at the
 * half of the points updated (2 n^2) + write those points (2 n^2) = 8 n^2; flops = 6 per updated
 * point, n^2 / 2 points.  (f and the writes are every other float, so the DRAM moves whole sectors:
 * some 12 n^2 bytes in fact.)
 *
 * The check runs the same sweeps on the CPU in float with the same operations in the same order
 * (fmaf where the kernel fuses), on the whole grid, so it should match to the bit; a tolerance of
 * 1e-5 leaves room for a host libm whose fmaf is not exact.  It costs about 0.1 s per sweep at the
 * full size, so it grows with REPS. */
#include "suite.h"

#include "../../kernels/stencil.cu"

/* One half sweep on the CPU, as kernels/stencil.cu computes it.  On x86-64, a clone with the FMA
 * instructions (picked at load time where the CPU has them) makes fmaf an instruction, not a libm
 * call: three times faster, and the full-size check stays near a second. */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("fma", "default")))
#endif
static void stencil_cpu(float *u, const float *f, int n, int color, float omega, float h2)
{
    const float keep = 1.0f - omega, w = 0.25f * omega;
    for (int i = 1; i <= n - 2; i++)
        for (int j = 1 + ((i + 1 + color) & 1); j <= n - 2; j += 2) {
            size_t c = (size_t)i * n + j;
            float sum = (u[c - n] + u[c + n]) + (u[c - 1] + u[c + 1]);
            float r = fmaf(-h2, f[c], sum);
            u[c] = fmaf(w, r, keep * u[c]);
        }
}

void suite_stencil(struct suite *s)
{
    int n = s->small ? 257 : 8192;
    size_t count = (size_t)n * n, bytes = count * sizeof(float);
    /* Grid spacing h = 1 / (n - 1); f is scaled so that h^2 f, in [-1, 1], weighs as much as u. */
    float omega = 1.5f, h2 = 1.0f / ((float)(n - 1) * (float)(n - 1));
    float *h_u = (float *)ex_alloc(bytes), *h_f = (float *)ex_alloc(bytes), *h_got = (float *)ex_alloc(bytes);
    ex_fill(h_u, count, 51, 0.0f, 1.0f);
    ex_fill(h_f, count, 52, -1.0f / h2, 1.0f / h2);
    float *d_u = (float *)suite_dev(bytes), *d_f = (float *)suite_dev(bytes);
    suite_up(d_u, h_u, bytes);
    suite_up(d_f, h_f, bytes);

    /* The policy's geometry for the default macros. */
    int cols = COMPACT ? (n - 1) / 2 : n - 2;
    dim3 block(BX, BY), grid((cols + BX - 1) / BX, (n - 2 + BY * TY - 1) / (BY * TY));
    for (int r = 0; suite_rep(s, r); r++) {
        stencil<<<grid, block, 0, s->stream>>>(d_u, d_f, n, 0, omega, h2);
        stencil<<<grid, block, 0, s->stream>>>(d_u, d_f, n, 1, omega, h2);
    }
    suite_time_stop(s, 2 * s->reps, 8.0 * count, 3.0 * count);
    suite_down(h_got, d_u, bytes);

    for (unsigned long r = 0; r < suite_bodies(s); r++) {
        stencil_cpu(h_u, h_f, n, 0, omega, h2);
        stencil_cpu(h_u, h_f, n, 1, omega, h2);
    }
    for (size_t c = 0; c < count; c++)
        if (!(fabs((double)h_got[c] - h_u[c]) <= 1e-5 + 1e-5 * fabs(h_u[c]))) {
            ex_fail(&s->e, "u[%zu][%zu] = %.9g after %lu sweeps, expected %.9g", c / n, c % n, (double)h_got[c],
                    suite_bodies(s), (double)h_u[c]);
            break;
        }
    ex_write(&s->e, h_got, bytes);
    suite_expect(s, "stencil", 2 * suite_bodies(s));
    CK(cudaFree(d_u));
    CK(cudaFree(d_f));
    free(h_u);
    free(h_f);
    free(h_got);
}
