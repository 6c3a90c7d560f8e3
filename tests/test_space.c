/* test_space: dimensions, constraint filtering against brute force, pruned
 * counting of large spaces, rank/unrank, configurations as text and back,
 * knobs, configurations known as the original from their text, and the
 * automatic space per architecture. */
#include "../policy/space.h"
#include "tap.h"

#include <time.h>

static const struct gt_loc here = {"test", 1, 1};

static struct gt_space *block_items(void)
{
    static const int64_t block[] = {32, 64, 128, 256}, items[] = {1, 2, 4, 8};
    struct gt_space *s = gt_space_new();
    gt_space_add_dim(s, "BLOCK", GT_DIM_PARAM, block, 4, 0, here);
    gt_space_add_dim(s, "ITEMS", GT_DIM_PARAM, items, 4, 0, here);
    return s;
}

static int add_constraint(struct gt_space *s, const char *text, unsigned allow)
{
    struct gt_expr_scope sc;
    gt_space_scope(s, allow, &sc);
    struct gt_diags d = {0};
    struct gt_expr *e;
    int r = gt_expr_compile(text, strlen(text), 0, NULL, &sc, &e, &d);
    if (r == 0)
        r = gt_space_add_constraint(s, e, 1);
    for (size_t i = 0; i < d.n; i++)
        diag("%s", d.v[i].msg);
    gt_diags_clear(&d);
    return r;
}

static uint64_t count_of(const struct gt_space *s, const struct gt_launch *l)
{
    struct gt_space_iter it;
    uint64_t n = 0;
    if (gt_space_iter_init(&it, s, l) < 0 || gt_space_count(&it, 0, &n) != GT_OK)
        n = (uint64_t)-1;
    gt_space_iter_clear(&it);
    return n;
}

/* Enumeration gives exactly the configurations gt_space_check accepts, in
 * rank order. */
static void agrees_with_brute_force(const struct gt_space *s, const struct gt_launch *l, const char *name)
{
    struct gt_space_iter it;
    uint32_t cfg[16];
    uint64_t expect = 0, got = 0, bad = 0;
    long long last = -1;
    gt_space_iter_init(&it, s, l);
    for (uint64_t r = 0; r < s->size; r++) {
        gt_space_unrank(s, r, cfg);
        if (gt_space_check(s, cfg, l, NULL) != 1)
            continue;
        expect++;
        if (gt_space_iter_next(&it) != 1 || gt_space_rank(s, it.cfg) != r)
            bad++;
        got++;
        last = (long long)r;
    }
    ok(gt_space_iter_next(&it) == 0 && bad == 0, "%s: enumeration lists the %llu accepted configurations in rank order",
       name, (unsigned long long)got);
    gt_space_iter_clear(&it);
    is_int(count_of(s, l), expect, "%s: count agrees", name);
    (void)last;
}

static void filtering(void)
{
    struct gt_space *s = block_items();
    is_int(s->size, 16, "4 x 4 configurations");
    is_int(count_of(s, NULL), 16, "all of them without constraints");
    ok(add_constraint(s, "BLOCK * ITEMS <= 512", 0) == 0, "a constraint compiles against the space");
    is_int(count_of(s, NULL), 13, "13 satisfy BLOCK * ITEMS <= 512");
    agrees_with_brute_force(s, NULL, "one constraint");

    struct gt_space_iter it;
    gt_space_iter_init(&it, s, NULL);
    char line[128], all[2048] = "";
    while (gt_space_iter_next(&it) == 1) {
        gt_space_format(s, it.cfg, line, sizeof line);
        strcat(all, line);
        strcat(all, "\n");
    }
    gt_space_iter_clear(&it);
    is_str(all,
           "BLOCK=32 ITEMS=1\nBLOCK=32 ITEMS=2\nBLOCK=32 ITEMS=4\nBLOCK=32 ITEMS=8\n"
           "BLOCK=64 ITEMS=1\nBLOCK=64 ITEMS=2\nBLOCK=64 ITEMS=4\nBLOCK=64 ITEMS=8\n"
           "BLOCK=128 ITEMS=1\nBLOCK=128 ITEMS=2\nBLOCK=128 ITEMS=4\nBLOCK=256 ITEMS=1\nBLOCK=256 ITEMS=2\n",
           "enumeration order: the last dimension fastest");

    ok(add_constraint(s, "BLOCK >= 64", 0) == 0, "a second constraint, on the first dimension only");
    is_int(count_of(s, NULL), 9, "both must hold: 9 left");
    agrees_with_brute_force(s, NULL, "two constraints");
    ok(add_constraint(s, "0", 0) == 0, "a constraint that is always false");
    is_int(count_of(s, NULL), 0, "empties the space");
    gt_space_free(s);
}

static void launch_constraints(void)
{
    struct gt_space *s = block_items();
    add_constraint(s, "BLOCK <= orig.block.x", GT_USES_ORIG);
    add_constraint(s, "ITEMS * BLOCK <= arg[0]", GT_USES_ARG);
    ok(s->cons[0].launch && s->cons[1].launch, "constraints reading orig.* and arguments depend on the launch");
    add_constraint(s, "BLOCK * ITEMS <= 2048", 0);
    is_int(gt_space_launch_constraints(s), 2, "they are counted, one that reads neither is not");
    is_int(count_of(s, NULL), 16, "without a launch they are not applied");
    int64_t args[1] = {256};
    struct gt_launch l = {{1, 1, 1, 128, 1, 1, 0}, 1, args, NULL, NULL, 0};
    is_int(count_of(s, &l), 9, "with one: BLOCK <= 128 and BLOCK * ITEMS <= 256");
    agrees_with_brute_force(s, &l, "launch constraints");
    gt_space_free(s);
}

static void evaluation_failures(void)
{
    struct gt_space *s = block_items();
    add_constraint(s, "ITEMS / (BLOCK - 64) >= 0", 0);
    struct gt_space_iter it;
    gt_space_iter_init(&it, s, NULL);
    int n = 0;
    while (gt_space_iter_next(&it) == 1)
        n++;
    is_int(n, 12, "configurations whose constraint fails to evaluate are left out");
    is_int(it.failures, 4, "each of them counted as a failure");
    char cfg[64] = "", why[128] = "";
    gt_space_format(s, it.fault_cfg, cfg, sizeof cfg);
    gt_expr_error_text(s->cons[it.fault.con].e, &it.fault.err, why, sizeof why);
    is_str(cfg, "BLOCK=64 ITEMS=1", "the first failing configuration is kept");
    is_str(why, "division by zero", "with why it failed");
    gt_space_iter_clear(&it);
    struct gt_space_fault f;
    uint32_t c[2] = {1, 0};
    is_int(gt_space_check(s, c, NULL, &f), -1, "gt_space_check reports the failure");
    ok(f.con == 0 && f.error, "and which constraint");
    gt_space_free(s);
}

static void large_spaces(void)
{
    int64_t v[20];
    for (int i = 0; i < 20; i++)
        v[i] = i;
    struct gt_space *s = gt_space_new();
    const char *names[] = {"A", "B", "C", "D", "E", "F"};
    for (int i = 0; i < 6; i++)
        gt_space_add_dim(s, names[i], GT_DIM_PARAM, v, 20, 0, here);
    is_int(s->size, 64000000, "six dimensions of 20 values: 64 million configurations");
    add_constraint(s, "A + B < 3", 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t n = count_of(s, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    is_int(n, 6 * 160000, "a constraint on the first two dimensions: 6 x 20^4 configurations");
    ok(ms < 100, "counted without visiting them (%.2f ms)", ms);

    add_constraint(s, "(C + D + E + F) % 7 == 0", 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct gt_space_iter it;
    gt_space_iter_init(&it, s, NULL);
    uint64_t listed = 0;
    while (gt_space_iter_next(&it) == 1)
        listed++;
    gt_space_iter_clear(&it);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    is_int(listed, count_of(s, NULL), "a constraint on the last four: listing and counting agree");
    diag("%llu of 960000 candidates listed in %.1f ms", (unsigned long long)listed, ms);
    ok(ms < 2000, "filtering ~1 million candidates takes under 2 s");
    uint64_t limited;
    gt_space_iter_init(&it, s, NULL);
    is_int(gt_space_count(&it, 1000, &limited), GT_TOO_LARGE, "a count can be bounded");
    gt_space_iter_clear(&it);

    int64_t *big = calloc(65536, sizeof *big);
    for (int i = 0; i < 65536; i++)
        big[i] = i;
    struct gt_space *h = gt_space_new();
    int r = 0;
    for (int i = 0; i < 4 && r == GT_OK; i++)
        r = gt_space_add_dim(h, names[i], GT_DIM_PARAM, big, 65536, 0, here);
    is_int(r, GT_TOO_LARGE, "a space past 2^62 configurations is refused");
    is_str(gt_rc_name(r), "too large", "  and its result is named");
    free(big);
    gt_space_free(h);
    gt_space_free(s);
}

static void ranks(void)
{
    struct gt_space *s = block_items();
    static const int64_t c[] = {GT_CACHE_DEFAULT, GT_CACHE_L1, GT_CACHE_SHARED};
    gt_space_add_dim(s, "cache", GT_DIM_CACHE, c, 3, 0, here);
    int bad = 0;
    uint32_t cfg[3];
    for (uint64_t r = 0; r < s->size; r++) {
        gt_space_unrank(s, r, cfg);
        bad += gt_space_rank(s, cfg) != r;
    }
    is_int(bad, 0, "rank(unrank(r)) == r for all 48");
    gt_space_unrank(s, 47, cfg);
    ok(cfg[0] == 3 && cfg[1] == 3 && cfg[2] == 2, "the last rank is the last value of each dimension");
    gt_space_free(s);
}

static struct gt_space *knob_space(void)
{
    struct gt_space *s = block_items();
    static const int64_t cache[] = {GT_CACHE_DEFAULT, GT_CACHE_NONE, GT_CACHE_SHARED, GT_CACHE_L1, GT_CACHE_EQUAL},
                         carve[] = {GT_CARVEOUT_DEFAULT, 0, 50, 100}, regs[] = {0, 32, 64},
                         dlcm[] = {GT_DLCM_DEFAULT, GT_DLCM_CA, GT_DLCM_CG, GT_DLCM_CS, GT_DLCM_LU, GT_DLCM_CV},
                         bounds[] = {0, 1}, minb[] = {0, 2};
    gt_space_add_dim(s, "cache", GT_DIM_CACHE, cache, 5, 0, here);
    gt_space_add_dim(s, "carveout", GT_DIM_CARVEOUT, carve, 4, 0, here);
    gt_space_add_dim(s, "maxrreg", GT_DIM_MAXRREG, regs, 3, 0, here);
    gt_space_add_dim(s, "dlcm", GT_DIM_DLCM, dlcm, 6, 0, here);
    gt_space_add_dim(s, "bounds", GT_DIM_BOUNDS, bounds, 2, 0, here);
    gt_space_add_dim(s, "minblocks", GT_DIM_MINBLOCKS, minb, 2, 0, here);
    return s;
}

static void text_round_trip(void)
{
    struct gt_space *s = knob_space();
    uint32_t cfg[8], back[8];
    char buf[256], err[256];
    int bad = 0;
    for (uint64_t r = 0; r < s->size; r++) {
        gt_space_unrank(s, r, cfg);
        gt_space_format(s, cfg, buf, sizeof buf);
        memset(back, 0xff, sizeof back);
        if (gt_space_parse(s, buf, 0, back, err, sizeof err, NULL) < 0 || memcmp(cfg, back, s->ndims * sizeof *cfg)) {
            if (!bad++)
                diag("'%s' did not come back: %s", buf, err);
        }
    }
    is_int(bad, 0, "all %llu configurations print and parse back", (unsigned long long)s->size);

    uint32_t c[8] = {2, 1, 3, 1, 2, 3, 1, 1};
    gt_space_format(s, c, buf, sizeof buf);
    is_str(buf, "BLOCK=128 ITEMS=2 cache=l1 carveout=0 maxrreg=64 dlcm=cs bounds=on minblocks=2", "a configuration as text");
    ok(gt_space_parse(s, "minblocks=2 bounds=on dlcm=cs maxrreg=64 carveout=0 cache=l1 ITEMS=2 BLOCK=128", 0, back,
                      err, sizeof err, NULL) == 0 && memcmp(c, back, 8 * sizeof *c) == 0,
       "names may come in any order");
    gt_space_knobs(s, c, &(struct gt_knobs){0});
    struct gt_knobs k;
    gt_space_knobs(s, c, &k);
    ok(k.cache == GT_CACHE_L1 && k.carveout == 0 && k.maxrreg == 64 && k.dlcm == GT_DLCM_CS && k.bounds == 1 &&
       k.minblocks == 2, "the knobs of a configuration");

    struct {
        const char *text, *msg;
        size_t off;
    } bad_texts[] = {
        {"BLOCK=128 ITEMZ=2", "unknown dimension 'ITEMZ'; did you mean 'ITEMS'?", 10},
        {"BLOCK=128 BLOCK=64", "'BLOCK' is given twice", 10},
        {"BLOCK=100", "BLOCK=100 is not one of its values (32, 64, 128, 256)", 6},
        {"BLOCK=128 cache=L1", "cache=L1 is not one of its values (default, none, shared, l1, equal)", 16},
        {"BLOCK=128 maxrreg=none", "maxrreg=none is not one of its values (default, 32, 64)", 18},
        {"BLOCK 128", "expected NAME=VALUE, found 'BLOCK'", 0},
        {"=5", "expected NAME=VALUE, found '=5'", 0},
        {"BLOCK=128", "'ITEMS' is missing", 9},
    };
    for (size_t i = 0; i < sizeof bad_texts / sizeof bad_texts[0]; i++) {
        size_t off = 999;
        int r = gt_space_parse(s, bad_texts[i].text, 0, back, err, sizeof err, &off);
        ok(r < 0, "'%s' is refused", bad_texts[i].text);
        is_str(err, bad_texts[i].msg, "  with its message");
        is_int(off, bad_texts[i].off, "  at byte %zu", bad_texts[i].off);
    }
    gt_space_default(s, back);
    ok(gt_space_parse(s, "ITEMS=8", GT_PARSE_PARTIAL, back, err, sizeof err, NULL) == 0 && back[1] == 3 && back[0] == 0,
       "a partial configuration keeps the other values");
    gt_space_free(s);

    struct gt_space *empty = gt_space_new();
    gt_space_format(empty, NULL, buf, sizeof buf);
    is_str(buf, "", "a space without dimensions has one, empty, configuration");
    is_int(count_of(empty, NULL), 1, "and counts one");
    ok(gt_space_parse(empty, "  ", 0, NULL, err, sizeof err, NULL) == 0, "which parses back");
    gt_space_free(empty);
}

static void knob_values(void)
{
    struct {
        enum gt_dim_kind kind;
        const char *word;
        int ok;
        int64_t v;
    } cases[] = {
        {GT_DIM_CACHE, "shared", 1, GT_CACHE_SHARED}, {GT_DIM_CACHE, "L1", 0, 0},
        {GT_DIM_CARVEOUT, "default", 1, GT_CARVEOUT_DEFAULT}, {GT_DIM_CARVEOUT, "100", 1, 100},
        {GT_DIM_CARVEOUT, "101", 0, 0}, {GT_DIM_MAXRREG, "255", 1, 255}, {GT_DIM_MAXRREG, "8", 0, 0},
        {GT_DIM_DLCM, "cv", 1, GT_DLCM_CV}, {GT_DIM_BOUNDS, "on", 1, 1}, {GT_DIM_BOUNDS, "yes", 0, 0},
        {GT_DIM_MINBLOCKS, "33", 0, 0}, {GT_DIM_PARAM, "-12", 1, -12}, {GT_DIM_PARAM, "12x", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t v = -99;
        const char *expect;
        int r = gt_knob_parse_value(cases[i].kind, cases[i].word, strlen(cases[i].word), &v, &expect);
        ok((r == 0) == cases[i].ok && (!cases[i].ok || v == cases[i].v), "%s=%s %s", gt_knob_name(cases[i].kind),
           cases[i].word, cases[i].ok ? "is a value" : "is refused");
    }
    is_int(gt_knob_kind("dlcm", 4), GT_DIM_DLCM, "knobs by name");
    is_int(gt_knob_kind("param", 5), -1, "param is not a knob");
    struct gt_arch a;
    gt_arch_for_sm(75, &a);
    char why[128] = "";
    ok(gt_knob_check_arch(GT_DIM_MAXRREG, 255, &a, why, sizeof why) == 0, "255 registers fit sm_75");
    a.max_regs_per_thread = 128;
    ok(gt_knob_check_arch(GT_DIM_MAXRREG, 200, &a, why, sizeof why) < 0, "200 do not fit a 128-register limit");
    is_str(why, "maxrreg 200 exceeds sm_75's 128 registers per thread", "  and the message says so");
}

/* What run mode may tell from a cache entry's text without its kernel's space. */
static void original_texts(void)
{
    static const struct {
        const char *text;
        int original;
    } cases[] = {
        {"cache=default carveout=default", 1},
        {"  minblocks=default   bounds=off ", 1},
        {"cache=l1", 0},
        {"carveout=0", 0},
        {"cache=default maxrreg=64", 0},
        {"bounds=on", 0},
        {"BLOCK=128 cache=default", 0},
        {"cache=", 0},
        {"cache", 0},
        {"cache=nonsense", 0},
        {"", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        is_int(gt_knob_config_is_original(cases[i].text), cases[i].original, "'%s' %s", cases[i].text,
               cases[i].original ? "is the original" : "may not be the original");
}

static void ladder_is(int sm, const char *want)
{
    struct gt_arch a;
    gt_arch_for_sm(sm, &a);
    int64_t v[32];
    size_t n = gt_knob_auto_values(GT_DIM_MAXRREG, &a, v, 32);
    char got[256] = "";
    for (size_t i = 0; i < n; i++) {
        char t[16];
        gt_knob_format_value(GT_DIM_MAXRREG, v[i], t, sizeof t);
        strcat(got, i ? " " : "");
        strcat(got, t);
    }
    is_str(got, want, "sm_%d register ladder", sm);
}

static void automatic(void)
{
    struct gt_arch a;
    ok(gt_arch_for_sm(90, &a) == 0 && a.max_warps_per_sm == 64 && a.max_threads_per_block == 1024 &&
       a.max_smem_per_block == 232448, "sm_90's limits");
    ok(gt_arch_for_sm(12, &a) < 0 && a.sm == 12 && a.max_regs_per_thread == 255, "an unknown architecture gets defaults");
    ladder_is(90, "default 168 128 80 64 40 32");
    ladder_is(86, "default 224 168 112 80 56 40");
    ladder_is(75, "default 168 128 80 64");

    gt_arch_for_sm(90, &a);
    struct gt_diags d = {0};
    struct gt_space *s = gt_space_auto(&a, 0, &d);
    ok(s && s->ndims == 2 && strcmp(s->dims[0].name, "cache") == 0 && strcmp(s->dims[1].name, "carveout") == 0,
       "SASS only: cache preference and carve-out");
    is_int(s ? s->size : 0, 30, "5 x 6 before the constraint");
    is_int(s ? count_of(s, NULL) : 0, 10, "10 after it: one of the two at a time, both default once");
    uint32_t def[8];
    char buf[256];
    gt_space_default(s, def);
    gt_space_format(s, def, buf, sizeof buf);
    is_str(buf, "cache=default carveout=default", "the default configuration is the application's own");
    gt_space_free(s);

    s = gt_space_auto(&a, 1, &d);
    ok(s && s->ndims == 5, "with PTX: also maxrreg, dlcm and bounds");
    is_int(s ? count_of(s, NULL) : 0, 10 * 7 * 3 * 2, "420 configurations on sm_90");
    gt_space_default(s, def);
    gt_space_format(s, def, buf, sizeof buf);
    is_str(buf, "cache=default carveout=default maxrreg=default dlcm=default bounds=off", "its default");
    ok(gt_knob_config_is_original(buf), "  known as the original from its text alone");
    gt_space_free(s);
    is_int(d.n, 0, "no messages");
    gt_diags_clear(&d);

    s = block_items();
    static const int64_t l1[] = {GT_CACHE_L1};
    gt_space_add_dim(s, "cache", GT_DIM_CACHE, l1, 1, 0, here);
    gt_space_add_auto_knobs(s, &a, 1, &d);
    ok(s->ndims == 7 && s->dims[2].n == 1, "automatic knobs join a space, keeping a knob it has");
    is_int(count_of(s, NULL), 16 * 7 * 3 * 2, "and the carve-out stays default while a cache preference is set");
    gt_space_free(s);
    gt_diags_clear(&d);
}

int main(void)
{
    filtering();
    launch_constraints();
    evaluation_failures();
    large_spaces();
    ranks();
    text_round_trip();
    knob_values();
    original_texts();
    automatic();
    return done_testing();
}
