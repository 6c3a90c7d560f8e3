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
    is_str(gt_strategy_name(st), "pareto-tree", "auto: pruning, then the tree, on a space more than tiny (39)");
    gt_strategy_free(st);
    st = gt_strategy_new("auto", mid, NULL, NULL, 31, 1, err, sizeof err);
    is_str(gt_strategy_name(st), "tree", "auto: the tree alone on a budget under 32 trials");
    gt_strategy_free(st);
    gt_space_free(mid);
    ok(!gt_strategy_new("bayes", s, NULL, NULL, 5, 1, err, sizeof err) &&
           !strcmp(err, "there is no strategy 'bayes'; use auto, exhaustive, random, greedy, hillclimb, "
                        "anneal, evolution, predictor, tree, pareto or pareto-tree"),
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
    return done_testing();
}
