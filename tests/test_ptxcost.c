/* test_ptxcost.c: instruction counts and blocking regions from PTX, on
 * hand-written kernels whose counts are worked out by hand, and on kernels
 * nvcc compiled at test time, where only how the counts grow is asserted. */
#include "fixtures.h"
#include "ptxtext.h"
#include "ptxcost.h"

#include <stdint.h>
#include <time.h>

/* The parameters of every hand-written kernel, and their values. */
#define PARAMS ".param .s32 a, .param .s32 b, .param .u32 c, .param .u64 d, .param .u64 p"
#define PROLOGUE                                                                            \
    "  ld.param.s32 %r1, [a];\n  ld.param.s32 %r2, [b];\n  ld.param.u32 %r3, [c];\n" \
    "  ld.param.u64 %rd1, [d];\n  ld.param.u64 %rd9, [p];\n"

static int32_t arg_a = 3, arg_b = -2;
static uint32_t arg_c = 0x80000001u;
static uint64_t arg_d = 5000000000ull, arg_p = 0x7f0000001000ull;
static const void *const args[] = {&arg_a, &arg_b, &arg_c, &arg_d, &arg_p};

static char *module(const char *params, const char *body)
{
    return ptx_kernel_module("", params,
                             "  .reg .pred %p<16>;\n  .reg .b16 %rs<8>;\n  .reg .b32 %r<32>;\n  .reg .b64 %rd<32>;\n  .reg .f32 %f<8>;\n"
                             "  .shared .align 4 .b8 smem[64];\n",
                             body);
}

/* A hand-written kernel's parameters and the launch's values for them. */
struct kernel {
    const char *params;
    const void *const *args;
    unsigned nargs;
};

static const struct kernel common = {PARAMS, args, 5};

/* The cost of kernel k, or instr -1 (and the error said). */
static struct gt_ptxcost cost_of(const struct kernel *k, const char *body, unsigned block, unsigned grid,
                                 long max_steps)
{
    char *text = module(k->params, body), err[256] = "";
    struct gt_ptxcost_launch l = {k->args, k->nargs, {block, 1, 1}, {grid, 1, 1}, max_steps};
    struct gt_ptxcost c;
    if (gt_ptxcost(text, strlen(text), "k", &l, &c, err, sizeof err) != 0) {
        diag("gt_ptxcost: %s", err);
        c.instr = -1;
    }
    free(text);
    return c;
}

static struct gt_ptxcost cost(const char *body, unsigned block, unsigned grid, long max_steps)
{
    return cost_of(&common, body, block, grid, max_steps);
}

/* Runs `body`, which sets %p1..%pn, then a probe in which %pi being true
 * costs 2^(i-1) instructions: the predicates as a bit mask (-1 when any
 * was unknown).  A 128 x 4 launch. */
static long predicates_of(const struct kernel *k, const char *body, unsigned n)
{
    size_t cap = strlen(body) + 8192, len = 0, stmts = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "%s", body);
    for (const char *s = body; *s; s++)
        stmts += *s == ';';
    for (unsigned i = 1; i <= n; i++) {
        len += (size_t)snprintf(text + len, cap - len, "  @!%%p%u bra P%u;\n", i, i);
        for (unsigned j = 0; j < 1u << (i - 1); j++)
            len += (size_t)snprintf(text + len, cap - len, "  mov.u32 %%r0, 0;\n");
        len += (size_t)snprintf(text + len, cap - len, "P%u:\n", i);
    }
    snprintf(text + len, cap - len, "  ret;\n");
    struct gt_ptxcost c = cost_of(k, text, 128, 4, 0);
    free(text);
    if (c.instr < 0 || c.guessed || !c.complete)
        return -1;
    return (long)c.instr - (long)stmts - (long)n - 1;
}

/* The same after PROLOGUE, on the common parameters. */
static long predicates(const char *body, unsigned n)
{
    char *text = NULL;
    if (asprintf(&text, "%s%s", PROLOGUE, body) < 0)
        exit(1);
    long mask = predicates_of(&common, text, n);
    free(text);
    return mask;
}

/* A loop of parameter c's trips, three instructions each. */
static const char counted[] =
    "  ld.param.u32 %r1, [c];\n"
    "  mov.u32 %r2, 0;\n"
    "LOOP:\n"
    "  add.s32 %r2, %r2, 1;\n"
    "  setp.lt.u32 %p1, %r2, %r1;\n"
    "  @%p1 bra LOOP;\n"
    "  ret;\n";

static void test_loops(void)
{
    struct gt_ptxcost_launch l = {args, 5, {128, 1, 1}, {1, 1, 1}, 0};
    char err[256] = "";
    struct gt_ptxcost c10, c1000;
    char *text = module(PARAMS, counted);
    arg_c = 10;
    is_int(gt_ptxcost(text, strlen(text), "k", &l, &c10, err, sizeof err), 0, "a counted loop %s", err);
    arg_c = 1000;
    gt_ptxcost(text, strlen(text), NULL, &l, &c1000, err, sizeof err);
    arg_c = 0x80000001u;
    free(text);
    is_int(c10.instr, 2 + 3 * 10 + 1, "  n = 10: 10 trips of 3 instructions");
    is_int(c1000.instr - c10.instr, 990 * 3, "  n = 1000: exactly 990 trips more");
    ok(c10.complete && c1000.complete && !c10.guessed && c10.regions == 1, "  complete, nothing guessed, one region");

    static const char nested[] =
        "  mov.u32 %r1, %ntid.x;\n"
        "  mov.u32 %r2, 0;\n"
        "OUTER:\n"
        "  mov.u32 %r3, 0;\n"
        "INNER:\n"
        "  add.s32 %r3, %r3, 1;\n"
        "  setp.ne.s32 %p1, %r3, 4;\n"
        "  @%p1 bra INNER;\n"
        "  add.s32 %r2, %r2, 1;\n"
        "  setp.lt.u32 %p2, %r2, %r1;\n"
        "  @%p2 bra OUTER;\n"
        "  ret;\n";
    is_int(cost(nested, 32, 1, 0).instr, 2 + 32 * (1 + 4 * 3 + 3) + 1, "nested loops: %%ntid.x = 32 times 4");
    is_int(cost(nested, 128, 1, 0).instr, 2 + 128 * (1 + 4 * 3 + 3) + 1, "  %%ntid.x = 128 times 4");

    static const char stride[] =
        "  ld.param.u32 %r1, [c];\n"
        "  mov.u32 %r2, %tid.x;\n"
        "  mov.u32 %r3, %ctaid.x;\n"
        "  mov.u32 %r4, %ntid.x;\n"
        "  mad.lo.s32 %r5, %r3, %r4, %r2;\n"
        "  mov.u32 %r6, %nctaid.x;\n"
        "  mul.lo.s32 %r7, %r4, %r6;\n"
        "  setp.ge.u32 %p1, %r5, %r1;\n"
        "  @%p1 bra DONE;\n"
        "LOOP:\n"
        "  add.s32 %r5, %r5, %r7;\n"
        "  setp.lt.u32 %p2, %r5, %r1;\n"
        "  @%p2 bra LOOP;\n"
        "DONE:\n"
        "  ret;\n";
    static const struct { uint32_t n; unsigned block, grid, trips; } g[] = {
        {10000, 128, 4, 20}, {512, 128, 4, 1}, {513, 128, 4, 2}, {0, 128, 4, 0}, {1u << 20, 256, 8, 512},
    };
    for (size_t i = 0; i < sizeof g / sizeof *g; i++) {
        arg_c = g[i].n;
        is_int(cost(stride, g[i].block, g[i].grid, 0).instr, 9 + 3 * g[i].trips + 1,
               "grid-stride loop, n = %u, %u x %u threads: %u trips", g[i].n, g[i].block, g[i].grid, g[i].trips);
    }
    arg_c = 0x80000001u;

    static const char unknown[] =
        "  ld.param.u32 %r1, [c];\n"
        "  mov.u32 %r2, 0;\n"
        "LOOP:\n"
        "  ld.global.u32 %r3, [%rd9];\n"
        "  setp.eq.s32 %p1, %r3, 0;\n"
        "  @%p1 bra SKIP;\n"
        "  add.s32 %r4, %r4, 1;\n"
        "SKIP:\n"
        "  add.s32 %r2, %r2, 1;\n"
        "  setp.lt.u32 %p2, %r2, %r1;\n"
        "  @%p2 bra LOOP;\n"
        "WAIT:\n"
        "  ld.global.u32 %r5, [%rd9];\n"
        "  setp.ne.s32 %p3, %r5, 0;\n"
        "  @%p3 bra WAIT;\n"
        "  ret;\n";
    arg_c = 5;
    struct gt_ptxcost c = cost(unknown, 128, 1, 0);
    arg_c = 0x80000001u;
    is_int(c.instr, 2 + 5 * 7 + 3 + 1, "a branch on a loaded value is not taken, a loop on one runs once");
    is_int(c.guessed, 5 + 1, "  each is a guess");
    is_int(c.regions, 1 + 5 + 1, "  each load blocks where it is compared");
}

static void test_values(void)
{
    is_int(predicates("  setp.lt.s32 %p1|%p2, %r1, 5;\n"
                      "  setp.ge.s32 %p3|%p4, %r1, 5;\n", 4),
           0x9, "setp with two destinations");
    is_int(predicates("  setp.lt.s32 %p1|%p2, %r1, 5;\n"
                      "  setp.gt.and.s32 %p3, %r1, 0, %p2;\n"
                      "  setp.gt.or.s32 %p4, %r1, 0, %p2;\n"
                      "  setp.gt.and.s32 %p5, %r1, 0, !%p2;\n"
                      "  setp.gt.xor.s32 %p6|%p7, %r1, 0, %p1;\n"
                      "  and.pred %p8, %p4, %p5;\n", 8),
           0x1 | 0x8 | 0x10 | 0x40 | 0x80, "setp combining with and, or, xor, a negated predicate; and.pred");
    is_int(predicates("  setp.lt.s32 %p1, %r2, 1;\n"
                      "  setp.lo.u32 %p2, %r2, 1;\n"
                      "  setp.lt.u32 %p3, %r2, 1;\n"
                      "  setp.hi.u32 %p4, %r2, 1;\n"
                      "  setp.gt.s32 %p5, %r3, 0;\n"
                      "  setp.hs.u32 %p6, %r3, 0x80000000;\n", 6),
           0x1 | 0x8 | 0x20, "-2 and 0x80000001: signed lt against unsigned lo, lt, hi, hs");
    is_int(predicates("  mul.wide.s32 %rd2, %r2, 1000000;\n"
                      "  setp.eq.s64 %p1, %rd2, -2000000;\n"
                      "  mul.wide.u32 %rd3, %r3, 4;\n"
                      "  setp.eq.u64 %p2, %rd3, 0x200000004;\n"
                      "  mad.wide.s32 %rd4, %r2, 3, %rd1;\n"
                      "  setp.eq.s64 %p3, %rd4, 4999999994;\n"
                      "  mad.wide.u32 %rd5, %r3, 2, %rd1;\n"
                      "  setp.eq.u64 %p4, %rd5, 9294967298;\n"
                      "  mul.lo.s32 %r4, %r3, 2;\n"
                      "  setp.eq.s32 %p5, %r4, 2;\n"
                      "  mul.hi.s32 %r5, %r2, %r3;\n"
                      "  setp.eq.s32 %p6, %r5, 0;\n"
                      "  mul.hi.u64 %rd6, %rd1, %rd1;\n"
                      "  setp.eq.u64 %p7, %rd6, 1;\n"
                      "  mul.hi.s64 %rd7, %rd2, %rd1;\n"
                      "  setp.eq.s64 %p8, %rd7, -1;\n", 8),
           0xff, "64-bit arithmetic: mul.wide, mad.wide, mul.lo wraps, mul.hi signed and unsigned");
    is_int(predicates("  shl.b32 %r4, %r1, 4;\n"
                      "  setp.eq.u32 %p1, %r4, 48;\n"
                      "  shr.s32 %r5, %r2, 1;\n"
                      "  setp.eq.s32 %p2, %r5, -1;\n"
                      "  shr.u32 %r6, %r2, 28;\n"
                      "  setp.eq.u32 %p3, %r6, 15;\n"
                      "  div.s32 %r7, %r2, 2;\n"
                      "  rem.s32 %r8, %r1, 2;\n"
                      "  add.s32 %r9, %r7, %r8;\n"
                      "  setp.eq.s32 %p4, %r9, 0;\n"
                      "  cvt.s64.s32 %rd2, %r2;\n"
                      "  cvt.u64.u32 %rd3, %r2;\n"
                      "  sub.s64 %rd4, %rd3, %rd2;\n"
                      "  setp.eq.s64 %p5, %rd4, 0x100000000;\n"
                      "  min.s32 %r10, %r1, %r2;\n"
                      "  max.u32 %r11, %r1, %r2;\n"
                      "  selp.b32 %r12, %r10, %r11, %p1;\n"
                      "  abs.s32 %r13, %r12;\n"
                      "  neg.s32 %r14, %r13;\n"
                      "  setp.eq.s32 %p6, %r14, %r10;\n"
                      "  xor.b32 %r15, %r11, %r10;\n"
                      "  setp.ne.s32 %p7, %r15, 0;\n", 7),
           0x3f, "shifts, div, rem, cvt, min, max, selp, abs, neg, xor");
    is_int(predicates("  setp.eq.s32 %p1, %r1, 0;\n"
                      "  @%p1 mov.u32 %r1, 7;\n"
                      "  @!%p1 add.s32 %r1, %r1, 1;\n"
                      "  setp.eq.s32 %p1, %r1, 4;\n"
                      "  mov.u32 %r4, %tid.x;\n"
                      "  mov.u32 %r5, %ctaid.x;\n"
                      "  mov.u32 %r6, %ntid.x;\n"
                      "  mov.u32 %r7, %nctaid.x;\n"
                      "  mov.u32 %r8, %laneid;\n"
                      "  add.s32 %r9, %r4, %r5;\n"
                      "  add.s32 %r9, %r9, %r8;\n"
                      "  setp.eq.s32 %p2, %r9, 0;\n"
                      "  setp.eq.s32 %p3, %r6, 128;\n"
                      "  setp.eq.s32 %p4, %r7, 4;\n"
                      "  cvt.u16.u32 %rs1, %r2;\n"
                      "  cvt.s32.s16 %r10, %rs1;\n"
                      "  setp.eq.s32 %p5, %r10, -2;\n"
                      "  mul24.lo.s32 %r11, %r2, 0x1000001;\n"
                      "  setp.eq.s32 %p6, %r11, -2;\n"
                      "  cvta.to.global.u64 %rd2, %rd9;\n"
                      "  add.s64 %rd3, %rd2, -0x1000;\n"
                      "  setp.eq.u64 %p7, %rd3, 0x7f0000000000;\n", 7),
           0x7f, "guards known false skip; thread 0 of block 0 in a 128 x 4 launch; cvt narrows; mul24; cvta");

    static const char *const unknowns[] = {
        "  div.u32 %r4, %r1, 0;\n  setp.eq.u32 %p1, %r4, 0;\n",
        "  mov.b32 %r4, 0f3F800000;\n  setp.eq.u32 %p1, %r4, 0x3F800000;\n",
        "  ld.global.u32 %r4, [%rd9];\n  setp.eq.u32 %p1, %r4, 0;\n",
        ("  mov.u32 %r5, 0;\n  ld.global.u32 %r4, [%rd9];\n  setp.eq.u32 %p2, %r4, 0;\n  @%p2 mov.u32 %r5, 1;\n"
         "  setp.eq.u32 %p1, %r5, 1;\n"),
        "  mov.u64 %rd2, smem;\n  setp.eq.u64 %p1, %rd2, 0;\n",
        "  mov.u32 %r4, %smid;\n  setp.eq.u32 %p1, %r4, 0;\n",
        "  add.f32 %f1, %f2, %f3;\n  mov.b32 %r4, %f1;\n  setp.eq.u32 %p1, %r4, 0;\n",
        "  shf.l.wrap.b32 %r4, %r1, %r1, 3;\n  setp.eq.u32 %p1, %r4, 0;\n",
    };
    static const char *const what[] = {
        "division by zero", "a float immediate", "a global load", "a move under an unknown guard",
        "an address", "%smid", "float arithmetic", "an instruction not modelled",
    };
    for (size_t i = 0; i < sizeof unknowns / sizeof *unknowns; i++) {
        char *body = NULL;
        if (asprintf(&body, "%s  @%%p1 bra END;\nEND:\n  ret;\n", unknowns[i]) < 0)
            exit(1);
        struct gt_ptxcost c = cost(body, 128, 4, 0);
        is_int(c.guessed, 1, "unknown: %s", what[i]);
        free(body);
    }
}

/* Parameters read as the launch's bytes: in a structure, as vectors,
 * narrow and sign-extended; beyond a parameter or in float, unknown. */
static void test_params(void)
{
    static const unsigned char st[16] = {1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 5, 0, 0, 0, 7, 0, 0, 0};
    static const int8_t c8 = -3;
    static const uint16_t h = 0xffff;
    static const float fl = 1;
    static const void *const pargs[] = {st, &c8, &h, &fl};
    static const struct kernel k = {".param .align 8 .b8 s[16], .param .s8 c8, .param .u16 h, .param .f32 fl", pargs, 4};
    is_int(predicates_of(&k,
                         "  ld.param.u32 %r1, [s];\n"
                         "  ld.param.s32 %r2, [s+4];\n"
                         "  ld.param.v2.u32 {%r3, %r4}, [s+8];\n"
                         "  ld.param.u64 %rd1, [s+8];\n"
                         "  ld.param.s8 %rs1, [c8];\n"
                         "  ld.param.u16 %rs2, [h];\n"
                         "  setp.eq.s32 %p1, %r1, 1;\n"
                         "  setp.eq.s32 %p2, %r2, -2;\n"
                         "  add.s32 %r6, %r3, %r4;\n"
                         "  setp.eq.s32 %p3, %r6, 12;\n"
                         "  setp.eq.u64 %p4, %rd1, 0x700000005;\n"
                         "  cvt.s32.s16 %r7, %rs1;\n"
                         "  setp.eq.s32 %p5, %r7, -3;\n"
                         "  cvt.u32.u16 %r8, %rs2;\n"
                         "  setp.eq.u32 %p6, %r8, 65535;\n", 6),
           0x3f, "parameters: in a structure, a vector, s8 sign-extended, u16");
    is_int(cost_of(&k, "  ld.param.u32 %r1, [s+14];\n  setp.eq.u32 %p1, %r1, 0;\n  @%p1 bra E;\n"
                       "  ld.param.f32 %f1, [fl];\n  mov.b32 %r2, %f1;\n  setp.eq.u32 %p2, %r2, 0;\n  @%p2 bra E;\n"
                       "E:\n  ret;\n", 1, 1, 0).guessed,
           2, "  unknown: bytes past a parameter's end, a float");
}

static void test_regions(void)
{
    static const struct { const char *body; int regions; const char *what; } r[] = {
        {"  ld.global.u32 %r4, [%rd9];\n  ld.global.u32 %r5, [%rd9+4];\n  add.s32 %r6, %r4, %r5;\n", 2,
         "two loads, then one use of both: one event"},
        {"  ld.global.u32 %r4, [%rd9];\n  add.s32 %r6, %r4, 1;\n"
         "  ld.global.u32 %r5, [%rd9+4];\n  add.s32 %r6, %r5, 1;\n", 3,
         "load, use, load, use: two events"},
        {"  mov.u32 %r4, 0;\nL:\n  bar.sync 0;\n  add.s32 %r4, %r4, 1;\n  setp.lt.s32 %p1, %r4, 4;\n  @%p1 bra L;\n",
         5, "bar.sync in a loop of 4 trips: four events"},
        {"  ld.shared.u32 %r4, [smem];\n  ld.const.u32 %r5, [%rd9];\n  ld.local.u32 %r6, [%rd9];\n"
         "  add.s32 %r7, %r4, %r5;\n  add.s32 %r7, %r7, %r6;\n", 1,
         "shared, constant and local loads do not block"},
        {"  ld.u32 %r4, [%rd9];\n  ld.global.nc.v2.u32 {%r5, %r6}, [%rd9];\n  add.s32 %r7, %r6, 1;\n"
         "  add.s32 %r7, %r4, 1;\n", 2,
         "generic and non-coherent vector loads are pending together"},
        {"  atom.global.add.u32 %r4, [%rd9], 1;\n  atom.shared.add.u32 %r5, [smem], 1;\n  add.s32 %r6, %r5, 1;\n"
         "  st.global.u32 [%rd9], %r4;\n", 2,
         "a global atomic's result blocks where it is stored; a shared one's does not"},
        {"  ld.global.u32 %r4, [%rd9];\n  mov.u32 %r4, 0;\n  add.s32 %r5, %r4, 1;\n", 1,
         "a load overwritten before its use never blocks"},
        {"  bar.arrive 1, 64;\n  membar.gl;\n  fence.acq_rel.gpu;\n  bar.warp.sync -1;\n"
         "  barrier.cluster.arrive;\n", 1,
         "arrive, membar, fence and warp barriers do not block"},
        {"  barrier.sync.aligned 0;\n  bar.red.popc.u32 %r4, 0, %p1;\n  cp.async.wait_group 0;\n"
         "  cp.async.wait_all;\n  cp.async.bulk.wait_group.read 0;\n  barrier.cluster.wait;\n", 7,
         "barrier.sync, bar.red, cp.async and cluster waits do"},
        {"WAIT:\n  mbarrier.try_wait.parity.shared::cta.b64 %p1, [smem], 0;\n  @!%p1 bra WAIT;\n", 2,
         "mbarrier.try_wait blocks once, its loop is a guess"},
        {"  ld.global.u32 %r4, [%rd9];\n  @%p9 add.s32 %r5, %r4, 1;\n", 2, "a use under an unknown guard blocks"},
        {"  setp.eq.s32 %p9, %r1, 0;\n  ld.global.u32 %r4, [%rd9];\n  @%p9 add.s32 %r5, %r4, 1;\n", 1,
         "a use guarded off does not"},
    };
    for (size_t i = 0; i < sizeof r / sizeof *r; i++) {
        char *body = NULL;
        if (asprintf(&body, "%s%s  ret;\n", PROLOGUE, r[i].body) < 0)
            exit(1);
        is_int(cost(body, 128, 1, 0).regions, r[i].regions, "regions: %s", r[i].what);
        free(body);
    }
}

static void test_limits(void)
{
    struct gt_ptxcost c = cost("L:\n  add.s32 %r1, %r1, 1;\n  bra.uni L;\n", 1, 1, 1001);
    ok(c.instr == 1001 && !c.complete, "max_steps stops an endless loop: %.0f, complete %d", c.instr, c.complete);
    c = cost("  mov.u32 %r1, 0;\n", 1, 1, 1);
    ok(c.instr == 1 && c.complete, "the last instruction may be the last step; falling off the end completes");

    arg_c = 666666;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    c = cost(counted, 1, 1, 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    arg_c = 0x80000001u;
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    is_int(c.instr, 2 + 3 * 666666 + 1, "two million steps");
    diag("%.0f steps in %.1f ms: %.1f ns a step", c.instr, s * 1e3, s * 1e9 / c.instr);
    ok(s < 1.0, "  in well under a second");
}

static void test_errors(void)
{
    char err[256] = "";
    struct gt_ptxcost c;
    struct gt_ptxcost_launch l = {args, 5, {1, 1, 1}, {1, 1, 1}, 0};
    char *text = module(PARAMS, "  ret;\n");
    is_int(gt_ptxcost(text, strlen(text), "nosuch", &l, &c, err, sizeof err), -1, "no such entry");
    ok(strstr(err, "nosuch") != NULL, "  named: %s", err);
    l.nargs = 3;
    is_int(gt_ptxcost(text, strlen(text), "k", &l, &c, err, sizeof err), -1, "fewer arguments than parameters");
    ok(strstr(err, "parameter 3") && strstr(err, "(d)"), "  names the first missing: %s", err);
    l.nargs = 6;
    is_int(gt_ptxcost(text, strlen(text), "k", &l, &c, err, sizeof err), -1, "more arguments than parameters");
    ok(strstr(err, "5 parameters") != NULL, "  says how many: %s", err);
    const void *one_null[] = {&arg_a, NULL, &arg_c, &arg_d, &arg_p};
    struct gt_ptxcost_launch ln = {one_null, 5, {1, 1, 1}, {1, 1, 1}, 0};
    is_int(gt_ptxcost(text, strlen(text), "k", &ln, &c, err, sizeof err), -1, "a NULL argument");
    ok(strstr(err, "(b)") != NULL, "  named: %s", err);
    free(text);

    text = module("", "  mov.u32 %r1, %ntid.x;\n  ret;\n");
    struct gt_ptxcost_launch none = {NULL, 0, {1, 1, 1}, {1, 1, 1}, 0};
    err[0] = '\0';
    is_int(gt_ptxcost(text, strlen(text), NULL, &none, &c, err, sizeof err), 0, "no arguments for no parameters %s",
           err);
    is_int(c.instr, 2, "  two instructions");
    size_t cut = strlen(text) - 10;
    is_int(gt_ptxcost(text, cut, NULL, &none, &c, err, sizeof err), -1, "truncated PTX");
    ok(err[0] != '\0', "  says why: %s", err);
    free(text);

    static const char two[] = ".version 8.0\n.target sm_90\n.entry a() { ret; }\n.entry b() { ret; }\n"
                              ".entry decl();\n.func f() { ret; }\n";
    is_int(gt_ptxcost(two, strlen(two), NULL, &none, &c, err, sizeof err), -1, "two entries and no name");
    err[0] = '\0';
    is_int(gt_ptxcost(two, strlen(two), "b", &none, &c, err, sizeof err), 0, "  the one named %s", err);
    is_int(gt_ptxcost(two, strlen(two), "f", &none, &c, err, sizeof err), -1, "a .func is no entry");
    is_int(gt_ptxcost(two, strlen(two), "decl", &none, &c, err, sizeof err), -1, "nor a declaration");
    is_int(gt_ptxcost("garbage text;\n", 14, NULL, &none, &c, err, sizeof err), -1, "garbage");
    ok(strstr(err, "not PTX") != NULL, "  is not PTX: %s", err);
    is_int(gt_ptxcost("", 0, NULL, &none, &c, err, sizeof err), -1, "nothing");
    is_int(gt_ptxcost(two, strlen(two), "a", NULL, &c, err, sizeof err), -1, "no launch");

    /* Statements it does not understand still count, and nothing reads past them. */
    static const char odd[] =
        ".version 8.0\n.target sm_90\n.entry k()\n{\n"
        "  .reg .b32 %r<4>;\n"
        "  .local .align 4 .b8 buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
        "  .loc 1 2 3\n"
        "  add.s32 %r1, , 3;\n"
        "  mov.u32 5, %r1;\n"
        "  setp.lt.s32 %p1|, %r1, 2;\n"
        "  ld.param.u32 %r2, [nope+4];\n"
        "  ld.param.u32 %r2, [k+-4];\n"
        "  @ bra NOWHERE;\n"
        "  bra NOWHERE;\n"
        "  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, 0, 0;\n"
        "  call.uni (%r3), f, (%r1, %r2);\n"
        "  { .reg .b32 t; mov.u32 t, 1; }\n"
        "  7 add;\n"
        "  brx.idx %r1, T;\n"
        "  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tx, {%f5, %f6}];\n"
        "  add.f32 %f1, %f1, 0f3F800000;\n"
        "  @%p1 ret\n"
        "}\n";
    err[0] = '\0';
    is_int(gt_ptxcost(odd, strlen(odd), NULL, &none, &c, err, sizeof err), 0, "odd statements %s", err);
    is_int(c.instr, 14, "  each counts once, directives and a malformed one not at all");
    ok(c.complete && c.regions == 2, "  complete, the texture fetch blocking at its use (%.0f regions)", c.regions);
}

/* reduce<float> of tests/fixtures/kernels.cu: a block-stride loop of
 * ceil(n / blockDim) trips, each a load and its use, then log2(blockDim)
 * halving steps each with a barrier. */
static void test_compiled(void)
{
    size_t size;
    char *text = (char *)fx_read("kernels.ptx", &size), err[256] = "";
    uint64_t in = 0x10000, out_ = 0x20000;
    int32_t n = 0;
    const void *rargs[] = {&in, &out_, &n};
    struct gt_ptxcost_launch l = {rargs, 3, {256, 1, 1}, {1, 1, 1}, 0};
    struct gt_ptxcost c[4];
    static const int32_t ns[4] = {256, 512, 256 * 5, 256 * 10};
    int rc = 0;
    for (int i = 0; i < 4; i++) {
        n = ns[i];
        rc |= gt_ptxcost(text, size, "_Z6reduceIfEvPKT_PS0_i", &l, &c[i], err, sizeof err);
    }
    is_int(rc, 0, "reduce<float> from nvcc %s", err);
    double per = c[1].instr - c[0].instr;
    ok(per > 0 && c[3].instr - c[2].instr == 5 * per && c[2].instr - c[0].instr == 4 * per,
       "  instructions grow linearly with n: %.0f %.0f %.0f %.0f", c[0].instr, c[1].instr, c[2].instr, c[3].instr);
    ok(c[3].regions - c[2].regions == 5 && c[1].regions - c[0].regions == 1,
       "  one region more for each trip: %.0f %.0f", c[2].regions, c[3].regions);
    ok(c[0].regions >= 1 + 1 + 8 + 1, "  a barrier before and in each of 8 halving steps: %.0f", c[0].regions);
    ok(c[0].complete && !c[0].guessed && !c[3].guessed, "  complete, nothing guessed");
    l.block[0] = 64;
    n = 256 * 10;
    struct gt_ptxcost c64;
    gt_ptxcost(text, size, "_Z6reduceIfEvPKT_PS0_i", &l, &c64, err, sizeof err);
    ok(c64.instr > c[3].instr && c64.regions - c[3].regions == 30 - 2,
       "  a quarter of the block: 30 trips more, 2 halvings fewer (%.0f regions)", c64.regions);

    int32_t hits_n = 300;
    const void *hargs[] = {&in, &hits_n};
    struct gt_ptxcost_launch lh = {hargs, 2, {128, 1, 1}, {1, 1, 1}, 0};
    is_int(gt_ptxcost(text, size, "count_hits", &lh, &c[0], err, sizeof err), 0, "count_hits %s", err);
    is_int(c[0].guessed, 3, "  its branch on each flag loaded is a guess, once a trip");
    ok(c[0].complete && c[0].regions == 4, "  each flag blocks where it is tested");

    float a = 2;
    int32_t sn = 0;
    const void *sargs[] = {&sn, &a, &in, &out_};
    struct gt_ptxcost_launch ls = {sargs, 4, {128, 1, 1}, {4, 1, 1}, 0};
    struct gt_ptxcost s0, s1;
    gt_ptxcost(text, size, "scale", &ls, &s0, err, sizeof err);
    sn = 1;
    gt_ptxcost(text, size, "scale", &ls, &s1, err, sizeof err);
    ok(s1.instr > s0.instr && s0.regions == 1 && s1.regions == 2, "scale: the body runs only when n > 0 (%.0f, %.0f)",
       s0.instr, s1.instr);
    free(text);
}

int main(void)
{
    fx_dir();
    test_loops();
    test_values();
    test_params();
    test_regions();
    test_limits();
    test_errors();
    test_compiled();
    return done_testing();
}
