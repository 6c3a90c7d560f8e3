/* nbody: one all-pairs gravity step (kernels/nbody.cu) on 65536 bodies (1000
 * with --small), the same step launched 1 + reps times.  Checked in double
 * precision on 256 sampled bodies (every body with --small).
 *
 * Work of one launch: n^2 interactions of 20 flops each (GPU Gems 3's
 * convention); bytes: the positions read once and the accelerations written
 * once, 16 n each. */
#include "suite.h"

#include "../../kernels/nbody.cu"

void suite_nbody(struct suite *s)
{
    const int n = s->small ? 1000 : 65536;
    const float eps2 = 0.01f;
    size_t bytes = (size_t)n * sizeof(float4);
    float4 *pos = (float4 *)ex_alloc(bytes);
    float4 *acc = (float4 *)ex_alloc(bytes);
    float *xyz = (float *)ex_alloc(3 * (size_t)n * sizeof(float));
    float *mass = (float *)ex_alloc((size_t)n * sizeof(float));
    ex_fill(xyz, 3 * (size_t)n, 51, -1.0f, 1.0f);
    ex_fill(mass, n, 52, 0.5f, 1.0f);
    for (int i = 0; i < n; i++)
        pos[i] = make_float4(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2], mass[i]);

    float4 *d_pos = (float4 *)suite_dev(bytes);
    float4 *d_acc = (float4 *)suite_dev(bytes);
    suite_up(d_pos, pos, bytes);

    int grid = (n + BLOCK * BODIES - 1) / (BLOCK * BODIES);
    for (int r = 0; suite_rep(s, r); r++)
        nbody<<<grid, BLOCK, 0, s->stream>>>(d_acc, d_pos, n, eps2);
    suite_time_stop(s, s->reps, 32.0 * n, 20.0 * n * n);
    suite_down(acc, d_acc, bytes);

    /* Each component within 1e-4 of the sum of its terms' magnitudes: float
     * rounding of n terms in sequence, far below what one missing or doubled
     * body tile would change. */
    uint64_t seed = 53;
    int checks = s->small ? n : 256;
    for (int c = 0; c < checks && !s->e.wrong; c++) {
        int i = s->small ? c : (int)suite_sample(&seed, n);
        double want[3] = {0, 0, 0}, mag[3] = {0, 0, 0};
        for (int j = 0; j < n; j++) {
            double r[3] = {(double)pos[j].x - pos[i].x, (double)pos[j].y - pos[i].y, (double)pos[j].z - pos[i].z};
            double d2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + eps2;
            double f = pos[j].w / (d2 * sqrt(d2));
            for (int k = 0; k < 3; k++) {
                want[k] += r[k] * f;
                mag[k] += fabs(r[k] * f);
            }
        }
        float got[4] = {acc[i].x, acc[i].y, acc[i].z, acc[i].w};
        for (int k = 0; k < 4; k++) {
            double w = k < 3 ? want[k] : 0.0;
            if (!(fabs(got[k] - w) <= (k < 3 ? 1e-4 * mag[k] : 0.0)))
                ex_fail(&s->e, "accel[%d].%c = %.9g, expected %.9g", i, "xyzw"[k], (double)got[k], w);
        }
    }
    ex_write(&s->e, acc, bytes);
    suite_expect(s, "nbody", suite_bodies(s));

    CK(cudaFree(d_pos));
    CK(cudaFree(d_acc));
    free(pos);
    free(acc);
    free(xyz);
    free(mass);
}
