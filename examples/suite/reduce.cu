/* reduce: the sum of 2^28 floats in [0, 1) (1 GiB; 100003 with --small, not a multiple of any
 * vector width), one launch per sum, the same array every time.  Work per launch: bytes = the input
 * read once (4 * n), flops = n additions.  The check is a double sum on the CPU: a float tree sum
 * of non-negative values is off by far less than 1e-5 of it. */
#include "suite.h"

#include "../../kernels/reduce.cu"

/* Floats of partial: one per block of the largest grid the policy (reduce.ini) can launch. */
#define REDUCE_MAX_GRID 65536

void suite_reduce(struct suite *s)
{
    int n = s->small ? 100003 : 1 << 28;
    size_t bytes = (size_t)n * sizeof(float);
    float *h_in = (float *)ex_alloc(bytes);
    ex_fill(h_in, n, 41, 0.0f, 1.0f);
    float *d_in = (float *)suite_dev(bytes), *d_out = (float *)suite_dev(sizeof(float));
    float *d_partial = (float *)suite_dev(REDUCE_MAX_GRID * sizeof(float));
    unsigned *d_counter = (unsigned *)suite_dev(sizeof(unsigned));
    suite_up(d_in, h_in, bytes);
    CK(cudaMemset(d_out, 0, sizeof(float)));
    CK(cudaMemset(d_partial, 0, REDUCE_MAX_GRID * sizeof(float)));
    CK(cudaMemset(d_counter, 0, sizeof(unsigned)));

    /* The policy's geometry for the default macros: no more blocks than have work. */
    long per_block = (long)BLOCK * VEC * ITEMS, blocks = (n + per_block - 1) / per_block;
    blocks = blocks < 1 ? 1 : blocks > GRID ? GRID : blocks;
    for (int r = 0; suite_rep(s, r); r++)
        reduce<<<(unsigned)blocks, BLOCK, 0, s->stream>>>(d_out, d_partial, d_counter, d_in, n);
    suite_time_stop(s, s->reps, (double)bytes, (double)n);

    float got;
    unsigned counter;
    suite_down(&got, d_out, sizeof got);
    suite_down(&counter, d_counter, sizeof counter);
    double want = 0, magnitude = 0;
    for (int i = 0; i < n; i++) {
        want += h_in[i];
        magnitude += fabs(h_in[i]);
    }
    ex_close(&s->e, "sum", &got, &want, 1, 0, 1e-5 * magnitude);
    if (counter != 0)
        ex_fail(&s->e, "counter = %u after the last launch, expected 0", counter);
    ex_write(&s->e, &got, sizeof got);
    suite_expect(s, "reduce", suite_bodies(s));
    CK(cudaFree(d_in));
    CK(cudaFree(d_out));
    CK(cudaFree(d_partial));
    CK(cudaFree(d_counter));
    free(h_in);
}
