/* test_search_local: the strategies greedy, hillclimb, anneal (search_local.c)
 * and evolution (search_evolution.c) on synthetic landscapes with a known
 * optimum, driven as the trial engine drives them (search_drive.h), with
 * results reported in a shuffled order. */
#include "keys.h"
#include "search_drive.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>

#define SEEDS 10

enum { GREEDY, HILLCLIMB, ANNEAL, EVOLUTION, NSTRATEGIES };
static const char *const strategies[NSTRATEGIES] = {"greedy", "hillclimb", "anneal", "evolution"};

/* X, Y in 1..8, Z in 0..5, W in 0..3 with X + Y <= 14: 1464 valid
 * configurations, 1463 besides the original (X=1 Y=1 Z=0 W=0).  Z and W
 * are declared independent when indep. */
static struct gt_space *space(int indep)
{
    struct gt_space *s = gt_space_new();
    struct gt_loc loc = {"test", 1, 1};
    int64_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7}, w[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    gt_space_add_dim(s, "X", GT_DIM_PARAM, w, 8, 0, loc);
    gt_space_add_dim(s, "Y", GT_DIM_PARAM, w, 8, 0, loc);
    gt_space_add_dim(s, "Z", GT_DIM_PARAM, v, 6, 0, loc);
    gt_space_add_dim(s, "W", GT_DIM_PARAM, v, 4, 0, loc);
    s->dims[2].independent = s->dims[3].independent = indep;
    struct gt_diags d = {0};
    gt_space_add_constraint_text(s, "X + Y <= 14", 0, &d);
    gt_diags_clear(&d);
    return s;
}

static void values(const struct gt_space *s, const uint32_t *cfg, int64_t *v)
{
    gt_space_values(s, cfg, v);
}

/* ---- landscapes: the optimum is 100 us ---- */

/* Each dimension on its own: X=6 Y=3 Z=4 W=2. */
static double separable(const struct gt_space *s, const uint32_t *cfg, void *arg)
{
    (void)arg;
    int64_t v[4];
    values(s, cfg, v);
    return 100 + 3.0 * (v[0] - 6) * (v[0] - 6) + 2.0 * (v[1] - 3) * (v[1] - 3) + 4.0 * (v[2] - 4) * (v[2] - 4) +
           5.0 * (v[3] - 2) * (v[3] - 2);
}

/* X and Y count through their product, Z and W through their sum:
 * X=6 Y=4 Z=4 W=2. */
static double interacting(const struct gt_space *s, const uint32_t *cfg, void *arg)
{
    (void)arg;
    int64_t v[4];
    values(s, cfg, v);
    double p = (double)(v[0] * v[1] - 24), q = (double)(v[2] + v[3] - 6);
    return 100 + p * p + 2.0 * (v[0] - 6) * (v[0] - 6) + 3 * q * q + 2.0 * (v[2] - 4) * (v[2] - 4);
}

/* separable, but a third of the space (X + Z a multiple of 3) and all of
 * W = 3 do not build. */
static double holes(const struct gt_space *s, const uint32_t *cfg, void *arg)
{
    int64_t v[4];
    values(s, cfg, v);
    return (v[0] + v[2]) % 3 == 0 || v[3] == 3 ? -1 : separable(s, cfg, arg);
}

/* separable, but 100 times slower for Y >= 6 or X + Z a multiple of 4: the
 * watchdog cuts those. */
static double slow_tail(const struct gt_space *s, const uint32_t *cfg, void *arg)
{
    int64_t v[4];
    values(s, cfg, v);
    return separable(s, cfg, arg) * (v[1] >= 6 || (v[0] + v[2]) % 4 == 0 ? 100 : 1);
}

/* separable where the original does not build: its time is unknown. */
static double no_original(const struct gt_space *s, const uint32_t *cfg, void *arg)
{
    int64_t v[4];
    values(s, cfg, v);
    return v[0] == 1 && v[1] == 1 ? -1 : separable(s, cfg, arg);
}

/* separable over a space too large to list: P, Q in 0..63 with P + Q
 * even, R, S in 0..31 (2^21 valid configurations); P=40 Q=20 R=9 S=25. */
static struct gt_space *big_space(void)
{
    struct gt_space *s = gt_space_new();
    struct gt_loc loc = {"test", 1, 1};
    int64_t v[64];
    for (int i = 0; i < 64; i++)
        v[i] = i;
    const char *names[] = {"P", "Q", "R", "S"};
    for (int i = 0; i < 4; i++)
        gt_space_add_dim(s, names[i], GT_DIM_PARAM, v, i < 2 ? 64 : 32, 0, loc);
    struct gt_diags d = {0};
    gt_space_add_constraint_text(s, "(P + Q) % 2 == 0", 0, &d);
    gt_diags_clear(&d);
    return s;
}

static double big(const struct gt_space *s, const uint32_t *cfg, void *arg)
{
    (void)arg;
    int64_t v[4];
    values(s, cfg, v);
    double p = (double)(v[0] - 40), q = (double)(v[1] - 20), r = (double)(v[2] - 9), t = (double)(v[3] - 25);
    return 100 + 0.1 * p * p + 0.2 * q * q + 0.3 * r * r + 0.1 * t * t;
}

/* For a space of A and B: A=3 B=2. */
static double tiny(const struct gt_space *s, const uint32_t *cfg, void *arg)
{
    (void)arg;
    int64_t v[2];
    values(s, cfg, v);
    return 100 + (double)((v[0] - 3) * (v[0] - 3) + (v[1] - 2) * (v[1] - 2));
}

static double nothing_builds(const struct gt_space *s, const uint32_t *cfg, void *arg)
{
    (void)s, (void)cfg, (void)arg;
    return -1;
}

/* Every configuration but the original 100 times slower: all are cut. */
static double all_slow(const struct gt_space *s, const uint32_t *cfg, void *arg)
{
    int64_t v[4];
    values(s, cfg, v);
    return v[0] == 1 && v[1] == 1 && v[2] == 0 && v[3] == 0 ? 267 : 100 * separable(s, cfg, arg);
}

/* What a strategy must find: within factor of the optimum in budget trials. */
struct goal {
    long budget;
    double factor;
};

struct landscape {
    const char *name;
    drive_time_fn f;
    struct goal goal[NSTRATEGIES];   /* as strategies[] */
};

/* Greedy converges after 20 to 40 trials; where dimensions interact or
 * invalid configurations cut its lines it stops short of the optimum.
 * Evolution ends on its own (population 10, patience 3) after 70 to 130
 * trials, near the optimum. */
static const struct landscape landscapes[] = {
    {"separable", separable, {{60, 1}, {150, 1}, {200, 1}, {150, 1.12}}},
    {"with interactions", interacting, {{60, 1.10}, {600, 1}, {300, 1.03}, {150, 1.12}}},
    {"with invalid regions", holes, {{60, 1.07}, {150, 1}, {200, 1}, {150, 1.12}}},
    {"with a slow tail", slow_tail, {{60, 1}, {150, 1}, {200, 1}, {150, 1.12}}},
    {"without the original's time", no_original, {{60, 1}, {150, 1}, {200, 1}, {150, 1.12}}},
};

/* Whether a run kept the rules: only valid configurations, each once, never
 * the original; -1 said again when asked again. */
/* Runs with each seed: all must come within the goal's factor of the
 * optimum (100 us) in its budget, and keep the rules. */
static void runs(const char *name, const char *what, const struct gt_space *s, drive_time_fn f, struct goal g)
{
    int found = 0, rules = 1;
    long at[SEEDS], trials = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        struct gt_strategy *st = drive_strategy(name, s, NULL, g.budget, seed);
        struct drive d = {.factor = 2, .shuffle = seed, .ask_again = 1};
        if (!st)
            return;
        drive_run(st, s, f, NULL, g.budget, &d);
        gt_strategy_free(st);
        int hit = d.best_us <= 100 * g.factor;
        found += hit;
        at[seed - 1] = hit ? d.best_at : g.budget + 1;
        trials += d.trials;
        rules &= drive_clean(&d);
    }
    for (int i = 1; i < SEEDS; i++) /* insertion sort, for the median */
        for (int j = i; j > 0 && at[j] < at[j - 1]; j--) {
            long t = at[j];
            at[j] = at[j - 1];
            at[j - 1] = t;
        }
    ok(found == SEEDS, "%s %s: within %.2fx of the optimum in %ld trials, %d of %d runs (median %ld, %ld trials a run)",
       name, what, g.factor, g.budget, found, SEEDS, at[SEEDS / 2], trials / SEEDS);
    ok(rules, "%s %s: valid, new configurations only, never the original; -1 kept to", name, what);
}

/* Unlimited budgets: each strategy must end the search by itself. */
static void stops(const char *name, const struct gt_space *s, drive_time_fn f, const char *what, long most)
{
    struct gt_strategy *st = drive_strategy(name, s, NULL, 0, 5);
    struct drive d = {.factor = 2, .shuffle = 5, .ask_again = 1};
    if (!st)
        return;
    drive_run(st, s, f, NULL, 0, &d);
    gt_strategy_free(st);
    ok(d.stopped && d.trials <= most && drive_clean(&d), "%s stops %s: after %ld trials (at most %ld)", name, what, d.trials,
       most);
}

/* The proposals of the first engine batch, before any result. */
static int first_batch(const char *name, const struct gt_space *s, const struct gt_settings *set)
{
    struct gt_strategy *st = drive_strategy(name, s, set, 1000, 1);
    uint32_t cfg[4];
    int n = 0;
    if (!st)
        return -1;
    gt_strategy_baseline(st, 267);
    while (n < DRIVE_BATCH && gt_strategy_next(st, cfg) == 1)
        n++;
    gt_strategy_free(st);
    return n;
}

static void record(void *arg, const uint32_t *cfg, int may_cut, enum gt_trial_status status)
{
    (void)may_cut, (void)status;
    uint64_t *h = arg;
    for (int i = 0; i < 4; i++)
        *h = (*h ^ cfg[i]) * 0x100000001b3ULL;
}

/* A hash of the proposals of a run. */
static uint64_t proposals(const char *name, const struct gt_space *s, uint64_t seed)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    struct gt_strategy *st = drive_strategy(name, s, NULL, 100, seed);
    struct drive d = {.factor = 2, .seen = record};
    if (!st)
        return 0;
    drive_run(st, s, separable, &h, 100, &d);
    gt_strategy_free(st);
    return h;
}

static void parameters(const struct gt_space *s)
{
    static const struct {
        const char *strategy, *key, *value, *err;
    } bad[] = {
        {"greedy", "neighbours", "4", "strategy greedy has no parameter 'neighbours'"},
        {"hillclimb", "neighbours", "-1", "strategy.neighbours = -1: expected a number from 0 to 1e+09"},
        {"hillclimb", "restarts", "x", "strategy.restarts = x: expected a number from 0 to 1e+09"},
        {"anneal", "neighbours", "0", "strategy.neighbours = 0: expected a number from 1 to 1e+06"},
        {"anneal", "t0", "0", "strategy.t0 = 0: expected a number from 1e-09 to 1e+09"},
        {"anneal", "cool", "1", "strategy.cool = 1: expected a number from 0 to 0.99"},
        {"evolution", "population", "2", "strategy.population = 2: expected a number from 3 to 10000"},
        {"evolution", "f", "3", "strategy.f = 3: expected a number from 0 to 2"},
        {"evolution", "cr", "1.5", "strategy.cr = 1.5: expected a number from 0 to 1"},
        {"evolution", "patience", "0", "strategy.patience = 0: expected a number from 1 to 1e+06"},
    };
    struct gt_settings set;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct gt_kv kv;
        char err[256] = "";
        drive_param(&set, &kv, bad[i].key, bad[i].value);
        struct gt_strategy *st = gt_strategy_new(bad[i].strategy, s, NULL, &set, 10, 1, err, sizeof err);
        ok(!st && !strcmp(err, bad[i].err), "%s refuses strategy.%s = %s: %s", bad[i].strategy, bad[i].key,
           bad[i].value, err);
        gt_strategy_free(st);
    }
    struct gt_kv kv[] = {{"population", "6", {"test", 1, 1}}, {"f", "0.8", {"test", 2, 1}},
                         {"cr", "0.5", {"test", 3, 1}}, {"patience", "5", {"test", 4, 1}}};
    set.sparams = kv;
    set.nsparams = 4;
    is_int(first_batch("evolution", s, &set), 5, "evolution: strategy.population = 6 (the original and 5 drawn)");
    struct gt_kv all;
    drive_param(&set, &all, "neighbours", "0");
    is_int(first_batch("hillclimb", s, &set), 16, "hillclimb, strategy.neighbours = 0: every neighbour at once");
}

int main(void)
{
    struct gt_space *s = space(0);
    for (size_t l = 0; l < sizeof landscapes / sizeof *landscapes; l++)
        for (int i = 0; i < NSTRATEGIES; i++)
            runs(strategies[i], landscapes[l].name, s, landscapes[l].f, landscapes[l].goal[i]);

    /* Phase 1 of greedy sweeps Z and W for each of the 64 combinations of X
     * and Y (10 trials each); with 300 trials it samples 30 of them. */
    struct gt_space *indep = space(1);
    for (size_t l = 0; l < sizeof landscapes / sizeof *landscapes; l++) {
        char what[128];
        snprintf(what, sizeof what, "%s, Z and W independent", landscapes[l].name);
        runs("greedy", what, indep, landscapes[l].f, (struct goal){300, l == 1 ? 1.10 : 1});
    }
    gt_space_free(indep);

    struct gt_space *b = big_space();
    for (int i = 0; i < NSTRATEGIES; i++)
        runs(strategies[i], "on a space too large to list", b, big, (struct goal){400, 1.02});
    gt_space_free(b);

    /* 1463 valid configurations besides the original */
    stops("greedy", s, interacting, "at a local optimum", 100);
    stops("evolution", s, interacting, "after 3 generations without improvement", 300);
    for (int i = 0; i < NSTRATEGIES; i++) {
        stops(strategies[i], s, nothing_builds, "when nothing builds", 1463);
        stops(strategies[i], s, all_slow, "when every trial is cut", 1463);
    }
    stops("hillclimb", s, separable, "when the space is exhausted", 1463);
    stops("anneal", s, separable, "when the space is exhausted", 1463);

    is_int(first_batch("greedy", s, NULL), 7, "greedy: the first batch is X's other values");
    is_int(first_batch("hillclimb", s, NULL), 4, "hillclimb: 4 neighbours a step");
    is_int(first_batch("anneal", s, NULL), 4, "anneal: 4 neighbours a step");
    is_int(first_batch("evolution", s, NULL), 9, "evolution: the first population (the original and 9 drawn)");
    for (int i = 0; i < NSTRATEGIES; i++)
        ok(proposals(strategies[i], s, 3) == proposals(strategies[i], s, 3) &&
               (i == GREEDY || proposals(strategies[i], s, 3) != proposals(strategies[i], s, 4)),
           "%s: the same seed, the same proposals%s", strategies[i], i == GREEDY ? "" : "; another, others");
    parameters(s);
    gt_space_free(s);

    /* 3 x 4 with one excluded: 10 besides the original, within 10 x (3 + 1) */
    s = gt_space_new();
    int64_t v[4] = {1, 2, 3, 4};
    struct gt_loc loc = {"test", 1, 1};
    gt_space_add_dim(s, "A", GT_DIM_PARAM, v, 3, 0, loc);
    gt_space_add_dim(s, "B", GT_DIM_PARAM, v, 4, 0, loc);
    struct gt_diags dg = {0};
    gt_space_add_constraint_text(s, "A * B != 12", 0, &dg);
    gt_diags_clear(&dg);
    struct gt_strategy *st = drive_strategy("evolution", s, NULL, 0, 1);
    struct drive d = {.factor = 2};
    drive_run(st, s, tiny, NULL, 0, &d);
    ok(d.stopped && d.trials == 10 && d.best_us == 100 && drive_clean(&d), "evolution tries a tiny space whole: %ld trials",
       d.trials);
    gt_strategy_free(st);
    gt_space_free(s);
    return done_testing();
}
