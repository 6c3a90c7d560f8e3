/* gemm.cu: C = alpha * A * B + beta * C in single precision, row-major; A is M x K, B is K x N, C is M x N.
 *
 * Each block computes a BM x BN tile of C, stepping through K by BK: it stages a BM x BK tile of A and a
 * BK x BN tile of B in shared memory, and each thread accumulates a TM x TN sub-tile in registers (an outer
 * product per k).  A thread's rows and columns come in runs of 4 (or TM, TN when smaller) spread over the
 * tile, so that its shared-memory reads are float4 (float2) and a warp's reads do not collide in banks.
 *
 * Tunable through macros (defaults: an untuned but reasonable choice):
 *   BM, BN   block tile of C (rows, columns)
 *   BK       depth of the A and B tiles staged per step
 *   TM, TN   outputs per thread (rows, columns): the block has (BM / TM) * (BN / TN) threads
 *   VEC      1, 2 or 4: width of the global loads (float, float2, float4); a load is vector only when
 *            K (for A) or N (for B) is a multiple of VEC, the matrix is aligned to it and the whole vector
 *            lies inside the matrix, else it is VEC scalar loads
 *   TRANS_A  1 stores the A tile transposed (k-major), so that a thread reads its TM values of A with
 *            vector loads; 0 keeps it m-major (one scalar read per row)
 *   PAD      0 or 4: floats added to each shared-memory row, against bank conflicts (4 keeps float4 alignment)
 *   DB       1 double-buffers the shared tiles: the next tiles' global loads are issued into registers
 *            before the current step's arithmetic, and one barrier per step suffices
 * Launch: block (BN / TN) * (BM / TM) threads (1D), grid (ceil(N / BN), ceil(M / BM)).
 * Needs (policy constraints): BM * BK and BK * BN multiples of VEC * threads; static shared memory
 * (DB + 1) * 4 * (BK * (BM + PAD) [TRANS_A] or BM * (BK + PAD) [not TRANS_A], + BK * (BN + PAD)) <= 48 KiB.
 *
 * Results are bitwise the same for every configuration: each C element has one accumulator, starting at
 * 0, updated as acc = fmaf(A[m][k], B[k][n], acc) for k = 0, 1, ..., K - 1 in order (the last, partial
 * step runs exactly to K, so no zero padding ever enters a sum), and is written once as
 * fmaf(alpha, acc, beta * C[m][n]).  Tiling, thread tiles, vector widths and buffering only change who
 * computes an element and when its operands are loaded, never the operations on it. */
#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 4
#endif
#ifndef TN
#define TN 4
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef TRANS_A
#define TRANS_A 0
#endif
#ifndef PAD
#define PAD 0
#endif
#ifndef DB
#define DB 0
#endif

#if VEC != 1 && VEC != 2 && VEC != 4
#error "VEC must be 1, 2 or 4"
#endif
#if PAD % 4 != 0
#error "PAD must be a multiple of 4 (float4 alignment of shared rows)"
#endif

#define GEMM_NTX (BN / TN)               /* threads along n */
#define GEMM_NTY (BM / TM)               /* threads along m */
#define GEMM_NT (GEMM_NTX * GEMM_NTY)    /* threads per block */
#define GEMM_RM (TM < 4 ? TM : 4)        /* run of consecutive rows a thread owns */
#define GEMM_RN (TN < 4 ? TN : 4)        /* run of consecutive columns a thread owns */
#define GEMM_LA (BM * BK / (VEC * GEMM_NT)) /* A vectors each thread loads per step */
#define GEMM_LB (BK * BN / (VEC * GEMM_NT)) /* B vectors each thread loads per step */

#if (BM * BK) % (VEC * GEMM_NT) != 0 || (BK * BN) % (VEC * GEMM_NT) != 0
#error "the A and B tiles must split evenly into VEC-wide loads among the threads"
#endif

/* The A tile: k-major (transposed) or m-major. */
#if TRANS_A
#define GEMM_AS_ROW [BM + PAD]
#define GEMM_AS_DIMS [BK][BM + PAD]
#else
#define GEMM_AS_ROW [BK + PAD]
#define GEMM_AS_DIMS [BM][BK + PAD]
#endif

/* Copies W floats (W = 1, 2 or 4, a constant once inlined) with one access of that width. */
__device__ __forceinline__ void gemm_copy(float *dst, const float *src, int w)
{
    if (w == 4) {
        float4 v = *(const float4 *)src;
        dst[0] = v.x;
        dst[1] = v.y;
        dst[2] = v.z;
        dst[3] = v.w;
    } else if (w == 2) {
        float2 v = *(const float2 *)src;
        dst[0] = v.x;
        dst[1] = v.y;
    } else {
        dst[0] = src[0];
    }
}

/* Stores W floats with one access of that width. */
__device__ __forceinline__ void gemm_store(float *dst, const float *src, int w)
{
    if (w == 4)
        *(float4 *)dst = make_float4(src[0], src[1], src[2], src[3]);
    else if (w == 2)
        *(float2 *)dst = make_float2(src[0], src[1]);
    else
        dst[0] = src[0];
}

/* Loads VEC consecutive elements of row `row` (of `rows`) from column `col` (of `cols`) of a row-major
 * matrix: one vector load when allowed and wholly inside, else scalar loads with zeros outside. */
__device__ __forceinline__ void gemm_fetch(float *dst, const float *mat, int row, int col, int rows, int cols,
                                           bool vec_ok)
{
    const float *p = mat + (size_t)row * cols + col;
    if (VEC > 1 && vec_ok && row < rows && col + VEC <= cols) {
        gemm_copy(dst, p, VEC);
    } else {
#pragma unroll
        for (int v = 0; v < VEC; v++)
            dst[v] = row < rows && col + v < cols ? p[v] : 0.0f;
    }
}

/* The global tiles of the step starting at k0 into registers ra, rb. */
__device__ __forceinline__ void gemm_load(float (&ra)[GEMM_LA][VEC], float (&rb)[GEMM_LB][VEC], const float *A,
                                          const float *B, int M, int N, int K, int m0, int n0, int k0, bool a_vec,
                                          bool b_vec)
{
#pragma unroll
    for (int l = 0; l < GEMM_LA; l++) {
        int idx = threadIdx.x + l * GEMM_NT;
        gemm_fetch(ra[l], A, m0 + idx / (BK / VEC), k0 + idx % (BK / VEC) * VEC, M, K, a_vec);
    }
#pragma unroll
    for (int l = 0; l < GEMM_LB; l++) {
        int idx = threadIdx.x + l * GEMM_NT;
        gemm_fetch(rb[l], B, k0 + idx / (BN / VEC), n0 + idx % (BN / VEC) * VEC, K, N, b_vec);
    }
}

/* Registers ra, rb into the shared tiles as, bs. */
__device__ __forceinline__ void gemm_stage(float (*as) GEMM_AS_ROW, float (*bs)[BN + PAD],
                                           const float (&ra)[GEMM_LA][VEC], const float (&rb)[GEMM_LB][VEC])
{
#pragma unroll
    for (int l = 0; l < GEMM_LA; l++) {
        int idx = threadIdx.x + l * GEMM_NT;
        int m = idx / (BK / VEC), k = idx % (BK / VEC) * VEC;
#if TRANS_A
#pragma unroll
        for (int v = 0; v < VEC; v++)
            as[k + v][m] = ra[l][v];
#else
        gemm_store(&as[m][k], ra[l], VEC);
#endif
    }
#pragma unroll
    for (int l = 0; l < GEMM_LB; l++) {
        int idx = threadIdx.x + l * GEMM_NT;
        gemm_store(&bs[idx / (BN / VEC)][idx % (BN / VEC) * VEC], rb[l], VEC);
    }
}

/* Step k of the outer products: this thread's TM values of A's column k and TN of B's row k. */
__device__ __forceinline__ void gemm_step(float (&acc)[TM][TN], const float (*as) GEMM_AS_ROW,
                                          const float (*bs)[BN + PAD], int k, int tx, int ty)
{
    float a[TM], b[TN];
#pragma unroll
    for (int i = 0; i < TM; i += GEMM_RM) {
        int m = i / GEMM_RM * (GEMM_NTY * GEMM_RM) + ty * GEMM_RM;
#if TRANS_A
        gemm_copy(&a[i], &as[k][m], GEMM_RM);
#else
#pragma unroll
        for (int r = 0; r < GEMM_RM; r++)
            a[i + r] = as[m + r][k];
#endif
    }
#pragma unroll
    for (int j = 0; j < TN; j += GEMM_RN)
        gemm_copy(&b[j], &bs[k][j / GEMM_RN * (GEMM_NTX * GEMM_RN) + tx * GEMM_RN], GEMM_RN);
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
}

extern "C" __global__ void __launch_bounds__(GEMM_NT, 1)
gemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C)
{
    __shared__ __align__(16) float as[DB + 1] GEMM_AS_DIMS;
    __shared__ __align__(16) float bs[DB + 1][BK][BN + PAD];

    const int tx = threadIdx.x % GEMM_NTX;
    const int ty = threadIdx.x / GEMM_NTX;
    const int m0 = blockIdx.y * BM;
    const int n0 = blockIdx.x * BN;
    /* Vector loads need rows that start on a vector boundary. */
    const bool a_vec = K % VEC == 0 && (unsigned long long)A % (4 * VEC) == 0;
    const bool b_vec = N % VEC == 0 && (unsigned long long)B % (4 * VEC) == 0;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;

    float ra[GEMM_LA][VEC], rb[GEMM_LB][VEC];
    const int steps = (K + BK - 1) / BK;
    gemm_load(ra, rb, A, B, M, N, K, m0, n0, 0, a_vec, b_vec);
    gemm_stage(as[0], bs[0], ra, rb);
    __syncthreads();
    int buf = 0;
    for (int s = 0; s < steps; s++) {
        if (DB && s + 1 < steps)
            gemm_load(ra, rb, A, B, M, N, K, m0, n0, (s + 1) * BK, a_vec, b_vec);
        int depth = K - s * BK;
        if (depth >= BK) {
#pragma unroll
            for (int k = 0; k < BK; k++)
                gemm_step(acc, as[buf], bs[buf], k, tx, ty);
        } else {
            /* The last, partial step stops exactly at K. */
            for (int k = 0; k < depth; k++)
                gemm_step(acc, as[buf], bs[buf], k, tx, ty);
        }
        if (DB) {
            if (s + 1 < steps) {
                /* The other buffer was last read before the previous barrier. */
                gemm_stage(as[buf ^ 1], bs[buf ^ 1], ra, rb);
                __syncthreads();
                buf ^= 1;
            }
        } else {
            __syncthreads();
            if (s + 1 < steps) {
                gemm_load(ra, rb, A, B, M, N, K, m0, n0, (s + 1) * BK, a_vec, b_vec);
                gemm_stage(as[0], bs[0], ra, rb);
                __syncthreads();
            }
        }
    }

#pragma unroll
    for (int i = 0; i < TM; i++) {
        int m = m0 + i / GEMM_RM * (GEMM_NTY * GEMM_RM) + ty * GEMM_RM + i % GEMM_RM;
#pragma unroll
        for (int j = 0; j < TN; j++) {
            int n = n0 + j / GEMM_RN * (GEMM_NTX * GEMM_RN) + tx * GEMM_RN + j % GEMM_RN;
            if (m < M && n < N) {
                float *c = C + (size_t)m * N + n;
                *c = fmaf(alpha, acc[i][j], beta * *c);
            }
        }
    }
}
