/* test_ptxreads.c: which parameters a kernel may read through, on
 * hand-written PTX with one way each for a pointer to be read, written or
 * to escape, and on the kernels nvcc compiled at test time. */
#include "fixtures.h"
#include "ptxtext.h"
#include "ptxreads.h"

/* Every hand-written kernel: k(out, in, n), its pointers converted to
 * global addresses in %rd3 (out) and %rd4 (in), thread i in %r2, its byte
 * offset in %rd5. */
#define PARAMS ".param .u64 out, .param .u64 in, .param .u32 n"
#define PROLOGUE                                                                                  \
    "  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [in];\n  ld.param.u32 %r1, [n];\n"      \
    "  mov.u32 %r2, %tid.x;\n  setp.ge.u32 %p1, %r2, %r1;\n  @%p1 bra DONE;\n"                  \
    "  cvta.to.global.u64 %rd3, %rd1;\n  cvta.to.global.u64 %rd4, %rd2;\n"                       \
    "  mul.wide.u32 %rd5, %r2, 4;\n  add.s64 %rd6, %rd4, %rd5;\n  ld.global.f32 %f1, [%rd6];\n" \
    "  add.s64 %rd7, %rd3, %rd5;\n"

static char *module(const char *params, const char *body)
{
    return ptx_kernel_module(".func use(.param .b64 p)\n{\n  ret;\n}\n\n", params,
                             "  .reg .pred %p<16>;\n  .reg .b32 %r<32>;\n  .reg .b64 %rd<32>;\n  .reg .f32 %f<8>;\n"
                             "  .local .align 8 .b8 __local_depot0[8];\n",
                             body);
}

/* The parameters read, as "110" (one digit each), or "error: ...". */
static const char *reads_of(const char *params, unsigned nparams, const char *body)
{
    static char buf[300];
    unsigned char reads[16];
    char *text = module(params, body), err[256] = "";
    if (gt_ptxreads(text, strlen(text), "k", nparams, reads, err, sizeof err) != 0) {
        snprintf(buf, sizeof buf, "error: %s", err);
    } else {
        for (unsigned i = 0; i < nparams; i++)
            buf[i] = reads[i] ? '1' : '0';
        buf[nparams] = '\0';
    }
    free(text);
    return buf;
}

static const char *reads(const char *body)
{
    return reads_of(PARAMS, 3, body);
}

static void test_writes_and_reads(void)
{
    is_str(reads(PROLOGUE "  st.global.f32 [%rd7], %f1;\nDONE:\n  ret;\n"), "010",
           "out[i] = in[i]: out is only written, n never dereferenced");
    is_str(reads(PROLOGUE "  ld.global.f32 %f2, [%rd7];\n  add.f32 %f3, %f1, %f2;\n  st.global.f32 [%rd7], %f3;\n"
                          "DONE:\n  ret;\n"),
           "110", "out[i] += in[i]: out is read");
    is_str(reads(PROLOGUE "  atom.global.add.f32 %f2, [%rd7], %f1;\nDONE:\n  ret;\n"), "110",
           "an atomic on out reads it");
    is_str(reads(PROLOGUE "  red.global.add.f32 [%rd7], %f1;\nDONE:\n  ret;\n"), "110", "so does a reduction");
    is_str(reads(PROLOGUE "  prefetch.global.L2 [%rd7];\n  st.global.f32 [%rd7], %f1;\nDONE:\n  ret;\n"), "110",
           "a prefetch counts as a load");
    is_str(reads(PROLOGUE "  setp.eq.s64 %p2, %rd1, 0;\n  @%p2 bra DONE;\n  @!%p1 st.global.f32 [%rd7], %f1;\n"
                          "DONE:\n  ret;\n"),
           "010", "comparing out with null and guarding the store with it is no read");
    is_str(reads(PROLOGUE "  st.global.v2.f32 [%rd7], {%f1, %f1};\nDONE:\n  ret;\n"), "010",
           "a vector store through out writes");
}

/* out+16 travels through moves, in text order backwards, so that one sweep
 * is not enough, before a load. */
static void test_chains(void)
{
    is_str(reads(PROLOGUE "  ld.global.f32 %f2, [%rd12];\n  mov.b64 %rd12, %rd11;\n  mov.b64 %rd11, %rd10;\n"
                          "  add.s64 %rd10, %rd3, 16;\n  st.global.f32 [%rd7], %f2;\nDONE:\n  ret;\n"),
           "110", "out copied through a register chain, then loaded from");
    is_str(reads(PROLOGUE "  mov.b64 {%r10, %r11}, %rd3;\n  mov.b64 %rd13, {%r10, %r11};\n"
                          "  ld.global.f32 %f2, [%rd13];\n  st.global.f32 [%rd7], %f2;\nDONE:\n  ret;\n"),
           "110", "  split into halves and joined again");
    is_str(reads(PROLOGUE "  setp.eq.u32 %p4, %r2, 0;\n  selp.b64 %rd14, %rd3, %rd4, %p4;\n"
                          "  ld.global.f32 %f2, [%rd14];\n  st.global.f32 [%rd7], %f2;\nDONE:\n  ret;\n"),
           "110", "  selected with another pointer");
    is_str(reads(PROLOGUE "  { .reg .b64 %t;\n  add.s64 %t, %rd3, 8;\n  ld.global.f32 %f2, [%t+4];\n  }\n"
                          "  st.global.f32 [%rd7], %f2;\nDONE:\n  ret;\n"),
           "110", "  in a nested scope, at an offset");
}

static void test_escapes(void)
{
    is_str(reads(PROLOGUE "  mov.u64 %rd20, __local_depot0;\n  st.local.u64 [%rd20], %rd3;\n"
                          "  st.global.f32 [%rd7], %f1;\nDONE:\n  ret;\n"),
           "110", "out stored to local memory escapes");
    is_str(reads(PROLOGUE "  st.global.u64 [%rd7], %rd7;\nDONE:\n  ret;\n"), "110",
           "out stored through itself escapes");
    is_str(reads(PROLOGUE "  {\n  .param .b64 param0;\n  st.param.b64 [param0], %rd3;\n  call.uni use, (param0);\n  }\n"
                          "DONE:\n  ret;\n"),
           "110", "out passed to a .func escapes");
    is_str(reads(PROLOGUE "  mov.u64 %rd21, out;\n  st.global.f32 [%rd7], %f1;\nDONE:\n  ret;\n"), "110",
           "out's address taken counts as read");
    is_str(reads(PROLOGUE "  frobnicate.b64 %rd22, %rd3;\n  st.global.f32 [%rd7], %f1;\nDONE:\n  ret;\n"), "110",
           "an instruction not known here reads what it touches");
    is_str(reads(PROLOGUE "  shfl.sync.idx.b32 %r12|%p3, %r2, 0, 31, -1;\n  st.global.f32 [%rd7], %f1;\n"
                          "DONE:\n  ret;\n"),
           "010", "a warp exchange of the index only computes");
}

/* A struct of two pointers: s.a at 0, s.b at 8. */
static void test_struct(void)
{
    const char *params = ".param .align 8 .b8 s[16], .param .u64 in";
    const char *load = "  ld.param.u64 %rd1, [s];\n  ld.param.u64 %rd2, [s+8];\n  ld.param.u64 %rd3, [in];\n"
                       "  ld.global.f32 %f1, [%rd3];\n";
    char body[1024];
    snprintf(body, sizeof body, "%s  st.global.f32 [%%rd1], %%f1;\n  st.global.f32 [%%rd2], %%f1;\n  ret;\n", load);
    is_str(reads_of(params, 2, body), "01", "a struct of two pointers both written through is only written");
    snprintf(body, sizeof body, "%s  ld.global.f32 %%f2, [%%rd2+4];\n  st.global.f32 [%%rd1], %%f2;\n  ret;\n", load);
    is_str(reads_of(params, 2, body), "11", "  one of them read: the struct counts as read");
}

static void test_errors(void)
{
    ok(strncmp(reads_of(PARAMS, 2, "  ret;\n"), "error: k declares 3 parameters, not 2", 37) == 0,
       "another parameter count is an error");
    unsigned char r[4];
    char err[256] = "";
    const char *junk = "this is not PTX";
    ok(gt_ptxreads(junk, strlen(junk), "k", 0, r, err, sizeof err) != 0 && err[0], "text that is not PTX: %s", err);
    char *text = module(PARAMS, "  ret;\n");
    ok(gt_ptxreads(text, strlen(text), "other", 3, r, err, sizeof err) != 0 && strstr(err, "no entry other"),
       "an entry it lacks: %s", err);
    ok(gt_ptxreads(text, strlen(text), "use", 1, r, err, sizeof err) != 0, "a .func is no entry");
    free(text);
}

/* tests/fixtures/kernels.cu as nvcc compiles it. */
static void test_compiled(void)
{
    size_t size;
    char *text = (char *)fx_read("kernels.ptx", &size), err[256] = "";
    unsigned char r[8];
    is_int(gt_ptxreads(text, size, "scale", 4, r, err, sizeof err), 0, "scale(n, a, x, y) %s", err);
    ok(!r[0] && r[2] && !r[3], "  reads x, only writes y, never dereferences n");
    is_int(gt_ptxreads(text, size, "_Z6reduceIfEvPKT_PS0_i", 3, r, err, sizeof err), 0, "reduce<float> %s", err);
    ok(r[0] && !r[1] && !r[2], "  reads in, only writes out");
    is_int(gt_ptxreads(text, size, "count_hits", 2, r, err, sizeof err), 0, "count_hits %s", err);
    ok(r[0], "  reads its flags");
    is_int(gt_ptxreads(text, size, "mixed", 6, r, err, sizeof err), 0, "mixed %s", err);
    ok(r[5], "  reads out, which it also writes");
    free(text);
}

int main(void)
{
    fx_dir();
    test_writes_and_reads();
    test_chains();
    test_escapes();
    test_struct();
    test_errors();
    test_compiled();
    return done_testing();
}
