/* coulomb: direct Coulomb summation (kernels/coulomb.cu), the way cionize
 * runs it: a potential map of NSLICES z-slices of 1024 x 1024 points (97 x 65
 * with --small), atoms in NCHUNKS chunks of 4000 (300 with --small), each
 * launch adding one chunk's potential to one slice after uploading that
 * chunk to the __constant__ array.  Launch i (1 + reps of them, the first
 * untimed) does pair i mod (NSLICES * NCHUNKS): slice pair / NCHUNKS, chunk
 * pair % NCHUNKS, so the slices add up some pairs more than once.  Checked in
 * double precision on 512 sampled points (every point with --small).
 *
 * Work of one launch: width * height * natoms interactions of 9 flops each
 * (3 subtractions, 3 multiply-adds or multiplies for r^2, the reciprocal
 * square root counted as 1, 1 multiply and 1 add for the charge); bytes: the
 * slice's energies read and written once, 8 width height.  The chunk's upload
 * (a device-to-device copy of at most 64000 bytes) is not counted. */
#include "suite.h"

#include "../../kernels/coulomb.cu"

enum { NSLICES = 2, NCHUNKS = 2 };

void suite_coulomb(struct suite *s)
{
    const int width = s->small ? 97 : 1024, height = s->small ? 65 : 1024;
    const int chunk = s->small ? 300 : MAXATOMS;
    const float spacing = 0.1f;
    size_t points = (size_t)width * height, total = NSLICES * points;
    int natoms = NCHUNKS * chunk;

    /* Atoms spread over the slab the slices cut through, charges of either
     * sign; the energies start non-zero so that += is checked too. */
    float *ax = (float *)ex_alloc(natoms * sizeof(float));
    float *ay = (float *)ex_alloc(natoms * sizeof(float));
    float *az = (float *)ex_alloc(natoms * sizeof(float));
    float *aq = (float *)ex_alloc(natoms * sizeof(float));
    ex_fill(ax, natoms, 61, 0.0f, spacing * width);
    ex_fill(ay, natoms, 62, 0.0f, spacing * height);
    ex_fill(az, natoms, 63, -2.0f, 2.0f);
    ex_fill(aq, natoms, 64, -1.0f, 1.0f);
    float4 *at = (float4 *)ex_alloc(natoms * sizeof(float4));
    for (int a = 0; a < natoms; a++)
        at[a] = make_float4(ax[a], ay[a], az[a], aq[a]);
    float *init = (float *)ex_alloc(total * sizeof(float));
    float *energy = (float *)ex_alloc(total * sizeof(float));
    ex_fill(init, total, 65, -1.0f, 1.0f);
    float zs[NSLICES];
    for (int sl = 0; sl < NSLICES; sl++)
        zs[sl] = 0.05f + 0.5f * sl;

    float4 *d_atoms = (float4 *)suite_dev(natoms * sizeof(float4));
    float *d_energy = (float *)suite_dev(total * sizeof(float));
    suite_up(d_atoms, at, natoms * sizeof(float4));
    suite_up(d_energy, init, total * sizeof(float));

    dim3 block(BLOCK_X, BLOCK_Y);
    dim3 grid((width + BLOCK_X * UNROLL_X - 1) / (BLOCK_X * UNROLL_X), (height + BLOCK_Y - 1) / BLOCK_Y);
    int count[NSLICES * NCHUNKS] = {0}; /* launches of each (slice, chunk) */
    for (int i = 0; i <= s->reps; i++) {
        if (i == 1)
            suite_time_start(s);
        int pair = i % (NSLICES * NCHUNKS), sl = pair / NCHUNKS, c = pair % NCHUNKS;
        CK(cudaMemcpyToSymbolAsync(atoms, d_atoms + (size_t)c * chunk, chunk * sizeof(float4), 0,
                                   cudaMemcpyDeviceToDevice, 0));
        coulomb<<<grid, block>>>(d_energy + sl * points, width, height, spacing, zs[sl], chunk);
        count[pair]++;
    }
    suite_time_stop(s, s->reps, 8.0 * points, 9.0 * points * chunk);
    suite_down(energy, d_energy, total * sizeof(float));

    /* Within 2e-5 of the sum of the magnitudes of what was added: float
     * rounding of a few thousand terms in sequence. */
    uint64_t seed = 66;
    size_t checks = s->small ? total : 512;
    for (size_t c = 0; c < checks && !s->e.wrong; c++) {
        size_t p = s->small ? c : suite_sample(&seed, total);
        int sl = (int)(p / points), y = (int)(p % points / width), x = (int)(p % width);
        double px = (double)(spacing * (float)x), py = (double)(spacing * (float)y), pz = zs[sl];
        double want = init[p], mag = fabs(init[p]);
        for (int ch = 0; ch < NCHUNKS; ch++) {
            int n = count[sl * NCHUNKS + ch];
            for (int a = ch * chunk; a < (ch + 1) * chunk && n; a++) {
                double dx = px - at[a].x, dy = py - at[a].y, dz = pz - at[a].z;
                double v = at[a].w / sqrt(dx * dx + dy * dy + dz * dz);
                want += n * v;
                mag += n * fabs(v);
            }
        }
        if (!(fabs(energy[p] - want) <= 2e-5 * mag))
            ex_fail(&s->e, "energy[%zu] = %.9g, expected %.9g", p, (double)energy[p], want);
    }
    ex_write(&s->e, energy, total * sizeof(float));
    ex_expect("coulomb", 1 + (unsigned long)s->reps);

    CK(cudaFree(d_atoms));
    CK(cudaFree(d_energy));
    free(ax);
    free(ay);
    free(az);
    free(aq);
    free(at);
    free(init);
    free(energy);
}
