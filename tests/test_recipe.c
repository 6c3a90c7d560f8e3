/* test_recipe: a kernel rebuilt for configurations from each kind of
 * recipe (a source file, the application's NVRTC program, the image's PTX),
 * with the options each configuration must add, and the parameter check
 * that refuses a variant with another layout.  No GPU. */
#include "cubin.h"
#include "image.h"
#include "policy.h"
#include "recipe.h"
#include "registry.h"
#include "tap.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char source[] =
    "#ifndef BLOCK\n#define BLOCK 64\n#endif\n"
    "extern \"C\" __global__ void __launch_bounds__(1024) fill(float *x, int n)\n"
    "{ int i = blockIdx.x * BLOCK + threadIdx.x; if (i < n) x[i] = (float)(BLOCK + ITEMS); }\n";

/* A kernel that checks the trial's deadline itself when built for one. */
static const char checkpointed[] =
    "extern \"C\" __global__ void spin(float *x, int n, int reps)\n"
    "{\n"
    "    float v = 0.0f;\n"
    "    for (int r = 0; r < reps; r++) {\n"
    "#ifdef GPUTUNE_WATCHDOG\n"
    "        if (__syncthreads_or(gputune_expired()))\n"
    "            return;\n"
    "#endif\n"
    "        v += x[(threadIdx.x + r) % n];\n"
    "    }\n"
    "    x[threadIdx.x % n] = v;\n"
    "}\n";

static struct gt_jit jit;

/* 1 if NVRTC gets opt, 2 if nvJitLink does, 0 if neither. */
static int has_option(const struct gt_variant_job *vj, const char *opt)
{
    for (int i = 0; i < vj->job.noptions; i++)
        if (strcmp(vj->job.options[i], opt) == 0)
            return 1;
    for (int i = 0; i < vj->job.nlink_options; i++)
        if (strcmp(vj->job.link_options[i], opt) == 0)
            return 2;
    return 0;
}

static const struct gt_cubin_kernel *kernel_of(struct gt_cubin *c, const struct gt_jit_job *job, const char *name)
{
    char err[128];
    if (!job->ok || gt_cubin_parse(job->cubin, job->cubin_size, c, err, sizeof err) != 0)
        return NULL;
    for (size_t i = 0; i < c->nkernels; i++)
        if (strcmp(c->kernels[i].name, name) == 0)
            return &c->kernels[i];
    return NULL;
}

/* The kernel's own checkpoints build with the watchdog's header, and only then. */
static void test_checkpoints(const struct gt_space *s, const unsigned block[3])
{
    char path[] = "/tmp/gputune-recipe-XXXXXX.cu", err[256];
    int fd = mkstemps(path, 3);
    ok(fd >= 0 && write(fd, checkpointed, sizeof checkpointed - 1) == (ssize_t)(sizeof checkpointed - 1),
       "a kernel with checkpoints of its own");
    close(fd);
    struct gt_recipe r;
    struct gt_variant_job vj;
    uint32_t cfg[4] = {0, 0, 0, 0};
    char *opts[] = {"-DITEMS=1"};
    ok(gt_recipe_from_file(&r, path, opts, 1, NULL, 0, "spin", 90, err, sizeof err) == 0, "its recipe");
    ok(gt_recipe_job(&r, s, cfg, block, NULL, &vj) == 0 && gt_recipe_watchdog(&r, GT_WATCHDOG_LOOPS, &vj) == 0,
       "a job for trials under the watchdog");
    ok(has_option(&vj, "--pre-include=" GT_WATCHDOG_HEADER_NAME) == 1 && vj.job.nheaders == 1 &&
           strcmp(vj.job.include_names[0], GT_WATCHDOG_HEADER_NAME) == 0,
       "NVRTC includes gputune_watchdog.h first");
    gt_jit_build(&jit, NULL, &vj.job);
    ok(vj.job.ok && vj.job.watch.entry, "it builds, with the entry check: %s", vj.job.log ? vj.job.log : vj.job.watch.note);
    ok(vj.job.ptx && strstr(vj.job.ptx, "%globaltimer") && strstr(vj.job.ptx, ".global .align 8 .b8 __gputune_watchdog[24]"),
       "the kernel reads the deadline the header defines");
    gt_variant_job_free(&vj);
    ok(gt_recipe_job(&r, s, cfg, block, NULL, &vj) == 0, "a plain job");
    gt_jit_build(&jit, NULL, &vj.job);
    ok(vj.job.ok && vj.job.ptx && !strstr(vj.job.ptx, "__gputune_watchdog") && !vj.job.watch.entry,
       "builds without the header, the checkpoints or any check");
    gt_variant_job_free(&vj);
    gt_recipe_free(&r);
    unlink(path);
}

static struct gt_space *space_of(void)
{
    struct gt_space *s = gt_space_new();
    const int64_t blocks[] = {64, 128}, regs[] = {0, 32}, dlcm[] = {GT_DLCM_DEFAULT, GT_DLCM_CG}, bounds[] = {0, 1};
    struct gt_loc loc = {"test", 1, 1};
    gt_space_add_dim(s, "BLOCK", GT_DIM_PARAM, blocks, 2, 0, loc);
    gt_space_add_dim(s, "maxrreg", GT_DIM_MAXRREG, regs, 2, 0, loc);
    gt_space_add_dim(s, "dlcm", GT_DIM_DLCM, dlcm, 2, 0, loc);
    gt_space_add_dim(s, "bounds", GT_DIM_BOUNDS, bounds, 2, 0, loc);
    return s;
}

int main(void)
{
    char err[256];
    gt_jit_init(&jit, dlsym);
    if (gt_jit_open(&jit) != 0)
        skip_all(jit.error);
    struct gt_space *s = space_of();
    const struct gt_param fill_params[] = {{0, 8}, {8, 4}};
    const unsigned block[3] = {128, 1, 1};

    char path[] = "/tmp/gputune-recipe-XXXXXX.cu";
    int fd = mkstemps(path, 3);
    ok(fd >= 0 && write(fd, source, sizeof source - 1) == (ssize_t)(sizeof source - 1), "a kernel source file");
    close(fd);
    struct gt_recipe r;
    char *opts[] = {"-DITEMS=2", "-std=c++17"}, *lopts[] = {"-lineinfo"};
    ok(gt_recipe_from_file(&r, path, opts, 2, lopts, 1, "fill", 90, err, sizeof err) == 0, "recipe from a source file");
    uint32_t cfg[4] = {1, 1, 1, 1};
    struct gt_variant_job vj;
    ok(gt_recipe_job(&r, s, cfg, block, NULL, &vj) == 0, "a configuration's job");
    ok(has_option(&vj, "-DBLOCK=128") == 1 && has_option(&vj, "-DITEMS=2") == 1 && has_option(&vj, "-std=c++17") == 1,
       "NVRTC gets the configuration's macros and the policy's options");
    ok(has_option(&vj, "-lineinfo") == 2 && has_option(&vj, "-maxrregcount=32") == 2 &&
           has_option(&vj, "-Xptxas=-dlcm=cg") == 2 && has_option(&vj, "-Xptxas=-maxntid=128,1,1") == 2,
       "nvJitLink gets the policy's link options, the register limit, load cache mode and launch bounds");
    gt_jit_build(&jit, NULL, &vj.job);
    ok(vj.job.ok, "the variant builds: %s", vj.job.log ? vj.job.log : "");
    ok(gt_recipe_check(&vj.job, "fill", fill_params, 2, err, sizeof err) == 0, "its parameters match: %s", err);
    const struct gt_param wrong[] = {{0, 8}, {8, 8}};
    ok(gt_recipe_check(&vj.job, "fill", wrong, 2, err, sizeof err) != 0 &&
           strstr(err, "parameter 1 is 4 bytes at 8 in the variant, 8 bytes at 8 in the original"),
       "another layout is refused: %s", err);
    ok(gt_recipe_check(&vj.job, "fill", fill_params, 3, err, sizeof err) != 0 && strstr(err, "takes 2 parameters"),
       "another parameter count is refused: %s", err);
    ok(gt_recipe_check(&vj.job, "other", fill_params, 2, err, sizeof err) != 0 && strstr(err, "no kernel other"),
       "a missing kernel is refused: %s", err);
    gt_variant_job_free(&vj);
    gt_recipe_free(&r);
    unlink(path);
    ok(gt_recipe_from_file(&r, "/nonexistent/k.cu", NULL, 0, NULL, 0, "fill", 90, err, sizeof err) != 0 &&
           strstr(err, "cannot read kernel source /nonexistent/k.cu"),
       "a missing source file: %s", err);

    char *app_opts[] = {"-arch=compute_75", "--gpu-architecture", "sm_75", "-DBLOCK=32", "-DITEMS=5", "-lineinfo"};
    struct gt_nvrtc_program prog = {.name = "app.cu", .source = (char *)source, .noptions = 6, .options = app_opts};
    ok(gt_recipe_from_nvrtc(&r, &prog, "fill", 90, err, sizeof err) == 0, "recipe from the application's NVRTC program");
    is_int(r.noptions, 3, "its architecture options are dropped");
    uint32_t base[4] = {0, 0, 0, 0};
    gt_recipe_job(&r, s, base, block, NULL, &vj);
    ok(has_option(&vj, "-DBLOCK=64") && !has_option(&vj, "-DBLOCK=32") && has_option(&vj, "-DITEMS=5"),
       "the configuration's macro replaces the application's definition, other macros stay");
    is_int(vj.job.noptions, 3, "the application's options, its macro replaced");
    is_int(vj.job.nlink_options, 0, "default knobs add nothing");
    gt_jit_build(&jit, NULL, &vj.job);
    ok(vj.job.ok, "it builds");
    gt_variant_job_free(&vj);
    gt_recipe_free(&r);

    /* PTX made by building the source to PTX is what an image would carry. */
    static const char ptx[] =
        ".version 8.0\n.target sm_75\n.address_size 64\n\n"
        ".visible .entry fill(.param .u64 fill_param_0, .param .u32 fill_param_1)\n{\n"
        "\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;\n\t.reg .f32 %f<2>;\n"
        "\tld.param.u64 %rd1, [fill_param_0];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
        "\tmov.f32 %f1, 0f40000000;\n\tst.global.f32 [%rd1], %f1;\n\tret;\n}\n";
    struct gt_image img = {.bytes = (const unsigned char *)ptx, .size = sizeof ptx, .format = GT_FMT_PTX};
    err[0] = 0;
    err[0] = 0;
    ok(gt_recipe_from_image(&r, &img, "fill", 90, err, sizeof err) == 0, "recipe from an image's PTX %s", err);
    ok(strstr(r.from, "compute_75") != NULL, "it says what it is built from: %s", r.from);
    gt_recipe_job(&r, s, cfg, block, NULL, &vj);
    ok(!has_option(&vj, "-DBLOCK=128"), "macros do not apply to PTX");
    ok(has_option(&vj, "-maxrregcount=32") == 2 && has_option(&vj, "-Xptxas=-dlcm=cg") == 2 &&
           has_option(&vj, "-Xptxas=-maxntid=128,1,1") == 2,
       "the same knobs for PTX");
    gt_jit_build(&jit, NULL, &vj.job);
    ok(vj.job.ok && gt_recipe_check(&vj.job, "fill", fill_params, 2, err, sizeof err) == 0,
       "the PTX variant builds and keeps the layout");
    gt_variant_job_free(&vj);
    uint32_t bounded[4] = {0, 0, 0, 1};
    gt_recipe_job(&r, s, bounded, block, NULL, &vj);
    gt_jit_build(&jit, NULL, &vj.job);
    struct gt_cubin c;
    const struct gt_cubin_kernel *k = kernel_of(&c, &vj.job, "fill");
    ok(k && k->max_threads[0] == 128, "launch bounds specialize the kernel to the block (max threads %u)",
       k ? k->max_threads[0] : 0);
    if (k)
        gt_cubin_free(&c);
    gt_variant_job_free(&vj);
    gt_recipe_free(&r);
    ok(gt_recipe_from_image(&r, &img, "absent", 90, err, sizeof err) != 0 && strstr(err, "no PTX of the image defines absent"),
       "a kernel the PTX lacks: %s", err);
    struct gt_image sass = {.bytes = (const unsigned char *)"\177ELF", .size = 4, .format = GT_FMT_CUBIN};
    ok(gt_recipe_from_image(&r, &sass, "fill", 90, err, sizeof err) != 0, "a SASS-only image: %s", err);

    test_checkpoints(s, block);
    gt_space_free(s);
    gt_jit_close(&jit);
    return done_testing();
}
