/* test_policy: policy files read through inih: sections and keys, values
 * continued on indented lines, [defaults] inheritance, glob selection on
 * mangled and demangled names, spaces built per architecture, launch
 * geometry and signatures evaluated for a launch, files as a list, and
 * settings over every file's (GPUTUNE_SET).
 * (The catalogue of bad files with their messages is tests/policy.t.) */
#include "../policy/policy.h"
#include "tap.h"

#include <unistd.h>

static char dir[64];

static struct gt_policy *load(const char *name, const char *text, struct gt_diags *d, int *rc)
{
    struct gt_policy *p = gt_policy_new();
    *rc = gt_policy_load_string(p, name, text, strlen(text), d);
    return p;
}

static void show(const struct gt_diags *d)
{
    for (size_t i = 0; i < d->n; i++) {
        char line[512];
        gt_diag_format(&d->v[i], line, sizeof line);
        diag("%s", line);
    }
}

static const char full[] =
    "; a policy with every kind of key\n"
    "[defaults]\n"
    "strategy = random\n"
    "strategy.seed_trials = 12\n"
    "budget.trials = 200\n"
    "verify = bitwise\n"
    "watchdog.factor = 2.5\n"
    "\n"
    "[kernel \"gemm*\"]\n"
    "source = gemm.cu\n"
    "options = -O3 \"-DNAME=a b\"\n"
    "options = --use_fast_math\n"
    "link.options = -lineinfo\n"
    "entry = gemm<{TILE}, {UNROLL}>\n"
    "param TILE = 8..64 *2\n"
    "param UNROLL = 1..7 step 3   ; 1, 4, 7\n"
    "param VEC = 1, 2,\n"
    "    4\n"
    "maxrreg = auto\n"
    "cache = none, l1\n"
    "constraint = TILE * UNROLL <= 256\n"
    "constraint = TILE <= orig.block.x\n"
    "block = TILE, TILE / VEC\n"
    "grid = ceil_div(arg.n, block.x), ceil_div(arg.m, TILE)\n"
    "smem = TILE * TILE * 4 + orig.smem\n"
    "independent = UNROLL, VEC\n"
    "baseline = TILE=16 maxrreg=128\n"
    "signature = arg.n, log2(arg[3])\n"
    "snapshot.add = arg[5], arg.out\n"
    "snapshot.skip = arg6\n"
    "strategy = predictor\n"
    "strategy.population = 10\n"
    "budget.seconds = 30\n"
    "verify = tolerance\n"
    "verify.rel = 1e-5\n"
    "verify.type = f64\n"
    "timing.repeat = 5\n"
    "\n"
    "[kernel \"saxpy\"]\n"
    "tune = no\n";

static void everything(void)
{
    char name[128], src[128];
    snprintf(name, sizeof name, "%s/full.ini", dir);
    snprintf(src, sizeof src, "%s/gemm.cu", dir);
    FILE *f = fopen(src, "w");
    fputs("__global__ void gemm() {}\n", f);
    fclose(f);
    struct gt_diags d = {0};
    int rc;
    struct gt_policy *p = load(name, full, &d, &rc);
    is_int(rc, 0, "a policy using every kind of key reads without errors");
    show(&d);
    ok(p->nsections == 2 && p->ndefaults == 1, "two kernel sections and the defaults");
    const struct gt_section *g = p->sections[0];
    is_str(g->pattern, "gemm*", "the first selects gemm*");
    is_int(g->loc.line, 9, "  at line 9");
    is_str(g->source, src, "  its source is found beside the policy file");
    ok(g->noptions == 3 && strcmp(g->options[1], "-DNAME=a b") == 0 && strcmp(g->options[2], "--use_fast_math") == 0,
       "  options accumulate, quotes group words");
    ok(g->nlink_options == 1 && strcmp(g->link_options[0], "-lineinfo") == 0, "  link options");
    is_str(g->entry, "gemm<{TILE}, {UNROLL}>", "  the entry's name expression");
    is_int(g->ndims, 5, "  five dimensions");
    ok(g->ndims == 5 && strcmp(g->dims[0].name, "TILE") == 0 && g->dims[0].n == 4 && g->dims[0].values[3] == 64,
       "  TILE = 8, 16, 32, 64");
    ok(g->ndims == 5 && g->dims[1].n == 3 && g->dims[1].values[2] == 7, "  UNROLL = 1, 4, 7 (the comment is not a value)");
    ok(g->ndims == 5 && g->dims[2].n == 3 && g->dims[2].values[2] == 4, "  VEC continues on the next line");
    ok(g->ndims == 5 && g->dims[3].kind == GT_DIM_MAXRREG && g->dims[3].is_auto == 1, "  maxrreg = auto");
    ok(g->ndims == 5 && g->dims[4].kind == GT_DIM_CACHE && g->dims[4].n == 2, "  cache = none, l1");
    ok(!g->auto_knobs, "  declaring dimensions leaves the automatic knobs out");
    ok(g->ndims == 5 && !g->dims[0].independent && g->dims[1].independent && g->dims[2].independent,
       "  UNROLL and VEC independent, TILE shared");
    is_int(g->nconstraints, 2, "  two constraints");
    ok(g->nblock == 2 && g->ngrid == 2 && g->smem, "  block, grid and smem");
    ok(g->nsignature == 2 && g->argnames.n == 3, "  signature; arg names n, m, out");
    ok(g->nsnap_add == 2 && g->snap_add[0].pos == 5 && g->snap_add[1].pos == -1 &&
       strcmp(g->argnames.v[g->snap_add[1].name], "out") == 0 && g->nsnap_skip == 1 && g->snap_skip[0].pos == 6,
       "  snapshot additions and omissions");
    const struct gt_settings *st = &g->set;
    is_str(st->strategy, "predictor", "  its own strategy");
    is_str(gt_settings_param(st, "population", NULL), "10", "  its strategy parameter");
    is_str(gt_settings_param(st, "seed_trials", NULL), "12", "  and one from [defaults]");
    ok(st->budget_trials == 200 && st->budget_seconds == 30, "  budget: trials from [defaults], seconds its own");
    ok(st->verify == GT_VERIFY_TOLERANCE && st->verify_rel == 1e-5 && st->verify_abs < 0 &&
       st->verify_type == GT_VTYPE_F64, "  verification by tolerance");
    ok(st->watchdog_factor == 2.5 && st->watchdog < 0 && st->timing_repeat == 5, "  watchdog and timing");
    ok(p->sections[1]->set.tune == 0 && strcmp(p->sections[1]->set.strategy, "random") == 0,
       "saxpy: not tuned, strategy inherited");
    ok(p->unnamed.budget_trials == 200 && p->unnamed.tune < 0, "kernels no section names get [defaults]");

    struct gt_arch a;
    gt_arch_for_sm(90, &a);
    struct gt_space *s = gt_policy_space(g, &a, 0, &d);
    ok(s != NULL, "its space builds for sm_90");
    if (!s) {
        show(&d);
        goto out;
    }
    is_int(s->size, 4 * 3 * 3 * 7 * 2, "4 x 3 x 3 x 7 x 2 configurations");
    uint32_t def[8];
    char buf[256];
    gt_space_default(s, def);
    gt_space_format(s, def, buf, sizeof buf);
    is_str(buf, "TILE=16 UNROLL=1 VEC=1 maxrreg=128 cache=none", "the baseline is the default configuration");
    ok(s->dims[1].independent && !s->dims[4].independent, "independence carries over");
    struct gt_space_iter it;
    uint64_t n;
    gt_space_iter_init(&it, s, NULL);
    gt_space_count(&it, 0, &n);
    gt_space_iter_clear(&it);
    /* TILE * UNROLL <= 256: TILE 8, 16, 32: all 3 UNROLL values, 64: 1 and 4 */
    is_int(n, 11 * 3 * 7 * 2, "static constraints only without a launch");

    int64_t args[6] = {1 << 20, 512, 0, 4096, 0, 0};
    int argpos[3] = {0, 1, -1};
    struct gt_launch l = {{10, 10, 1, 32, 1, 1, 1024}, 6, args, NULL, argpos, 3};
    gt_space_iter_init(&it, s, &l);
    gt_space_count(&it, 0, &n);
    gt_space_iter_clear(&it);
    is_int(n, 9 * 3 * 7 * 2, "with a launch, TILE <= orig.block.x too");

    uint32_t cfg[5];
    char err[512];
    ok(gt_space_parse(s, "TILE=32 UNROLL=4 VEC=2 maxrreg=64 cache=l1", 0, cfg, err, sizeof err, NULL) == 0, "a configuration");
    struct gt_geometry geo;
    ok(gt_policy_geometry(g, s, cfg, &l, &a, &geo, err, sizeof err) == 0, "its geometry evaluates");
    ok(geo.block[0] == 32 && geo.block[1] == 16 && geo.block[2] == 1, "  block = 32, 16, 1");
    ok(geo.grid[0] == 32768 && geo.grid[1] == 16 && geo.grid[2] == 1, "  grid from arg.n, block.x, arg.m");
    is_int(geo.smem, 32 * 32 * 4 + 1024, "  smem");
    int64_t sig[4];
    is_int(gt_policy_signature(g, &l, sig, 4, err, sizeof err), 2, "two signature values");
    ok(sig[0] == 1 << 20 && sig[1] == 12, "  arg.n and log2(arg[3])");
    is_int(gt_policy_entry(g, s, cfg, buf, sizeof buf), 11, "the entry's name");
    is_str(buf, "gemm<32, 4>", "  with the configuration's values");

    args[1] = 0; /* arg.m = 0 is fine, but the grid's y becomes 0 */
    ok(gt_policy_geometry(g, s, cfg, &l, &a, &geo, err, sizeof err) < 0, "a grid of 0 is refused");
    snprintf(buf, sizeof buf, "%s:24:8: grid.y = 0 is outside 1..65535", name);
    is_str(err, buf, "  at the grid key");
    argpos[0] = -1;
    ok(gt_policy_geometry(g, s, cfg, &l, &a, &geo, err, sizeof err) < 0, "an argument the kernel lacks");
    snprintf(buf, sizeof buf, "%s:24:17: arg.n: the kernel has no parameter of that name", name);
    is_str(err, buf, "  is located");
    gt_space_free(s);
    s = gt_policy_space(g, &a, GT_SPACE_NO_JIT, &d);
    ok(s && s->dims[3].n == 1 && s->dims[3].values[0] == 0, "without PTX, maxrreg keeps only its default");
    gt_space_free(s);
    struct gt_arch small;
    gt_arch_for_sm(90, &small);
    small.max_warps_per_sm = 32;
    s = gt_policy_space(g, &small, 0, &d);
    ok(s != NULL, "another architecture");
    if (s)
        diag("maxrreg ladder with 32 warps: %zu values", s->dims[3].n);
    ok(s && s->dims[3].n == 5, "  gets its own register ladder");
    gt_space_free(s);
    ok(d.n == 0, "no messages along the way");
    show(&d);
out:
    gt_diags_clear(&d);
    gt_policy_free(p);
    unlink(src);
}

static void matching(void)
{
    struct {
        const char *pattern, *mangled, *demangled;
        int match;
    } cases[] = {
        {"saxpy*", "_Z5saxpyifPKfPf", "saxpy(int, float, float const*, float*)", 1},
        {"saxpy", "_Z5saxpyifPKfPf", "saxpy(int, float, float const*, float*)", 1},
        {"_Z5saxpy*", "_Z5saxpyifPKfPf", "saxpy(int, float, float const*, float*)", 1},
        {"saxpy(int, float, float const\\*, float\\*)", "_Z5saxpyifPKfPf", "saxpy(int, float, float const*, float*)", 1},
        {"sax", "_Z5saxpyifPKfPf", "saxpy(int, float, float const*, float*)", 0},
        {"SAXPY*", "_Z5saxpyifPKfPf", "saxpy(int, float, float const*, float*)", 0},
        {"gemm<128>", "_Z4gemmILi128EEvPf", "void gemm<128>(float*)", 1},
        {"gemm<*>", "_Z4gemmILi128EEvPf", "void gemm<128>(float*)", 1},
        {"gemm<*>(float\\*)", "_Z4gemmILi128EEvPf", "void gemm<128>(float*)", 1},
        {"void gemm*", "_Z4gemmILi128EEvPf", "void gemm<128>(float*)", 1},
        {"gemm<64>", "_Z4gemmILi128EEvPf", "void gemm<128>(float*)", 0},
        {"ns::k", "_ZN2ns1kEi", "ns::k(int)", 1},
        {"*::k", "_ZN2ns1kEi", "ns::k(int)", 1},
        {"(anonymous namespace)::k", "_ZN12_GLOBAL__N_11kEi", "(anonymous namespace)::k(int)", 1},
        {"k?", "k1", NULL, 1},
        {"k[0-9]", "k7", NULL, 1},
        {"k[0-9]", "kx", NULL, 0},
        {"reduce<float, 256>", "x", "void reduce<float, 256>(float const*, float*, int)", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        is_int(gt_policy_match(cases[i].pattern, cases[i].mangled, cases[i].demangled), cases[i].match,
               "'%s' %s %s", cases[i].pattern, cases[i].match ? "selects" : "does not select",
               cases[i].demangled ? cases[i].demangled : cases[i].mangled);

    const char *start;
    size_t n = gt_policy_bare_name("void ns::k<int, (char)3>(int (*)(int), float)", &start);
    ok(n == 19 && strncmp(start, "ns::k<int, (char)3>", n) == 0, "the bare name of a template with a function pointer");
    n = gt_policy_bare_name("plain", &start);
    ok(n == 5 && start[0] == 'p', "a C name is its own bare name");

    struct gt_diags d = {0};
    int rc;
    struct gt_policy *p = load("m.ini",
                               "[kernel \"gemm<64>\"]\nstrategy = greedy\n"
                               "[kernel \"gemm*\"]\nstrategy = random\n"
                               "[kernel \"*\"]\nstrategy = exhaustive\n",
                               &d, &rc);
    const struct gt_section *s = gt_policy_find(p, "_Z4gemmILi64EEvPf", "void gemm<64>(float*)");
    ok(s && strcmp(s->set.strategy, "greedy") == 0, "the first matching section wins");
    s = gt_policy_find(p, "_Z4gemmILi32EEvPf", "void gemm<32>(float*)");
    ok(s && strcmp(s->set.strategy, "random") == 0, "then the next");
    s = gt_policy_find(p, "_Z3fooi", NULL);
    ok(s && strcmp(s->set.strategy, "exhaustive") == 0, "'*' selects everything else, even without a demangled name");
    gt_policy_free(p);
    gt_diags_clear(&d);
}

static void sections_and_lines(void)
{
    struct gt_diags d = {0};
    int rc;
    /* a header far longer than inih's own section buffer */
    char text[4096], pat[600];
    memset(pat, 'x', 500);
    pat[500] = 0;
    snprintf(text, sizeof text, "\xEF\xBB\xBF[kernel \"void %s<int>(float*)\"]  ; long\r\nparam A = 1, 2\r\n", pat);
    struct gt_policy *p = load("long.ini", text, &d, &rc);
    ok(rc == 0 && p->nsections == 1 && strlen(p->sections[0]->pattern) == 518,
       "a 500-character kernel name in a header, with a BOM and CRLF line ends");
    ok(p->nsections == 1 && p->sections[0]->ndims == 1 && p->sections[0]->dims[0].n == 2, "  its keys are read");
    gt_policy_free(p);
    show(&d);
    gt_diags_clear(&d);

    /* a value continued over lines; an error on the third line is placed there */
    p = load("c.ini",
             "[kernel \"k\"]\n"
             "param A = 1, 2\n"
             "constraint = A >= 1 &&\n"
             "   ; a comment between the lines\n"
             "    A <= 2 &&\n"
             "\tA != @\n",
             &d, &rc);
    char msg[256] = "";
    if (d.n)
        gt_diag_format(&d.v[0], msg, sizeof msg);
    ok(rc == 1 && d.n == 1, "one error");
    is_str(msg, "c.ini:6:7: expected a number, a name or '(', found '@'", "placed in the continuation line");
    gt_policy_free(p);
    gt_diags_clear(&d);

    /* a list of 300 values over 30 continuation lines */
    size_t at = (size_t)snprintf(text, sizeof text, "[kernel \"k\"]\nparam A =");
    for (int i = 0; i < 300; i++)
        at += (size_t)snprintf(text + at, sizeof text - at, "%s%d%s", i % 10 ? " " : "\n   ", 3 * i, i < 299 ? "," : "\n");
    p = load("many.ini", text, &d, &rc);
    ok(rc == 0 && p->nsections == 1 && p->sections[0]->dims[0].n == 300 && p->sections[0]->dims[0].values[299] == 897,
       "300 values listed over 30 lines");
    gt_policy_free(p);
    show(&d);
    gt_diags_clear(&d);

    /* [defaults] errors mark every section of the file */
    p = load("e.ini", "[defaults]\nbudget.trials = many\n[kernel \"a\"]\n[kernel \"b\"]\ncache = l1\n", &d, &rc);
    ok(rc == 1 && p->nsections == 2 && p->sections[0]->errors && p->sections[1]->errors,
       "an error in [defaults] marks the file's sections");
    gt_policy_free(p);
    gt_diags_clear(&d);

    /* only the section with the error is marked otherwise */
    p = load("f.ini", "[kernel \"a\"]\ncache = l3\n[kernel \"b\"]\ncache = l1\n", &d, &rc);
    ok(rc == 1 && p->nsections == 2 && p->sections[0]->errors && !p->sections[1]->errors,
       "an error in one section marks that one");
    gt_policy_free(p);
    gt_diags_clear(&d);

    /* a section that declares no dimension gets the automatic knobs */
    p = load("g.ini", "[kernel \"a\"]\nstrategy = random\n[kernel \"b\"]\nauto = no\n[kernel \"c\"]\nparam X = 1, 2\nauto = yes\n",
             &d, &rc);
    ok(rc == 0 && p->sections[0]->auto_knobs && p->sections[0]->ndims == 5, "no dimensions: the automatic knobs");
    ok(!p->sections[1]->auto_knobs && p->sections[1]->ndims == 0, "unless auto = no");
    ok(p->sections[2]->auto_knobs && p->sections[2]->ndims == 6, "auto = yes adds them to parameters");
    struct gt_arch a;
    gt_arch_for_sm(90, &a);
    struct gt_space *s = gt_policy_space(p->sections[0], &a, 0, &d);
    struct gt_space_iter it;
    uint64_t n = 0;
    gt_space_iter_init(&it, s, NULL);
    gt_space_count(&it, 0, &n);
    gt_space_iter_clear(&it);
    is_int(n, 420, "  the same space as a kernel no policy names");
    gt_space_free(s);
    s = gt_policy_space(p->sections[1], &a, 0, &d);
    ok(s && s->ndims == 0 && s->size == 1, "an empty section's space is the original alone");
    gt_space_free(s);
    gt_policy_free(p);
    gt_diags_clear(&d);
}

static void files(void)
{
    char a[128], b[128], list[300];
    snprintf(a, sizeof a, "%s/a.ini", dir);
    snprintf(b, sizeof b, "%s/b.ini", dir);
    FILE *f = fopen(a, "w");
    fputs("[defaults]\nstrategy = random\n[kernel \"k1\"]\n", f);
    fclose(f);
    f = fopen(b, "w");
    fputs("[defaults]\nstrategy = greedy\nbudget.trials = 9\nunnamed = skip\n[kernel \"k2\"]\n", f);
    fclose(f);
    snprintf(list, sizeof list, "%s::%s", a, b);
    struct gt_policy *p = gt_policy_new();
    struct gt_diags d = {0};
    is_int(gt_policy_load_list(p, list, &d), 0, "a list of two files (an empty entry is skipped)");
    ok(p->nfiles == 2 && p->nsections == 2, "  both read");
    ok(strcmp(p->unnamed.strategy, "random") == 0 && p->unnamed.budget_trials == 9 && p->unnamed.unnamed == 0,
       "  the first file to set a default wins");
    ok(strcmp(p->sections[1]->set.strategy, "greedy") == 0, "  a file's defaults apply to its own sections");
    snprintf(list, sizeof list, "%s:%s/missing.ini", a, dir);
    is_int(gt_policy_load_list(p, list, &d), -1, "a missing file");
    char msg[256] = "", want[256];
    if (d.n)
        gt_diag_format(&d.v[d.n - 1], msg, sizeof msg);
    snprintf(want, sizeof want, "%s/missing.ini: cannot read: No such file or directory", dir);
    is_str(msg, want, "  is reported");
    gt_diags_clear(&d);
    gt_policy_free(p);
    unlink(a);
    unlink(b);
}

static void overrides(void)
{
    struct gt_diags d = {0};
    int rc;
    struct gt_policy *p = load("o.ini", "[defaults]\nstrategy = random\nbudget.trials = 9\nstrategy.top = 3\n"
                                        "[kernel \"k1\"]\nbudget.seconds = 5\ntiming.repeat = 7\n"
                                        "side_effects = refuse\n", &d, &rc);
    is_int(rc, 0, "a policy to override");
    is_int(gt_policy_override(p, "  strategy=exhaustive\tbudget.trials=100000 strategy.top=8 ", &d), 0,
           "GPUTUNE_SET words are taken");
    const struct gt_settings *st = &p->sections[0]->set;
    ok(strcmp(st->strategy, "exhaustive") == 0 && st->budget_trials == 100000, "  over a section's settings");
    ok(st->budget_seconds == 5 && st->timing_repeat == 7, "  which keeps those not overridden");
    is_str(gt_settings_param(st, "top", ""), "8", "  strategy parameters too");
    ok(strcmp(p->unnamed.strategy, "exhaustive") == 0 && p->unnamed.budget_trials == 100000,
       "  and over the settings of kernels no section names");
    is_int(gt_policy_override(p, "budget.trials=1 budget.trails=3", &d), 1, "an unknown key is refused");
    char msg[256] = "";
    if (d.n)
        gt_diag_format(&d.v[0], msg, sizeof msg);
    ok(strncmp(msg, "GPUTUNE_SET:2:1: ", 17) == 0 && strstr(msg, "budget.trials"), "  naming the word and the nearest key");
    show(&d);
    ok(p->sections[0]->set.budget_trials == 100000, "  and nothing changes");
    gt_diags_clear(&d);
    ok(p->sections[0]->set.side_effects == GT_SIDE_EFFECTS_REFUSE && p->unnamed.side_effects < 0,
       "side_effects: refuse in the section, unset elsewhere");
    is_int(gt_policy_override(p, "side_effects=allow", &d), 0, "GPUTUNE_SET takes side_effects");
    ok(p->sections[0]->set.side_effects == GT_SIDE_EFFECTS_ALLOW && p->unnamed.side_effects == GT_SIDE_EFFECTS_ALLOW,
       "  over the section's and for kernels no section names");
    is_int(gt_policy_override(p, "param X=1", &d), 1, "a dimension is not a setting");
    gt_diags_clear(&d);
    static const char *const bad[] = {"budget.trials=5 bogus", "budget.trials=5 [kernel", "budget.trials=5 ;x=1",
                                      "budget.trials=5 #", "budget.trials=5 budget.seconds:3",
                                      "budget.trials=5\n[kernel=\"k*\"]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = gt_policy_override(p, bad[i], &d);
        char msg[256] = "";
        if (d.n)
            gt_diag_format(&d.v[0], msg, sizeof msg);
        ok(rc == 1 && d.n == 1 && strncmp(msg, "GPUTUNE_SET:2:1: expected KEY=VALUE, found '", 44) == 0 &&
               p->unnamed.budget_trials == 100000,
           "bad word %zu: refused, named, nothing changes", i + 1);
        show(&d);
        gt_diags_clear(&d);
    }
    is_int(gt_policy_override(p, "", &d), 0, "no words: nothing to do");
    gt_policy_free(p);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/gt-policy-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir))
        skip_all("no temporary folder");
    everything();
    matching();
    sections_and_lines();
    files();
    overrides();
    rmdir(dir);
    return done_testing();
}
