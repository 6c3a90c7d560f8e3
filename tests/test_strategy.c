/* test_strategy: what the strategies of the trial engine propose. */
#include "keys.h"
#include "strategy.h"
#include "tap.h"

static struct gt_space *space(int64_t n1, int64_t n2)
{
    struct gt_space *s = gt_space_new();
    int64_t a[64], b[64];
    for (int i = 0; i < n1; i++)
        a[i] = i + 1;
    for (int i = 0; i < n2; i++)
        b[i] = 10 * (i + 1);
    struct gt_loc loc = {"test", 1, 1};
    gt_space_add_dim(s, "A", GT_DIM_PARAM, a, (size_t)n1, 0, loc);
    gt_space_add_dim(s, "B", GT_DIM_PARAM, b, (size_t)n2, 0, loc);
    return s;
}

/* Proposals until the strategy stops (at most max), as ranks. */
static int proposals(struct gt_strategy *st, const struct gt_space *s, uint64_t *out, int max)
{
    uint32_t cfg[2];
    int n = 0;
    while (n < max && gt_strategy_next(st, cfg) == 1)
        out[n++] = gt_space_rank(s, cfg);
    return n;
}

/* Runs st to its end, every trial answered at once from a smooth landscape
 * and every estimate with made-up counts; returns the proposals, and in
 * *bad those that break a constraint of launch l. */
static int run_to_end(struct gt_strategy *st, const struct gt_space *s, const struct gt_launch *l, int *bad)
{
    uint32_t cfg[2];
    int n = 0, r;
    *bad = 0;
    while (n < 1000 && (r = gt_strategy_next(st, cfg)) != GT_NEXT_DONE && r != GT_NEXT_WAIT) {
        n++;
        *bad += gt_space_check(s, cfg, l, NULL) != 1;
        struct gt_estimate e = {100 + 10.0 * cfg[1], 2, 1e5, 32u << cfg[0], 4, 32};
        if (r == GT_NEXT_ESTIMATE)
            gt_strategy_estimated(st, cfg, &e);
        else
            gt_strategy_report(st, cfg, 10 + 3.0 * cfg[0] + (cfg[1] > 3 ? cfg[1] - 3 : 3 - cfg[1]), GT_TRIAL_OK);
    }
    return n;
}

/* BLOCK <= arg[0] leaves 2 of 6 blocks at a launch with arg[0] = 100: every
 * strategy keeps to them, and auto counts what the launch allows. */
static void launch_constraints(void)
{
    static const int64_t block[] = {32, 64, 128, 256, 512, 1024}, items[] = {1, 2, 3, 4, 5, 6, 7, 8};
    struct gt_loc loc = {"test", 1, 1};
    struct gt_space *s = gt_space_new();
    gt_space_add_dim(s, "BLOCK", GT_DIM_PARAM, block, 6, 0, loc);
    gt_space_add_dim(s, "ITEMS", GT_DIM_PARAM, items, 8, 0, loc);
    struct gt_expr_scope scope;
    struct gt_expr *e = NULL;
    struct gt_diags d = {0};
    gt_space_scope(s, GT_USES_ARG, &scope);
    ok(gt_expr_compile("BLOCK <= arg[0]", 15, 0, NULL, &scope, &e, &d) == 0 && gt_space_add_constraint(s, e, 1) == 0,
       "a constraint reading an argument");
    int64_t args[1] = {100};
    struct gt_launch l = {{1, 1, 1, 128, 1, 1, 0}, 1, args, NULL, NULL, 0};
    char err[256];
    struct gt_strategy *st = gt_strategy_new("auto", s, NULL, NULL, 100, 1, err, sizeof err);
    is_int(gt_strategy_space_size(st), 47, "without a launch it is not applied: 47 configurations besides the default");
    is_str(gt_strategy_name(st), "pareto-guided", "  and auto prunes, then searches guided");
    gt_strategy_free(st);
    st = gt_strategy_new("auto", s, &l, NULL, 100, 1, err, sizeof err);
    is_int(gt_strategy_space_size(st), 15, "with the launch: 15");
    is_str(gt_strategy_name(st), "exhaustive", "  and auto tries them all");
    gt_strategy_free(st);
    for (size_t i = 0; i == 0 || gt_strategy_names(i - 1); i++) {
        const char *name = i ? gt_strategy_names(i - 1) : "auto";
        int bad = 0, n = 0;
        if ((st = gt_strategy_new(name, s, &l, NULL, 100, 1, err, sizeof err)) != NULL)
            n = run_to_end(st, s, &l, &bad);
        ok(st && n > 0 && bad == 0, "%s: %d proposals, none that the launch forbids", name, n);
        gt_strategy_free(st);
    }
    gt_diags_clear(&d);
    gt_space_free(s);
}

/* The pace a session gives a strategy from its time left and its costs. */
static void pace_width(void)
{
    is_int((int)gt_strategy_width(40, 100, 1, 0.01, 16), 1, "time to spare: steps of 1 would fit, the strategy's own stand");
    is_int((int)gt_strategy_width(40, 10, 1, 0.01, 16), 5,
           "40 trials in 10 s at 1 s of builds a step (and 0.4 s of trials): 9 steps, so 5 a step");
    is_int((int)gt_strategy_width(54, 12, 5, 0.001, 16), 16, "2 steps fit, of 27: as wide as the pool, 16");
    is_int((int)gt_strategy_width(54, 1, 5, 0.001, 16), 16, "not even one fits: as wide as the pool");
    is_int((int)gt_strategy_width(54, 12, 5, 0.001, 8), 8, "  no wider than the pool");
    is_int((int)gt_strategy_width(54, 12, 0, 0.001, 16), 0, "builds of no measured cost: no pace");
    is_int((int)gt_strategy_width(0, 12, 5, 0.001, 16), 0, "no trial left: no pace");
    ok(gt_strategy_may_estimate(9.9, 30) && !gt_strategy_may_estimate(10, 30),
       "estimates are built within the first third of a session's time only");
}

int main(void)
{
    char err[256];
    struct gt_space *s = space(3, 4);
    struct gt_diags d = {0};
    ok(gt_space_add_constraint_text(s, "A * B != 20", 0, &d) == 0, "a constraint removing two configurations (1x20, 2x10)");
    uint64_t got[64], again[64];

    struct gt_strategy *st = gt_strategy_new("exhaustive", s, NULL, NULL, 100, 1, err, sizeof err);
    int n = proposals(st, s, got, 64);
    is_int(n, 9, "exhaustive proposes every valid configuration but the default (12 - 2 - 1)");
    int ordered = 1, has_default = 0;
    for (int i = 0; i < n; i++) {
        ordered &= i == 0 || got[i] > got[i - 1];
        has_default |= got[i] == 0;
    }
    ok(ordered && !has_default, "in enumeration order, never the default");
    is_int(gt_strategy_space_size(st), 9, "the valid space");
    gt_strategy_free(st);

    st = gt_strategy_new("random", s, NULL, NULL, 100, 7, err, sizeof err);
    n = proposals(st, s, got, 64);
    gt_strategy_free(st);
    st = gt_strategy_new("random", s, NULL, NULL, 100, 7, err, sizeof err);
    proposals(st, s, again, 64);
    gt_strategy_free(st);
    is_int(n, 9, "random proposes the same set");
    ok(memcmp(got, again, sizeof(uint64_t) * 9) == 0, "the same seed, the same order");
    st = gt_strategy_new("random", s, NULL, NULL, 100, 8, err, sizeof err);
    proposals(st, s, again, 64);
    gt_strategy_free(st);
    ok(memcmp(got, again, sizeof(uint64_t) * 9) != 0, "another seed, another order");
    int sorted = 1;
    for (int i = 1; i < n; i++)
        sorted &= got[i] > got[i - 1];
    ok(!sorted, "not in enumeration order");

    st = gt_strategy_new("auto", s, NULL, NULL, 10, 1, err, sizeof err);
    is_str(gt_strategy_name(st), "exhaustive", "auto: exhaustive when the space fits the budget");
    gt_strategy_free(st);
    st = gt_strategy_new(NULL, s, NULL, NULL, 5, 1, err, sizeof err);
    is_str(gt_strategy_name(st), "tree", "auto: regression-tree sampling when it does not, on a small budget");
    gt_strategy_free(st);
    struct gt_space *mid = space(5, 8);
    st = gt_strategy_new("auto", mid, NULL, NULL, 100, 1, err, sizeof err);
    is_str(gt_strategy_name(st), "pareto-guided", "auto: pruning, then the guided search, on a space more than tiny (39)");
    gt_strategy_free(st);
    st = gt_strategy_new("auto", mid, NULL, NULL, 31, 1, err, sizeof err);
    is_str(gt_strategy_name(st), "tree", "auto: the tree alone on a budget under 32 trials");
    gt_strategy_free(st);
    gt_space_free(mid);
    ok(!gt_strategy_new("simplex", s, NULL, NULL, 5, 1, err, sizeof err) &&
           !strcmp(err, "there is no strategy 'simplex'; use auto, exhaustive, random, greedy, hillclimb, "
                        "anneal, evolution, predictor, tree, pareto, pareto-tree, guided, pareto-guided or bayes"),
       "an unknown strategy: %s", err);
    struct gt_settings set;
    gt_settings_init(&set);
    struct gt_kv kv = {"population", "10", {"test", 1, 1}};
    set.sparams = &kv;
    set.nsparams = 1;
    ok(!gt_strategy_new("random", s, NULL, &set, 5, 1, err, sizeof err) &&
           !strcmp(err, "strategy random has no parameter 'population'"),
       "a parameter the strategy does not read: %s", err);
    gt_space_free(s);

    /* 2^22 configurations: too many to list, so random samples them. */
    s = gt_space_new();
    int64_t v[64];
    for (int i = 0; i < 64; i++)
        v[i] = i;
    struct gt_loc loc = {"test", 1, 1};
    const char *names[] = {"P", "Q", "R", "S"};
    for (int i = 0; i < 4; i++)
        gt_space_add_dim(s, names[i], GT_DIM_PARAM, v, i < 2 ? 64 : 32, 0, loc);
    gt_space_add_constraint_text(s, "(P + Q) % 2 == 0", 0, &d);
    st = gt_strategy_new("random", s, NULL, NULL, 50, 3, err, sizeof err);
    uint32_t cfg[4];
    int valid = 1, distinct = 1;
    for (n = 0; n < 50 && gt_strategy_next(st, cfg) == 1; n++) {
        got[n] = gt_space_rank(s, cfg);
        valid &= (cfg[0] + cfg[1]) % 2 == 0;
        for (int i = 0; i < n; i++)
            distinct &= got[i] != got[n];
    }
    is_int(n, 50, "a large space is sampled");
    ok(valid && distinct, "with valid, distinct configurations");
    gt_strategy_free(st);
    gt_space_free(s);
    gt_diags_clear(&d);
    launch_constraints();
    pace_width();
    return done_testing();
}
