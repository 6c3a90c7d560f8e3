/* stencil.cu: one half sweep of red-black SOR (successive over-relaxation, Gauss-Seidel with
 * omega) for the 5-point Poisson equation on an n x n row-major grid, in place: every interior
 * point (i, j), 1 <= i, j <= n - 2, with (i + j) % 2 == color % 2 becomes
 *
 *     u = (1 - omega) * u + omega / 4 * (u_N + u_S + u_W + u_E - h2 * f)
 *
 * rounded exactly as fmaf(omega / 4, fmaf(-h2, f, (u_N + u_S) + (u_W + u_E)), (1 - omega) * u).
 *
 * A launch of one color reads only points of the other color besides the ones it updates (each
 * read by its own thread before it writes it), so no launch depends on the order of its threads.
 *
 * Tunable through macros (defaults: an untuned but reasonable choice):
 *   BX, BY     block shape (threads along a row, along a column)
 *   TY         rows per thread
 *   STRIDED    0: a thread's TY rows are consecutive; 1: they are BY rows apart
 *   COMPACT    0: thread x takes column 1 + x and idles on rows where that point has the other
 *              color; 1: thread x takes the x-th point of the color in each row (column
 *              2x + 1 or 2x + 2), so that no thread idles
 *   READ_ONLY  1: load f through the read-only cache (__ldg)
 * Launch: block (BX, BY), grid (ceil(w / BX), ceil((n - 2) / (BY * TY))) with w = n - 2 when
 * COMPACT is 0 and (n - 1) / 2 (the most points of one color in a row) when it is 1.
 *
 * Every configuration computes every point with the same operations, each rounded as written
 * (intrinsics, so the compiler contracts nothing differently from one shape to another): the
 * results are bitwise the same.  Points are bounds-checked one by one, so any n is safe. */
#ifndef BX
#define BX 16
#endif
#ifndef BY
#define BY 16
#endif
#ifndef TY
#define TY 1
#endif
#ifndef STRIDED
#define STRIDED 0
#endif
#ifndef COMPACT
#define COMPACT 0
#endif
#ifndef READ_ONLY
#define READ_ONLY 0
#endif

/* The bounds keep registers within what a block of BX * BY threads can have (64 each at 1024). */
extern "C" __global__ void __launch_bounds__(BX * BY)
stencil(float *u, const float *f, int n, int color, float omega, float h2)
{
    const int parity = color & 1, x = blockIdx.x * BX + threadIdx.x;
    const int row0 = 1 + blockIdx.y * (BY * TY) + (STRIDED ? threadIdx.y : threadIdx.y * TY);
    const float keep = __fsub_rn(1.0f, omega), w = __fmul_rn(0.25f, omega);
    float un[TY], us[TY], uw[TY], ue[TY], uc[TY], fc[TY];
    size_t at[TY];
    bool on[TY];

    /* Every load first, so that all of them are in flight together: no point read here is written
     * by this launch, except each thread's own centres. */
#pragma unroll
    for (int t = 0; t < TY; t++) {
        int i = row0 + (STRIDED ? t * BY : t);
#if COMPACT
        int j = 2 * x + 1 + ((i + 1 + parity) & 1);
        on[t] = i <= n - 2 && j <= n - 2;
#else
        int j = 1 + x;
        on[t] = i <= n - 2 && j <= n - 2 && ((i + j) & 1) == parity;
#endif
        at[t] = (size_t)i * n + j;
        if (on[t]) {
            un[t] = u[at[t] - n];
            us[t] = u[at[t] + n];
            uw[t] = u[at[t] - 1];
            ue[t] = u[at[t] + 1];
            uc[t] = u[at[t]];
#if READ_ONLY
            fc[t] = __ldg(f + at[t]);
#else
            fc[t] = f[at[t]];
#endif
        }
    }
#pragma unroll
    for (int t = 0; t < TY; t++)
        if (on[t]) {
            float sum = __fadd_rn(__fadd_rn(un[t], us[t]), __fadd_rn(uw[t], ue[t]));
            float r = __fmaf_rn(-h2, fc[t], sum);
            u[at[t]] = __fmaf_rn(w, r, __fmul_rn(keep, uc[t]));
        }
}
