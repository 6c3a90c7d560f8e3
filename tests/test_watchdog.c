/* test_watchdog: the watchdog's PTX instrumentation, on the kernels of
 * fixtures/watchdog_kernels.cu (as nvcc compiles them) and on hand-written
 * corners: where each check goes, what is left alone and why, and that
 * every instrumented module assembles with nvJitLink for sm_90.  No GPU. */
#include "fixtures.h"
#include "jit.h"
#include "policy.h"
#include "ptx.h"
#include "watchdog.h"

#include <dlfcn.h>

static struct gt_jit jit;
static char *kernels_ptx;

static size_t count(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

/* Builds PTX for sm_90; 1 when nvJitLink took it. */
static int assembles(const char *ptx, const char *name)
{
    struct gt_jit_job job = {.input = GT_JIT_PTX, .text = ptx, .name = name, .arch = 90};
    gt_jit_build(&jit, NULL, &job);
    int ok = job.ok;
    if (!ok)
        diag("%s: %s", name, job.log ? job.log : "no log");
    gt_jit_job_clear(&job);
    return ok;
}

static int inside_another(const struct gt_ptx_func *f, unsigned i)
{
    for (unsigned j = 0; j < f->nloops; j++)
        if (j != i && f->loops[j].offset < f->loops[i].offset && f->loops[i].back <= f->loops[j].back)
            return 1;
    return 0;
}

/* Every outermost loop head of f in `text` is followed by a loop check,
 * and no loop inside another one is. */
static int loops_checked(const char *text, const struct gt_ptx_func *f)
{
    for (unsigned i = 0; i < f->nloops; i++) {
        const char *colon = strchr(text + f->loops[i].offset, ':');
        int checked = colon && strncmp(colon + 1, "\n\t{ // gputune watchdog: loop check", 35) == 0;
        if (checked == inside_another(f, i))
            return 0;
    }
    return 1;
}

static const char stop_tail[] = "\texit;\n\t}\n";

struct expect {
    const char *kernel;
    int loop_checks, barrier_checks, open_loops; /* -1: any */
    const char *note;                            /* a part of the report's note */
};

static void check_kernel(const struct expect *e)
{
    struct gt_wd_report rep;
    char *out = NULL, err[256] = "";
    int rc = gt_watchdog_instrument(kernels_ptx, e->kernel, GT_WATCHDOG_LOOPS, &out, &rep, err, sizeof err);
    is_int(rc, 0, "%s: instrumented (%s)", e->kernel, rc < 0 ? err : rep.note);
    if (rc != 0)
        return;
    ok(rep.entry && (e->loop_checks < 0 || rep.loop_checks == e->loop_checks) &&
           rep.barrier_checks == e->barrier_checks && (e->open_loops < 0 || rep.open_loops == e->open_loops),
       "  %d loop-head, %d barrier checks, %d loops left open", rep.loop_checks, rep.barrier_checks, rep.open_loops);
    ok(!e->note || strstr(rep.note, e->note), "  the note says why: %s", rep.note);
    struct gt_ptx_module m, original;
    ok(gt_ptx_parse(out, strlen(out), &m, err, sizeof err) == 0, "  the result parses %s", err);
    gt_ptx_parse(kernels_ptx, strlen(kernels_ptx), &original, err, sizeof err);
    const struct gt_ptx_func *k = gt_ptx_find(&m, e->kernel), *k0 = gt_ptx_find(&original, e->kernel);
    ok(k && strncmp(out + k->body + 1, "\n\t// gputune watchdog: entry check", 34) == 0,
       "  the entry check opens the kernel's body");
    if (rep.loop_checks) {
        int all = k && loops_checked(out, k);
        for (unsigned i = 0; k && i < k->ncalls; i++)
            all &= loops_checked(out, &m.funcs[k->calls[i]]);
        ok(all && count(out, "gputune watchdog: loop check") == (size_t)rep.loop_checks,
           "  every outermost loop head starts with its check, no inner one does");
    }
    if (rep.barrier_checks)
        ok(k && k0 && k->nbarriers + rep.barrier_checks == k0->nbarriers &&
               count(out, "gputune watchdog: barrier check") == (size_t)rep.barrier_checks &&
               count(out, "bar.red.or.pred %gtw_p, 0, %gtw_q;") == (size_t)rep.barrier_checks,
           "  the first bar.sync 0 of each loop became a barrier that decides, the others stay");
    ok(count(out, "trap") == count(kernels_ptx, "trap"), "  no trap added");
    ok(count(out, "gputune watchdog:") - count(out, "gputune watchdog: stop") ==
           (size_t)(1 + rep.loop_checks + rep.barrier_checks),
       "  no other check anywhere");
    ok(k && count(out, "@%gtw_p bra $gtw_stop;") == (size_t)(1 + rep.loop_checks + rep.barrier_checks) &&
           strstr(out + k->body, "$gtw_stop: // gputune watchdog: stop") &&
           strncmp(out + k->end - 1 - strlen(stop_tail), stop_tail, strlen(stop_tail)) == 0,
       "  each check branches to the stop block that ends the kernel");
    ok(assembles(out, e->kernel), "  assembles for sm_90");
    gt_ptx_free(&m);
    gt_ptx_free(&original);
    free(out);
}

static void test_kernels(void)
{
    static const struct expect want[] = {
        {"wd_loop", 1, 0, 0, "1 loop-head"},
        {"wd_nested", 1, 0, 0, NULL}, /* the outer loop's check bounds the inner one's */
        {"wd_tiled", 0, 2, 0, "2 barrier checks"},
        {"wd_reduce", 0, 1, 2, "no block barrier inside"},
        {"wd_shuffle", 0, 0, 1, "warp-collective"},
        {"wd_calls", 2, 0, 0, NULL},
        {"wd_vote_block", 0, 0, 1, "barrier 0 with arrive, red or a thread count"},
        {"wd_async", 0, 0, 1, "asynchronous"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        check_kernel(&want[i]);

    struct gt_wd_report rep;
    char *out = NULL, err[256] = "";
    is_int(gt_watchdog_instrument(kernels_ptx, "wd_cluster", GT_WATCHDOG_LOOPS, &out, &rep, err, sizeof err), 1,
           "wd_cluster: left as it is");
    ok(!out && strstr(rep.note, "clusters"), "  because of its clusters: %s", rep.note);

    is_int(gt_watchdog_instrument(kernels_ptx, "wd_nested", GT_WATCHDOG_ENTRY, &out, &rep, err, sizeof err), 0,
           "entry mode instruments wd_nested");
    ok(out && rep.entry && rep.loop_checks == 0 && rep.open_loops == 2 && strstr(rep.note, "set to entry") &&
           count(out, "gputune watchdog: entry check") == 1 && !strstr(out, "loop check") &&
           !strstr(out, "%gtw_dl"),
       "  with the entry check alone: %s", rep.note);
    ok(out && assembles(out, "wd_nested entry"), "  assembles");
    free(out);

    const char *wd_calls_entry = NULL;
    is_int(gt_watchdog_instrument(kernels_ptx, "wd_calls", GT_WATCHDOG_LOOPS, &out, &rep, err, sizeof err), 0,
           "wd_calls again");
    if (out) {
        struct gt_ptx_module m;
        if (gt_ptx_parse(out, strlen(out), &m, err, sizeof err) == 0) {
            const struct gt_ptx_func *k = gt_ptx_find(&m, "wd_calls");
            wd_calls_entry = k ? strstr(out + k->body, "%gtw_dl") : NULL;
            ok(!wd_calls_entry || wd_calls_entry > out + k->end, "  a kernel without loops of its own keeps no deadline register");
            gt_ptx_free(&m);
        }
        ok(count(out, "\tld.global.ca.u64 %gtw_d, [__gputune_watchdog];") == 2,
           "  the called function's checks read the deadline themselves");
    }
    free(out);

    is_int(gt_watchdog_instrument(kernels_ptx, "wd_loop", GT_WATCHDOG_OFF, &out, &rep, err, sizeof err), 1,
           "off leaves the kernel alone");
    ok(!out, "  and makes nothing");
}

/* A guarded barrier in a device function, a barrier in the kernel, and a
 * variable a source variant defined through gputune_watchdog.h. */
static const char handmade[] =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    "\n"
    ".visible .global .align 8 .u64 __gputune_watchdog[3] = {0xFFFFFFFFFFFFFFFF, 0, 0};\n"
    ".func step(.param .b32 x)\n"
    "{\n"
    "\t.reg .pred %p<2>;\n"
    "\t.reg .b32 %r<2>;\n"
    "\tld.param.b32 %r1, [x];\n"
    "\tsetp.eq.s32 %p1, %r1, 0;\n"
    "\t@!%p1 barrier.sync 0;\n"
    "\tret;\n"
    "}\n"
    ".visible .entry twice(.param .u32 n)\n"
    "{\n"
    "\t.reg .pred %p<2>;\n"
    "\t.reg .b32 %r<3>;\n"
    "\tld.param.u32 %r1, [n];\n"
    "\tmov.u32 %r2, 0;\n"
    "AGAIN:\n"
    "\tbar.sync 0;\n"
    "\t{\n"
    "\t.param .b32 a;\n"
    "\tst.param.b32 [a], %r2;\n"
    "\tcall.uni step, (a);\n"
    "\t}\n"
    "\tadd.u32 %r2, %r2, 1;\n"
    "\tsetp.lt.u32 %p1, %r2, %r1;\n"
    "\t@%p1 bra AGAIN;\n"
    "\tret;\n"
    "}\n";

static void test_handmade(void)
{
    struct gt_wd_report rep;
    char *out = NULL, err[256] = "";
    is_int(gt_watchdog_instrument(handmade, "twice", GT_WATCHDOG_LOOPS, &out, &rep, err, sizeof err), 0,
           "hand-written: instrumented %s", err);
    ok(rep.barrier_checks == 2 && rep.open_loops == 0,
       "  the loop's barrier decides, so does one without .aligned outside it: %s", rep.note);
    ok(out && strstr(out, "\t@!%p1 barrier.red.or.pred %gtw_p, 0, %gtw_q;\n"),
       "  a guarded barrier keeps its guard and its spelling");
    ok(out && count(out, "__gputune_watchdog[3]") == 1, "  a variable the module defines is not defined again");
    ok(out && assembles(out, "handmade"), "  assembles");
    free(out);

    static const char plain[] = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
    is_int(gt_watchdog_instrument(plain, "k", GT_WATCHDOG_LOOPS, &out, &rep, err, sizeof err), 0, "a bare kernel");
    ok(out && strstr(out, ".address_size 64\n.visible .global .align 8 .u64 __gputune_watchdog[3]"),
       "  gets the variable after the header");
    ok(out && assembles(out, "bare"), "  assembles");
    free(out);
}

static void test_errors(void)
{
    struct gt_wd_report rep;
    char *out = NULL, err[256] = "";
    is_int(gt_watchdog_instrument(kernels_ptx, "no_such_kernel", GT_WATCHDOG_LOOPS, &out, &rep, err, sizeof err), -1,
           "an unknown kernel");
    ok(strstr(err, "no kernel no_such_kernel") != NULL, "  is named: %s", err);
    is_int(gt_watchdog_instrument(kernels_ptx, "_Z9wd_seriesPKfii", GT_WATCHDOG_LOOPS, &out, &rep, err, sizeof err),
           -1, "a device function is no kernel");
    is_int(gt_watchdog_instrument("not ptx at all", "k", GT_WATCHDOG_LOOPS, &out, &rep, err, sizeof err), -1,
           "text that is not PTX");
    ok(strstr(err, "not PTX") != NULL, "  says so: %s", err);
    static const char declared[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                                   ".extern .global .align 8 .u64 __gputune_watchdog[3];\n"
                                   ".visible .entry k()\n{\n\tret;\n}\n";
    is_int(gt_watchdog_instrument(declared, "k", GT_WATCHDOG_LOOPS, &out, &rep, err, sizeof err), -1,
           "a module that only declares the variable");
    ok(strstr(err, "without defining it") != NULL, "  says so: %s", err);
    ok(out == NULL, "  and makes nothing");
}

static int same_key(struct gt_key x, struct gt_key y)
{
    return x.a == y.a && x.b == y.b;
}

/* The compiler adds the checks when a job asks, and keys the cubin apart. */
static void test_jit(void)
{
    struct gt_jit_job plain = {.input = GT_JIT_PTX, .text = kernels_ptx, .name = "wk.ptx", .arch = 90};
    struct gt_jit_job checked = plain;
    checked.watchdog = GT_WATCHDOG_LOOPS;
    checked.kernel = "wd_tiled";
    gt_jit_build(&jit, NULL, &checked);
    ok(checked.ok && checked.watch.entry && checked.watch.barrier_checks == 2, "a job with the watchdog: %s",
       checked.watch.note);
    ok(!same_key(gt_jit_key(&jit, &plain), checked.key),
       "  is stored apart from the plain build");
    struct gt_jit_job other = plain;
    other.watchdog = GT_WATCHDOG_LOOPS;
    other.kernel = "wd_loop";
    ok(!same_key(gt_jit_key(&jit, &other), checked.key),
       "  and apart from another kernel's checks");
    gt_jit_job_clear(&checked);
    struct gt_jit_job cluster = plain;
    cluster.watchdog = GT_WATCHDOG_LOOPS;
    cluster.kernel = "wd_cluster";
    gt_jit_build(&jit, NULL, &cluster);
    ok(cluster.ok && !cluster.watch.entry && strstr(cluster.watch.note, "clusters"),
       "a kernel that cannot take checks is built as it is: %s", cluster.watch.note);
    gt_jit_job_clear(&cluster);
}

int main(void)
{
    size_t size;
    fx_dir();
    kernels_ptx = (char *)fx_read("watchdog_kernels.ptx", &size);
    gt_jit_init(&jit, dlsym);
    if (gt_jit_open(&jit) != 0)
        skip_all("NVRTC or nvJitLink is not available");
    test_kernels();
    test_handmade();
    test_errors();
    test_jit();
    free(kernels_ptx);
    gt_jit_close(&jit);
    return done_testing();
}
