/* test_jit: variants built on the CPU with NVRTC and nvJitLink, the on-disk
 * store of cubins, and the pool that runs builds in parallel.  No GPU. */
#include "cubin.h"
#include "jit.h"
#include "pool.h"
#include "tap.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* A register tile of ITEMS x ITEMS accumulators, so that the macro and a
 * register limit both show in the cubin. */
static const char source[] =
    "extern \"C\" __global__ void heavy(const float *a, const float *b, float *c, int n)\n"
    "{\n"
    "    float acc[ITEMS][ITEMS] = {};\n"
    "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    for (int k = 0; k < n; k++) {\n"
    "        float x[ITEMS], y[ITEMS];\n"
    "#pragma unroll\n"
    "        for (int i = 0; i < ITEMS; i++) { x[i] = a[k * n + t * ITEMS + i]; y[i] = b[k * n + t * ITEMS + i]; }\n"
    "#pragma unroll\n"
    "        for (int i = 0; i < ITEMS; i++)\n"
    "#pragma unroll\n"
    "            for (int j = 0; j < ITEMS; j++) acc[i][j] += x[i] * y[j];\n"
    "    }\n"
    "#pragma unroll\n"
    "    for (int i = 0; i < ITEMS; i++)\n"
    "#pragma unroll\n"
    "        for (int j = 0; j < ITEMS; j++) c[(t * ITEMS + i) * n + j] = acc[i][j];\n"
    "}\n";

static const char ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n\n"
    ".visible .entry touch(.param .u64 p)\n{\n"
    "\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;\n"
    "\tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
    "\tmov.u32 %r1, 7;\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n";

static int regs_of(const struct gt_jit_job *job, const char *kernel)
{
    struct gt_cubin c;
    char err[128];
    int regs = -1;
    if (job->ok && gt_cubin_parse(job->cubin, job->cubin_size, &c, err, sizeof err) == 0) {
        for (size_t i = 0; i < c.nkernels; i++)
            if (strcmp(c.kernels[i].name, kernel) == 0)
                regs = c.kernels[i].regs;
        gt_cubin_free(&c);
    }
    return regs;
}

static struct gt_jit jit;

static void source_job(struct gt_jit_job *job, const char *const *opts, int n)
{
    *job = (struct gt_jit_job){.input = GT_JIT_SOURCE, .text = source, .name = "heavy.cu",
                               .noptions = n, .options = opts, .arch = 90};
}

static const char *const limit32[] = {"-maxrregcount=32"};

struct pooled {
    struct gt_task task;
    struct gt_jit_job job;
    char macro[32];
    const char *opts[1];
};

static void run_pooled(void *arg)
{
    struct pooled *p = arg;
    gt_jit_build(&jit, NULL, &p->job);
}

int main(void)
{
    gt_jit_init(&jit, dlsym);
    if (gt_jit_open(&jit) != 0)
        skip_all(jit.error);
    ok(jit.nvrtc_version >= 12000 && jit.jitlink_version >= 12000, "compiler versions %d and %d", jit.nvrtc_version,
       jit.jitlink_version);

    struct gt_jit_job a, b, c, bad;
    const char *o8[] = {"-DITEMS=2"}, *o32[] = {"-DITEMS=8"};
    source_job(&a, o8, 1);
    source_job(&b, o32, 1);
    source_job(&c, o32, 1);
    c.nlink_options = 1;
    c.link_options = limit32;
    gt_jit_build(&jit, NULL, &a);
    gt_jit_build(&jit, NULL, &b);
    gt_jit_build(&jit, NULL, &c);
    ok(a.ok && b.ok && c.ok, "source builds through NVRTC and nvJitLink, with macros");
    ok(a.ptx && strstr(a.ptx, ".entry heavy"), "the PTX between the two steps is kept");
    int arch = 0;
    int r = gt_cubin_arch(a.cubin, a.cubin_size, &arch);
    ok(r == 0 && arch == 90, "for the exact architecture (sm_%d)", arch);
    int ra = regs_of(&a, "heavy"), rb = regs_of(&b, "heavy"), rc = regs_of(&c, "heavy");
    diag("registers: ITEMS=2 %d, ITEMS=8 %d, ITEMS=8 with -maxrregcount=32 %d", ra, rb, rc);
    ok(ra > 0 && rb > ra, "a larger macro value needs more registers");
    ok(rc > 0 && rc <= 32 && rc < rb, "a register limit caps them");

    const char *bad_opts[] = {"-DITEMS=4", "-DBROKEN=)"};
    source_job(&bad, bad_opts, 2);
    bad.text = "extern \"C\" __global__ void k() { undeclared_thing(); }\n";
    gt_jit_build(&jit, NULL, &bad);
    ok(!bad.ok && !bad.cubin, "a compile error gives no cubin");
    ok(bad.log && strstr(bad.log, "undeclared_thing"), "and keeps the compiler's log");

    struct gt_jit_job p1 = {.input = GT_JIT_PTX, .text = ptx, .name = "touch.ptx", .arch = 90};
    const char *reg[] = {"-maxrregcount=16", "-Xptxas=-dlcm=cg"};
    struct gt_jit_job p2 = {.input = GT_JIT_PTX, .text = ptx, .name = "touch.ptx", .nlink_options = 2,
                            .link_options = reg, .arch = 90};
    gt_jit_build(&jit, NULL, &p1);
    gt_jit_build(&jit, NULL, &p2);
    ok(p1.ok && regs_of(&p1, "touch") > 0, "nvJitLink builds PTX");
    ok(p2.ok, "with a register limit and a load cache mode");
    /* Triton's PTX for an H100 targets sm_90a, which links only for sm_90a. */
    char ptx90a[sizeof ptx + 1];
    const char *target = strstr(ptx, "sm_80");
    snprintf(ptx90a, sizeof ptx90a, "%.*ssm_90a%s", (int)(target - ptx), ptx, target + 5);
    struct gt_jit_job pa = {.input = GT_JIT_PTX, .text = ptx90a, .name = "touch.ptx", .nlink_options = 2,
                            .link_options = reg, .arch = 90};
    gt_jit_build(&jit, NULL, &pa);
    ok(pa.ok && regs_of(&pa, "touch") > 0, "PTX for sm_90a builds for its own target");
    if (!pa.ok)
        diag("%s", pa.log ? pa.log : "(no log)");
    struct gt_jit_job p3 = {.input = GT_JIT_PTX, .text = ".version 8.0\n.target sm_80\n.entry broken(\n", .name = "x.ptx", .arch = 90};
    gt_jit_build(&jit, NULL, &p3);
    ok(!p3.ok && p3.log && *p3.log, "a PTX error gives no cubin and a log");

    char root[] = "/tmp/gputune-store-XXXXXX", err[512];
    ok(mkdtemp(root) != NULL, "temporary cache root");
    struct gt_store store;
    ok(gt_store_open(&store, root, err, sizeof err) == 0, "store opens: %s", err);
    struct gt_jit_job s1, s2;
    source_job(&s1, o8, 1);
    source_job(&s2, o8, 1);
    gt_jit_build(&jit, &store, &s1);
    gt_jit_build(&jit, &store, &s2);
    ok(s1.ok && !s1.from_store && s2.ok && s2.from_store, "the second build of a variant comes from the store");
    ok(s1.cubin_size == s2.cubin_size && memcmp(s1.cubin, s2.cubin, s1.cubin_size) == 0, "with the same bytes");
    diag("build %.3f s, from the store %.6f s", s1.seconds, s2.seconds);
    ok(s2.seconds < s1.seconds, "and faster");

    const char tsrc[] = "template <int N> __global__ void tpl(float *x) { x[threadIdx.x] *= N; }\n";
    struct gt_jit_job t1 = {.input = GT_JIT_SOURCE, .text = tsrc, .name = "tpl.cu", .arch = 90, .name_expr = "tpl<4>"};
    struct gt_jit_job t2 = t1;
    gt_jit_build(&jit, &store, &t1);
    gt_jit_build(&jit, &store, &t2);
    is_str(t1.lowered, "_Z3tplILi4EEvPf", "a template kernel is built from its name expression");
    ok(t2.from_store && t2.lowered && strcmp(t2.lowered, t1.lowered) == 0, "its lowered name is stored with it");
    gt_jit_job_clear(&t1);
    gt_jit_job_clear(&t2);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "for f in %s/cubins/*.cubin; do echo garbage > \"$f\"; done", root);
    ok(system(cmd) == 0, "corrupt the stored cubins");
    struct gt_jit_job s3;
    source_job(&s3, o8, 1);
    gt_jit_build(&jit, &store, &s3);
    ok(s3.ok && !s3.from_store, "a corrupt stored cubin is rebuilt, not loaded");

    chmod(root, 0777);
    ok(gt_store_open(&store, root, err, sizeof err) != 0 && strstr(err, "writable by other users"),
       "a cache directory others can write is refused: %s", err);
    chmod(root, 0700);
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    ok(system(cmd) == 0, "clean up");

    struct gt_pool pool;
    struct pooled jobs[8];
    struct gt_task *tasks[8];
    int nthreads = gt_pool_start(&pool, 4);
    is_int(nthreads, 4, "pool threads");
    for (int i = 0; i < 8; i++) {
        snprintf(jobs[i].macro, sizeof jobs[i].macro, "-DITEMS=%d", i % 4 + 1);
        jobs[i].opts[0] = jobs[i].macro;
        source_job(&jobs[i].job, jobs[i].opts, 1);
        jobs[i].task = (struct gt_task){.fn = run_pooled, .arg = &jobs[i]};
        tasks[i] = &jobs[i].task;
        gt_pool_submit(&pool, &jobs[i].task);
    }
    int finished = 0, built = 0;
    struct gt_task *t;
    while ((t = gt_pool_wait_any(&pool, tasks, 8)) != NULL) {
        for (int i = 0; i < 8; i++)
            if (tasks[i] == t) {
                tasks[i] = NULL;
                built += jobs[i].job.ok;
            }
        finished++;
    }
    is_int(finished, 8, "every pooled build finishes once");
    is_int(built, 8, "and succeeds");
    gt_pool_stop(&pool);

    struct gt_jit_job *all[] = {&a, &b, &c, &bad, &p1, &p2, &pa, &p3, &s1, &s2, &s3};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        gt_jit_job_clear(all[i]);
    for (int i = 0; i < 8; i++)
        gt_jit_job_clear(&jobs[i].job);
    gt_jit_close(&jit);
    return done_testing();
}
