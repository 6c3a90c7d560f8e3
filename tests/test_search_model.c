/* test_search_model: the model-guided strategies, the additive predictor
 * (search_predictor.c), regression-tree sampling (search_tree.c, with its
 * CART fitting in cart.c), static Pareto pruning (search_pareto.c), the
 * forest-guided search (search_guided.c, and pareto-guided) and Bayesian
 * optimization (search_bayes.c), on synthetic landscapes with a known
 * optimum, driven as the trial engine drives them (search_drive.h). */
#include "cart.h"
#include "keys.h"
#include "search_drive.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define SEEDS 10

/* ---- CART ---- */

static void cart_tests(void)
{
    struct gt_cart t;
    /* y = 10 below x0 = 5, 1 from there; x1 is noise */
    uint32_t x[20 * 2];
    double y[20];
    for (int i = 0; i < 20; i++) {
        x[2 * i] = (uint32_t)(i % 10);
        x[2 * i + 1] = (uint32_t)(i * 7 % 4);
        y[i] = x[2 * i] < 5 ? 10 : 1;
    }
    ok(gt_cart_fit(&t, x, y, 20, 2, 3) == 0, "fit a step");
    is_int(t.nnodes, 3, "one split");
    ok(t.nodes[0].dim == 0 && t.nodes[0].cut == 5, "on x0 < 5 (got x%d < %u)", t.nodes[0].dim, t.nodes[0].cut);
    int leaf = gt_cart_best_leaf(&t);
    uint32_t lo[2] = {0, 0}, hi[2] = {10, 4};
    gt_cart_region(&t, leaf, lo, hi);
    ok(t.nodes[leaf].mean == 1 && lo[0] == 5 && hi[0] == 10 && lo[1] == 0 && hi[1] == 4,
       "the best leaf's region: x0 in [5, 10), x1 whole (got [%u, %u) [%u, %u))", lo[0], hi[0], lo[1], hi[1]);
    gt_cart_free(&t);

    /* cuts fall halfway between the values seen: 0 and 4 -> 2 */
    uint32_t gap[6] = {0, 0, 0, 4, 4, 4};
    double gy[6] = {1, 1, 1, 5, 5, 5};
    gt_cart_fit(&t, gap, gy, 6, 1, 3);
    ok(t.nnodes == 3 && t.nodes[0].cut == 2, "a cut halfway between 0 and 4 (got %u)", t.nodes[0].cut);
    gt_cart_free(&t);
    gt_cart_fit(&t, gap, gy, 5, 1, 3);
    is_int(t.nnodes, 1, "no split leaves fewer than `leaf` samples on a side");
    gt_cart_free(&t);
    double flat[6] = {3, 3, 3, 3, 3, 3};
    gt_cart_fit(&t, gap, flat, 6, 1, 1);
    is_int(t.nnodes, 1, "no split of a constant");
    gt_cart_free(&t);
    ok(gt_cart_fit(&t, NULL, NULL, 0, 3, 3) == 0 && t.nnodes == 1 && gt_cart_best_leaf(&t) == 0,
       "no samples: the root");
    gt_cart_free(&t);

    /* two levels: the minimum at x0 >= 6 and x1 < 2 on a 8 x 8 grid */
    uint32_t g[64 * 2];
    double gv[64];
    for (int i = 0; i < 64; i++) {
        g[2 * i] = (uint32_t)(i / 8), g[2 * i + 1] = (uint32_t)(i % 8);
        gv[i] = 5 - 2.0 * (g[2 * i] >= 6) - 2.0 * (g[2 * i + 1] < 2);
    }
    gt_cart_fit(&t, g, gv, 64, 2, 3);
    leaf = gt_cart_best_leaf(&t);
    lo[0] = lo[1] = 0, hi[0] = hi[1] = 8;
    gt_cart_region(&t, leaf, lo, hi);
    ok(t.nodes[leaf].mean == 1 && lo[0] == 6 && hi[0] == 8 && lo[1] == 0 && hi[1] == 2,
       "two levels: the best leaf is x0 in [6, 8), x1 in [0, 2) (got [%u, %u) [%u, %u), mean %g)", lo[0], hi[0], lo[1],
       hi[1], t.nodes[leaf].mean);
    size_t leaves = 0, total = 0;
    for (size_t k = 0; k < t.nnodes; k++)
        if (t.nodes[k].dim < 0) {
            leaves++;
            total += t.nodes[k].n;
            ok(t.nodes[k].n >= 3, "leaf %zu holds %zu >= 3 samples", k, t.nodes[k].n);
        }
    ok(total == 64 && leaves >= 4, "the leaves partition the samples (%zu leaves)", leaves);
    gt_cart_free(&t);
}

/* ---- the space and landscapes ---- */

/* A in 0..3 and B in 0..2 shared; C, D in 0..7, E in 0..5, F in 0..3
 * independent (when indep): 18432 configurations, the original all 0. */
enum { A, B, C, D, E, F, NDIMS };
static const int sizes[NDIMS] = {4, 3, 8, 8, 6, 4};

static struct gt_space *space(int indep, const char *constraint)
{
    struct gt_space *s = gt_space_new();
    struct gt_loc loc = {"test", 1, 1};
    int64_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    const char *names[NDIMS] = {"A", "B", "C", "D", "E", "F"};
    for (int d = 0; d < NDIMS; d++) {
        gt_space_add_dim(s, names[d], GT_DIM_PARAM, v, (size_t)sizes[d], 0, loc);
        s->dims[d].independent = indep && d >= C;
    }
    struct gt_diags dg = {0};
    if (constraint)
        gt_space_add_constraint_text(s, constraint, 0, &dg);
    gt_diags_clear(&dg);
    return s;
}

/* A fixed pseudo-random number in [0, 1) for (a, b, c). */
static double h(unsigned a, unsigned b, unsigned c)
{
    uint64_t x = ((uint64_t)a * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)(b + 1) * 0xc2b2ae3d27d4eb4fULL) ^
                 ((uint64_t)(c + 7) * 0x165667b19e3779f9ULL);
    x ^= x >> 29, x *= 0xbf58476d1ce4e5b9ULL, x ^= x >> 32;
    return (double)(x >> 11) / 9007199254740992.0;
}

/* Truly additive under each base: the effect of each independent dimension
 * depends on A (a shared one), not on the other independent ones. */
static double additive(const struct gt_space *s, const uint32_t *c, void *arg)
{
    (void)s, (void)arg;
    double t = 100 + 60 * h(0, c[A], c[B]);
    for (int d = C; d < NDIMS; d++)
        t += 40 * h((unsigned)d, c[A], c[d]);
    return t;
}

/* Additive over every dimension, none depending on another. */
static double flat_additive(const struct gt_space *s, const uint32_t *c, void *arg)
{
    (void)s, (void)arg;
    double t = 100;
    for (int d = 0; d < NDIMS; d++)
        t += 40 * h((unsigned)d + 10, 0, c[d]);
    return t;
}

/* Each dimension multiplies the time: separable in log. */
static double separable(const struct gt_space *s, const uint32_t *c, void *arg)
{
    (void)s, (void)arg;
    double t = 10;
    for (int d = 0; d < NDIMS; d++)
        t *= 1 + h((unsigned)d + 20, 0, c[d]);
    return t;
}

/* The additive landscape, plus C and D acting together. */
static double interacting(const struct gt_space *s, const uint32_t *c, void *arg)
{
    return additive(s, c, arg) + 30 * h(30, c[C], c[D]);
}

/* Separable, with C against D and E against A. */
static double interacting_log(const struct gt_space *s, const uint32_t *c, void *arg)
{
    double cd = fabs((double)c[C] - (double)c[D]) / 7, ea = fabs((double)c[E] - 1.5 * c[A]) / 5;
    return separable(s, c, arg) * (1 + cd) * (1 + 0.5 * ea);
}

/* Fails at run time where E = 5 under B = 2, and where F = 3 under A = 1. */
static int fails(const uint32_t *c)
{
    return (c[E] == 5 && c[B] == 2) || (c[F] == 3 && c[A] == 1);
}

static double additive_holes(const struct gt_space *s, const uint32_t *c, void *arg)
{
    return fails(c) ? -1 : additive(s, c, arg);
}

static double separable_holes(const struct gt_space *s, const uint32_t *c, void *arg)
{
    return fails(c) ? -1 : separable(s, c, arg);
}

/* 100x slower: F = 3 everywhere (a fifth of the space), and under the
 * shared values A = 2, B = 1 (a base). */
static int slow(const uint32_t *c)
{
    return c[F] == 3 || (c[A] == 2 && c[B] == 1);
}

static double additive_tail(const struct gt_space *s, const uint32_t *c, void *arg)
{
    return additive(s, c, arg) * (slow(c) ? 100 : 1);
}

static double separable_tail(const struct gt_space *s, const uint32_t *c, void *arg)
{
    return separable(s, c, arg) * (slow(c) ? 100 : 1);
}

/* The original fails: the strategies get no baseline. */
static double no_original(const struct gt_space *s, const uint32_t *c, void *arg)
{
    int orig = 1;
    for (int d = 0; d < NDIMS; d++)
        orig &= c[d] == 0;
    return orig ? -1 : separable(s, c, arg);
}

/* A basin about A = 1, C = 4 whose fastest point is a ridge move from its
 * floor, A one value up and C one down; every other configuration with
 * A = 2 or C = 3, the single changes towards it included, is slow.  The
 * other dimensions add a little each, least at 0. */
static double ridge(const struct gt_space *s, const uint32_t *c, void *arg)
{
    (void)s, (void)arg;
    double t = 100 + 2.0 * (c[B] + c[D] + c[E] + c[F]);
    if (c[A] == 2 && c[C] == 3)
        return t - 50;
    return t + 10.0 * (abs((int)c[A] - 1) + abs((int)c[C] - 4)) + (c[A] == 2 || c[C] == 3 ? 100 : 0);
}

/* The best time over the valid configurations. */
static double optimum(const struct gt_space *s, drive_time_fn f)
{
    uint32_t c[NDIMS];
    double best = INFINITY;
    for (uint64_t r = 0; r < s->size; r++) {
        gt_space_unrank(s, r, c);
        double t = gt_space_check(s, c, NULL, NULL) == 1 ? f(s, c, NULL) : -1;
        if (t > 0 && t < best)
            best = t;
    }
    return best;
}

/* Strategy `name` with strategy.key = value is refused with message `want`. */
static void refuses(const char *name, const struct gt_space *s, const char *key, const char *value, const char *want)
{
    struct gt_settings set;
    struct gt_kv kv;
    char err[256] = "";
    drive_param(&set, &kv, key, value);
    struct gt_strategy *st = gt_strategy_new(name, s, NULL, &set, 10, 1, err, sizeof err);
    ok(!st && !strcmp(err, want), "%s refuses %s", name, err);
    gt_strategy_free(st);
}

/* One run; 0 when the strategy could not be made. */
static int run(const char *name, const struct gt_space *s, const struct gt_settings *set, drive_time_fn f,
               long budget, uint64_t seed, double factor, struct drive *d)
{
    struct gt_strategy *st = drive_strategy(name, s, set, budget, seed);
    if (!st)
        return 0;
    *d = (struct drive){.factor = factor, .shuffle = seed, .ask_again = 1};
    drive_run(st, s, f, NULL, budget, d);
    gt_strategy_free(st);
    return 1;
}

/* ---- the predictor ---- */

/* Trials of the predictor on space(1, NULL): 12 bases (the original's
 * measured by the engine) with 7 + 7 + 5 + 3 supports each, then 5. */
#define PRED_BASES 11
#define PRED_SUPPORTS (12 * 22)
#define PRED_TRIALS (PRED_BASES + PRED_SUPPORTS + 5)

/* Bases: the independent dimensions at 0 (no constraint moves them here). */
static long cut_bases, bases_seen;

static void watch_bases(void *arg, const uint32_t *c, int may_cut, enum gt_trial_status status)
{
    (void)arg;
    if (c[C] || c[D] || c[E] || c[F])
        return;
    bases_seen++;
    cut_bases += may_cut || status == GT_TRIAL_ABORTED;
}

/* Trials of the slow base's group (A = 2, B = 1 in additive_tail) cut short. */
static long cut_in_slow_group, slow_group_seen;

static void watch_slow_group(void *arg, const uint32_t *c, int may_cut, enum gt_trial_status status)
{
    watch_bases(arg, c, may_cut, status);
    if (c[A] != 2 || c[B] != 1)
        return;
    slow_group_seen++;
    cut_in_slow_group += status == GT_TRIAL_ABORTED;
}

static void predictor_exact(void)
{
    struct gt_space *s = space(1, NULL);
    struct drive d;
    double opt = optimum(s, additive);
    if (!run("predictor", s, NULL, additive, 1000, 1, 0, &d))
        return;
    ok(d.best_us == opt, "predictor, additive: the exact optimum (%.3f us, got %.3f)", opt, d.best_us);
    is_int(d.trials, PRED_TRIALS, "predictor, additive: 11 bases + 264 supports + 5 top = 280 trials (1.5%%)");
    ok(d.stopped && drive_clean(&d), "predictor, additive: stops by itself, keeps the rules");

    /* the same with the watchdog, and with a slow tail it must not cut bases in */
    double t = optimum(s, additive_tail);
    struct gt_strategy *st = drive_strategy("predictor", s, NULL, 1000, 2);
    cut_bases = bases_seen = cut_in_slow_group = slow_group_seen = 0;
    d = (struct drive){.factor = 2, .shuffle = 2, .ask_again = 1, .seen = watch_slow_group};
    drive_run(st, s, additive_tail, NULL, 1000, &d);
    gt_strategy_free(st);
    ok(d.best_us == t && d.trials <= PRED_TRIALS && d.stopped && drive_clean(&d),
       "predictor, slow tail (watchdog 2x): the exact optimum %.3f us in %ld trials (%ld cut short)", d.best_us,
       d.trials, d.aborted);
    ok(bases_seen == PRED_BASES && !cut_bases && d.kept > 0,
       "predictor: bases run whole (%ld bases, %ld slow ones kept whole, %ld cut)", bases_seen, d.kept, cut_bases);
    ok(d.aborted > 0, "predictor: slow supports are cut short (%ld)", d.aborted);
    ok(slow_group_seen > 1 && !cut_in_slow_group,
       "predictor: a 100x slower base's supports are measured against its group's best, not cut (%ld trials)",
       slow_group_seen);

    /* interactions between independent dimensions: the top 5 absorb them */
    t = optimum(s, interacting);
    int within = 1;
    double worst = 1;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        run("predictor", s, NULL, interacting, 1000, seed, 2, &d);
        within &= d.best_us <= 1.20 * t && d.trials <= PRED_TRIALS && drive_clean(&d);
        worst = fmax(worst, d.best_us / t);
    }
    ok(within, "predictor, C and D interacting: within 1.20x of the optimum in %d trials (worst %.3fx)", PRED_TRIALS,
       worst);
    gt_space_free(s);
}

static void predictor_holes(void)
{
    /* C + D <= 11 prunes combinations; A = 3 with C = 0 is excluded, so the
     * bases under A = 3 move to C = 1 */
    struct gt_space *s = space(1, "C + D <= 11 && !(A == 3 && C == 0)");
    double t = optimum(s, additive_holes);
    int exact = 1;
    long most = 0, invalid = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        struct drive d;
        run("predictor", s, NULL, additive_holes, 1000, seed, 2, &d);
        exact &= d.best_us == t && d.stopped && drive_clean(&d);
        most = d.trials > most ? d.trials : most;
        invalid += d.invalid;
    }
    ok(exact, "predictor, invalid regions: the exact optimum %.3f us in at most %ld trials (%ld failed a run)", t, most,
       invalid / SEEDS);
    ok(most <= PRED_TRIALS, "predictor, invalid regions: no more trials than without (%ld)", most);
    gt_space_free(s);
}

static void predictor_budget(void)
{
    struct gt_space *s = space(1, NULL);
    double t = optimum(s, additive), worst = 1;
    int rules = 1;
    long most = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        struct drive d;
        run("predictor", s, NULL, additive, 120, seed, 2, &d);
        rules &= drive_clean(&d) && d.trials <= 120;
        most = d.trials > most ? d.trials : most;
        worst = fmax(worst, d.best_us / t);
    }
    ok(rules && worst <= 1.20,
       "predictor, 120 trials (bases sampled: 5 of 12 fit): within 1.20x of the optimum (worst %.3fx, %ld trials)",
       worst, most);

    /* nothing independent: every configuration is a base, up to the budget */
    struct gt_space *sh = space(0, NULL);
    struct drive d;
    run("predictor", sh, NULL, additive, 100, 3, 2, &d);
    ok(d.trials == 100 && drive_clean(&d), "predictor, all shared: measures configurations up to the budget (%ld)", d.trials);
    struct gt_settings set;
    struct gt_kv kv;
    drive_param(&set, &kv, "assume", "independent");
    run("predictor", sh, &set, flat_additive, 1000, 3, 2, &d);
    ok(d.best_us == optimum(sh, flat_additive) && d.trials == 3 + 2 + 7 + 7 + 5 + 3 + 5 && d.stopped && drive_clean(&d),
       "predictor, strategy.assume = independent: one base (the original), 27 supports and 5: the optimum in %ld trials",
       d.trials);
    char err[256];
    kv.value = "maybe";
    ok(!gt_strategy_new("predictor", sh, NULL, &set, 100, 1, err, sizeof err) &&
           !strcmp(err, "strategy.assume = maybe: expected independent or shared"),
       "strategy.assume: %s", err);
    kv = (struct gt_kv){"top", "0", {"test", 1, 1}};
    ok(!gt_strategy_new("predictor", sh, NULL, &set, 100, 1, err, sizeof err) && strstr(err, "strategy.top = 0"),
       "strategy.top: %s", err);
    gt_space_free(sh);

    /* no original's time: the base it would have been is missing */
    run("predictor", s, NULL, no_original, 1000, 4, 2, &d);
    ok(d.best_us <= 1.10 * optimum(s, no_original) && d.stopped && drive_clean(&d),
       "predictor, no baseline: %.3fx of the optimum in %ld trials", d.best_us / optimum(s, no_original), d.trials);
    gt_space_free(s);

    /* a space within the budget is measured whole */
    s = space(1, "A == 0 && B == 0 && D == 0 && E == 0");
    struct gt_strategy *st = drive_strategy("predictor", s, NULL, 64, 1);
    is_str(st ? gt_strategy_name(st) : NULL, "exhaustive", "predictor: 31 configurations in 64 trials: exhaustive");
    gt_strategy_free(st);
    gt_space_free(s);
}

/* ---- the tree ---- */

/* What the tree must do in `budget` trials of the 18432 configurations
 * (1.6%) over seeds 1 to SEEDS: `near` runs within `factor` of the
 * optimum, and every run within `worst`.  The tree has no exploration
 * step: a run whose first rounds favour a region without the optimum can
 * stay there (the worst runs below found their best by trial 100 to 120). */
struct tree_case {
    const char *what;
    drive_time_fn f;
    const char *constraint;
    long budget;
    int near;
    double factor, worst;
};

static const struct tree_case tree_cases[] = {
    {"separable", separable, NULL, 300, 10, 1.05, 1.05},
    {"with interactions", interacting_log, NULL, 300, 7, 1.02, 1.30},
    {"with invalid regions", separable_holes, "C + D <= 11", 300, 9, 1.02, 1.10},
    {"with a slow tail", separable_tail, NULL, 300, 8, 1.02, 1.75},
    {"without the original's time", no_original, NULL, 300, 8, 1.02, 1.20},
};

static int by_ratio(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The best found over the optimum, per seed, ascending. */
static int ratios(const char *name, const struct tree_case *tc, const struct gt_space *s, double *r, int *rules)
{
    double t = optimum(s, tc->f);
    for (int i = 0; i < SEEDS; i++) {
        struct drive d;
        if (!run(name, s, NULL, tc->f, tc->budget, (uint64_t)i + 1, 2, &d))
            return -1;
        *rules &= drive_clean(&d) && d.trials == tc->budget;
        r[i] = d.best_us / t;
    }
    qsort(r, SEEDS, sizeof *r, by_ratio);
    return 0;
}

static void tree_runs(const struct tree_case *tc)
{
    struct gt_space *s = space(0, tc->constraint);
    double r[SEEDS], rnd[SEEDS];
    int rules = 1, ignored = 1;
    if (ratios("tree", tc, s, r, &rules) == 0 && ratios("random", tc, s, rnd, &ignored) == 0) {
        int near = 0;
        for (int i = 0; i < SEEDS; i++)
            near += r[i] <= tc->factor;
        ok(near >= tc->near && r[SEEDS - 1] <= tc->worst,
           "tree, %s, %ld trials: %d of %d runs within %.2fx of the optimum (at least %d), all within %.2fx (worst "
           "%.3fx)",
           tc->what, tc->budget, near, SEEDS, tc->factor, tc->near, tc->worst, r[SEEDS - 1]);
        ok(r[SEEDS / 2] < rnd[SEEDS / 2], "tree, %s: a median of %.3fx, random search's %.3fx", tc->what,
           r[SEEDS / 2], rnd[SEEDS / 2]);
        ok(rules, "tree, %s: valid, new configurations only, never the original, the whole budget", tc->what);
    }
    gt_space_free(s);
}

static void record(void *arg, const uint32_t *c, int may_cut, enum gt_trial_status status)
{
    (void)may_cut, (void)status;
    uint64_t *hash = arg;
    for (int d = 0; d < NDIMS; d++)
        *hash = (*hash ^ c[d]) * 0x100000001b3ULL;
}

/* A hash of a run's proposals. */
static uint64_t tree_proposals(const struct gt_space *s, uint64_t seed)
{
    uint64_t hash = 0xcbf29ce484222325ULL;
    struct gt_strategy *st = drive_strategy("tree", s, NULL, 100, seed);
    struct drive d = {.factor = 2, .seen = record};
    drive_run(st, s, separable, &hash, 100, &d);
    gt_strategy_free(st);
    return hash;
}

/* Proposals before the first -1. */
static int first_round(const struct gt_space *s, const struct gt_settings *set)
{
    struct gt_strategy *st = drive_strategy("tree", s, set, 100, 1);
    uint32_t cfg[NDIMS];
    int n = 0;
    if (!st)
        return -1;
    gt_strategy_baseline(st, 100);
    while (n < 100 && gt_strategy_next(st, cfg) == 1)
        n++;
    n = gt_strategy_next(st, cfg) == -1 ? n : -1;
    gt_strategy_free(st);
    return n;
}

static void tree_misc(void)
{
    struct gt_space *s = space(0, NULL);
    ok(tree_proposals(s, 7) == tree_proposals(s, 7) && tree_proposals(s, 7) != tree_proposals(s, 8),
       "tree: the same seed, the same proposals; another seed, others");
    char err[256];
    struct gt_settings set;
    struct gt_kv kv;
    drive_param(&set, &kv, "leaf", "0");
    ok(!gt_strategy_new("tree", s, NULL, &set, 100, 1, err, sizeof err) &&
           !strcmp(err, "strategy.leaf = 0: expected a number from 1 to 1000"),
       "strategy.leaf: %s", err);
    is_int(first_round(s, NULL), 16, "tree: rounds of 2k + 4 = 16 proposals, then it waits for their results");
    drive_param(&set, &kv, "sigma", "1");
    is_int(first_round(s, &set), 10, "tree, strategy.sigma = 1: rounds of 10");
    struct drive d;
    gt_space_free(s);

    /* a small space: everything once, then it stops */
    s = space(0, "A == 0 && B < 2 && D < 2 && F == 0");
    run("tree", s, NULL, separable_holes, 0, 1, 2, &d);
    ok(d.stopped && d.trials == 2 * 8 * 2 * 6 - 1 && drive_clean(&d),
       "tree: a space of 191 configurations tried whole, then it stops (%ld trials)", d.trials);
    gt_space_free(s);
}

/* 2^22 configurations, half of them valid: too many to list, so both
 * strategies sample (the predictor draws bases among 2^22 shared
 * combinations, the tree draws from regions too large to enumerate). */
static double big_time(const struct gt_space *s, const uint32_t *c, void *arg)
{
    (void)s, (void)arg;
    return 50 + fabs((double)c[0] - 40) + fabs((double)c[1] - 20) + fabs((double)c[2] - 9) + fabs((double)c[3] - 30);
}

static void large_space(void)
{
    struct gt_space *s = gt_space_new();
    int64_t v[64];
    for (int i = 0; i < 64; i++)
        v[i] = i;
    struct gt_loc loc = {"test", 1, 1};
    const char *names[] = {"P", "Q", "R", "S"};
    for (int i = 0; i < 4; i++)
        gt_space_add_dim(s, names[i], GT_DIM_PARAM, v, i < 2 ? 64 : 32, 0, loc);
    struct gt_diags dg = {0};
    gt_space_add_constraint_text(s, "(P + Q) % 2 == 0", 0, &dg);
    gt_diags_clear(&dg);
    const char *strategies[] = {"predictor", "tree", "guided"};
    for (int i = 0; i < 3; i++) {
        struct drive d;
        if (run(strategies[i], s, NULL, big_time, 200, 1, 2, &d))
            ok(d.trials == 200 && drive_clean(&d) && d.best_us < 50 + 40 + 20 + 9 + 30,
               "%s on 2^22 configurations: 200 valid, distinct proposals, better than the original (%.0f us)",
               strategies[i], d.best_us);
    }
    s->dims[3].independent = 1;
    struct drive d;
    if (run("predictor", s, NULL, big_time, 200, 1, 2, &d))
        ok(d.trials <= 200 && d.stopped && drive_clean(&d),
           "predictor on 2^22 configurations, S independent: 6 bases of 32 trials fit (%ld trials)", d.trials);
    gt_space_free(s);
}

/* ---- static Pareto pruning ---- */

/* 768 configurations of A, B, C, D (space() with E = F = 0), whose time
 * follows their estimates: instructions I grow with A and C, the block is
 * 32 << B threads over 2^16 in all, D adds blocking regions, and the time
 * is I x threads over the utilization, which saturates.  A = 3 with B = 2
 * cannot be resident. */
#define PARETO_SAT 3000.0

static int synth(const struct gt_space *s, const uint32_t *c, void *arg, struct gt_estimate *e)
{
    (void)s, (void)arg;
    double instr = 1000 * (1 + c[A]) * (1 + 0.3 * h(50, c[C], c[A]));
    unsigned block = 32u << c[B];
    int resident = 2048 / (int)block < 16 ? 2048 / (int)block : 16;
    *e = (struct gt_estimate){.instr = instr, .regions = 1 + 10.0 * c[D] + 5 * h(51, c[C], c[D]),
                              .threads = 65536, .block_threads = block,
                              .blocks_per_sm = c[A] == 3 && c[B] == 2 ? 0 : resident, .regs = 32};
    return 0;
}

static double utilization(const struct gt_estimate *e)
{
    double w = e->block_threads / 32.0, b = e->blocks_per_sm;
    return e->instr / e->regions * ((w - 1) / 2 + (b - 1) * w);
}

static double synth_time(const struct gt_space *s, const uint32_t *c, void *arg)
{
    struct gt_estimate e;
    synth(s, c, arg, &e);
    if (!e.blocks_per_sm)
        return -1;
    double u = utilization(&e);
    return e.instr * e.threads / (u < PARETO_SAT ? u : PARETO_SAT) * 1e-3;
}

/* The trials in order, by rank. */
static uint64_t tried_order[1024];
static long ntried_order;

static void note_trial(void *arg, const uint32_t *c, int may_cut, enum gt_trial_status status)
{
    (void)may_cut, (void)status;
    const struct gt_space *s = arg;
    if (ntried_order < 1024)
        tried_order[ntried_order++] = gt_space_rank(s, c);
}

static int pareto_run(const struct gt_space *s, const char *sample, drive_time_fn f, double factor,
                      int with_estimates, struct drive *d)
{
    struct gt_settings set;
    struct gt_kv kv;
    drive_param(&set, &kv, "sample", sample);
    struct gt_strategy *st = drive_strategy("pareto", s, &set, 0, 7);
    if (!st)
        return 0;
    ntried_order = 0;
    *d = (struct drive){.factor = factor, .ask_again = 1, .seen = note_trial,
                        .estimate = with_estimates ? synth : NULL};
    drive_run(st, s, f, (void *)s, 0, d);
    gt_strategy_free(st);
    return 1;
}

/* Whether p is dominated by a valid configuration of s (not the original). */
static int dominated(const struct gt_space *s, const uint32_t *p)
{
    struct gt_estimate ep, eq;
    uint32_t q[NDIMS];
    synth(s, p, NULL, &ep);
    double effp = 1 / (ep.instr * ep.threads), up = utilization(&ep);
    for (uint64_t r = 1; r < s->size; r++) {
        gt_space_unrank(s, r, q);
        if (gt_space_check(s, q, NULL, NULL) != 1 || synth(s, q, NULL, &eq) != 0 || !eq.blocks_per_sm)
            continue;
        double effq = 1 / (eq.instr * eq.threads), uq = utilization(&eq);
        if (effq >= effp && uq >= up && (effq > effp || uq > up))
            return 1;
    }
    return 0;
}

/* A staged strategy (pareto-tree, pareto-guided) run to 40 trials on s
 * with strategy.sample = 1000, as *d saw it: whether its first `front`
 * trials were all on the estimated front; -1 when it cannot be made. */
static int staged_front_first(const char *name, struct gt_space *s, long front, struct drive *d)
{
    struct gt_settings set;
    struct gt_kv kv;
    drive_param(&set, &kv, "sample", "1000");
    struct gt_strategy *st = drive_strategy(name, s, &set, 40, 3);
    if (!st)
        return -1;
    *d = (struct drive){.factor = 2, .ask_again = 1, .seen = note_trial, .estimate = synth};
    ntried_order = 0;
    drive_run(st, s, synth_time, (void *)s, 40, d);
    gt_strategy_free(st);
    uint32_t c[NDIMS];
    int front_first = 1;
    for (long i = 0; i < front && i < ntried_order; i++) {
        gt_space_unrank(s, tried_order[i], c);
        front_first &= !dominated(s, c);
    }
    return front_first;
}

/* pareto-tree: 64 estimates, the first 8 of the fronts tried, then the
 * tree with every result so far, to the budget. */
static void pareto_tree_tests(void)
{
    struct gt_space *s = space(0, "E == 0 && F == 0");
    struct drive d;
    int front_first = staged_front_first("pareto-tree", s, 5, &d);
    if (front_first < 0)
        return;
    ok(d.estimates == 767 && d.trials == 40 && drive_clean(&d) && front_first,
       "pareto-tree, strategy.sample = 1000: every configuration estimated, the front (5) tried first, then the "
       "budget's trials (%ld)", d.trials);
    ok(d.best_us == optimum(s, synth_time) && d.best_at <= 5, "  the optimum, at trial %ld (%.1f us)", d.best_at,
       d.best_us);
    struct gt_strategy *st = drive_strategy("pareto-tree", s, NULL, 200, 3);
    d = (struct drive){.factor = 2, .shuffle = 5, .ask_again = 1};
    if (st)
        drive_run(st, s, additive_holes, NULL, 200, &d);
    gt_strategy_free(st);
    ok(d.trials == 200 && d.estimates == 64 && drive_clean(&d),
       "  by default 64 estimates; without answers, with reports shuffled: 200 distinct valid trials (%ld)",
       d.trials);
    gt_space_free(s);
}

static void pareto_tests(void)
{
    struct gt_space *s = space(0, "E == 0 && F == 0");
    uint32_t c[NDIMS];
    long valid = 0, resident = 0, front = 0;
    for (uint64_t r = 1; r < s->size; r++) {
        gt_space_unrank(s, r, c);
        if (gt_space_check(s, c, NULL, NULL) != 1)
            continue;
        valid++;
        resident += synth_time(s, c, NULL) > 0;
        front += synth_time(s, c, NULL) > 0 && !dominated(s, c);
    }
    ok(valid == 767 && front > 1 && front < 40, "pareto: %ld of %ld configurations on the front", front, valid);
    struct drive d;
    if (!pareto_run(s, "1000", synth_time, 0, 1, &d))
        return;
    ok(d.estimates == valid && d.trials == resident && drive_clean(&d) && d.stopped,
       "every configuration estimated, every resident one tried, each once (%ld estimates, %ld trials)",
       d.estimates, d.trials);
    int front_first = 1;
    for (long i = 0; i < front && i < ntried_order; i++) {
        gt_space_unrank(s, tried_order[i], c);
        front_first &= !dominated(s, c);
    }
    ok(front_first, "the first %ld trials are the front", front);
    double best = optimum(s, synth_time);
    ok(d.best_us == best && d.best_at <= front, "the optimum is on the front: found at trial %ld of %ld (%.1f us)",
       d.best_at, front, d.best_us);

    pareto_run(s, "100", synth_time, 2, 1, &d);
    ok(d.estimates == 100 && d.trials <= 100 && drive_clean(&d) && d.stopped,
       "strategy.sample = 100: 100 estimates, then at most those tried (%ld)", d.trials);
    pareto_run(s, "1000", synth_time, 0, 0, &d);
    ok(d.estimates == valid && d.trials == valid && drive_clean(&d),
       "without estimates every configuration is tried, each once (%ld trials)", d.trials);
    gt_space_free(s);

    /* whole spaces with holes and a slow tail, estimates unrelated to times */
    s = space(0, "E < 2");
    drive_time_fn fns[] = {additive_holes, separable_tail};
    const char *names[] = {"invalid results", "a slow tail cut short"};
    for (int i = 0; i < 2; i++) {
        pareto_run(s, "300", fns[i], 2, 1, &d);
        ok(d.trials > 0 && d.trials <= 300 && drive_clean(&d) && d.stopped && (i == 0 ? d.invalid : d.aborted) > 0,
           "pareto copes with %s (%ld trials, %ld invalid, %ld cut)", names[i], d.trials, d.invalid, d.aborted);
    }
    pareto_tree_tests();
    refuses("pareto", s, "sample", "0", "strategy.sample = 0: expected a number from 1 to 1e+07");
    refuses("pareto-tree", s, "seeds", "-1", "strategy.seeds = -1: expected a number from 1 to 1e+06");
    gt_space_free(s);
}

/* ---- the forest-guided search ---- */

/* guided: on the synthetic landscapes, near the optimum within a default
 * budget; every rule kept with invalid results, a slow tail cut short,
 * reports shuffled, and no original's time; the whole space when the
 * budget allows; its parameters checked. */
static void guided_tests(void)
{
    struct gt_space *s = space(0, "E < 2");
    drive_time_fn fns[] = {separable, interacting_log, additive_holes, separable_tail, no_original};
    const char *what[] = {"separable", "interacting", "invalid results", "a slow tail cut short", "no original"};
    for (int i = 0; i < 5; i++) {
        double best = optimum(s, fns[i]), worst = 0, sum = 0;
        int clean = 1;
        long cut = 0, invalid = 0;
        for (uint64_t seed = 1; seed <= SEEDS; seed++) {
            struct drive d;
            if (!run("guided", s, NULL, fns[i], 64, seed, 2, &d))
                return;
            clean &= drive_clean(&d) && d.trials == 64;
            cut += d.aborted;
            invalid += d.invalid;
            worst = best / d.best_us > worst && worst > 0 ? worst : best / d.best_us;
            sum += best / d.best_us;
        }
        ok(clean && sum / SEEDS >= 0.9 && worst >= 0.5 && (i != 2 || invalid) && (i != 3 || cut),
           "guided, %s: 64 valid, distinct trials, on average within 90%% of the optimum over %d seeds (%.3f, "
           "worst %.3f)", what[i], SEEDS, sum / SEEDS, worst);
    }
    struct drive d;
    if (run("guided", s, NULL, separable, 0, 1, 2, &d))
        ok(d.trials == 6143 && d.stopped && drive_clean(&d), "  without a budget: every configuration once (%ld)",
           d.trials);
    struct gt_settings set;
    struct gt_kv kv;
    drive_param(&set, &kv, "local", "0");
    if (run("guided", s, &set, separable, 100, 2, 2, &d))
        ok(d.trials == 100 && drive_clean(&d), "  strategy.local = 0: 100 trials (%ld)", d.trials);
    int found = 0, found_without = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        found += run("guided", s, NULL, ridge, 160, seed, 2, &d) && d.best_us == optimum(s, ridge);
        drive_param(&set, &kv, "ridge", "0");
        found_without += run("guided", s, &set, ridge, 160, seed, 2, &d) && d.best_us == optimum(s, ridge);
    }
    ok(found == SEEDS && found_without < SEEDS / 2,
       "  a ridge move from a local optimum: found within 160 trials over %d of %d seeds, %d with strategy.ridge = 0",
       found, SEEDS, found_without);
    drive_param(&set, &kv, "trees", "1");
    if (run("guided", s, &set, separable, 100, 2, 2, &d))
        ok(d.trials == 100 && drive_clean(&d), "  strategy.trees = 1 (no resampling): 100 trials (%ld)", d.trials);
    refuses("guided", s, "step", "0", "strategy.step = 0: expected a number from 1 to 1e+06");
    gt_space_free(s);
}

/* pareto-guided run to 64 trials with strategy.sample = 1000 (and
 * strategy.step = step, unless NULL): whether every round of trials after
 * the first `after` trials, the last but one at most, held `want`; the
 * rounds are said. */
static int staged_steps(struct gt_space *s, const char *step, size_t pace, int after, int want)
{
    struct gt_settings set;
    struct gt_kv kv[2] = {{"sample", "1000", {"test", 1, 1}}, {"step", (char *)step, {"test", 2, 1}}};
    gt_settings_init(&set);
    set.sparams = kv;
    set.nsparams = step ? 2 : 1;
    struct gt_strategy *st = drive_strategy("pareto-guided", s, &set, 64, 3);
    struct drive d = {.factor = 2, .estimate = synth};
    if (!st)
        return 0;
    gt_strategy_pace(st, pace);
    drive_run(st, s, synth_time, (void *)s, 64, &d);
    gt_strategy_free(st);
    char text[256] = "";
    int seen = 0, steady = d.nrounds > 2, n = 0;
    for (int i = 0; i < d.nrounds; i++) {
        n += snprintf(text + n, sizeof text - (size_t)n, "%s%d", i ? " " : "", d.rounds[i]);
        if (n >= (int)sizeof text)
            n = (int)sizeof text - 1;
        if (seen >= after && i < d.nrounds - 1)
            steady &= d.rounds[i] == want;
        seen += d.rounds[i];
    }
    diag("pareto-guided%s%s, pace %zu: rounds of %s trials", step ? ", strategy.step = " : "", step ? step : "", pace,
         text);
    return steady;
}

/* pareto-guided: the estimates, the first 6 in front order tried (the
 * front's 4 first), then the guided search with every result so far, in
 * steps of its own defaults. */
static void pareto_guided_tests(void)
{
    struct gt_space *s = space(0, "E == 0 && F == 0");
    struct drive d;
    int front_first = staged_front_first("pareto-guided", s, 4, &d);
    if (front_first < 0)
        return;
    ok(d.estimates == 767 && d.trials == 40 && drive_clean(&d) && front_first,
       "pareto-guided, strategy.sample = 1000: every configuration estimated, 4 of the front tried first, then the "
       "budget's trials (%ld)", d.trials);
    ok(d.best_us == optimum(s, synth_time), "  the optimum, at trial %ld (%.1f us)", d.best_at, d.best_us);
    ok(staged_steps(s, NULL, 0, 10, 4), "  by default, after 6 seeds and 4 uniform draws, steps of 4 trials");
    ok(staged_steps(s, "8", 0, 10, 8), "  strategy.step = 8: steps of 8");
    ok(staged_steps(s, NULL, 12, 10, 12), "  the engine's pace of 12 (its time will end the search first): steps of 12");
    ok(staged_steps(s, "8", 2, 10, 8), "  a pace below the step leaves the step as it is");
    gt_space_free(s);
}

/* ---- Bayesian optimization ---- */

/* A smooth bowl with its floor at A = 2, B = 1, C = 5, D = 3, E = 1, F = 2. */
static double bowl(const struct gt_space *s, const uint32_t *c, void *arg)
{
    (void)s, (void)arg;
    static const int floor_at[NDIMS] = {2, 1, 5, 3, 1, 2};
    double t = 10;
    for (int d = 0; d < NDIMS; d++)
        t += ((double)c[d] - floor_at[d]) * ((double)c[d] - floor_at[d]);
    return t;
}

static double always_fails(const struct gt_space *s, const uint32_t *c, void *arg)
{
    (void)s, (void)c, (void)arg;
    return -1;
}

static uint64_t seen_ranks[256];
static long nseen;

static void note_rank(void *arg, const uint32_t *c, int may_cut, enum gt_trial_status status)
{
    (void)may_cut, (void)status;
    if (nseen < 256)
        seen_ranks[nseen++] = gt_space_rank(arg, c);
}

/* The ranks of one run's trials in the order tried, into ranks; how many. */
static long bayes_trials(const struct gt_space *s, const struct gt_settings *set, uint64_t seed, uint64_t *ranks)
{
    struct gt_strategy *st = drive_strategy("bayes", s, set, 64, seed);
    if (!st)
        return 0;
    struct drive d = {.factor = 2, .seen = note_rank};
    nseen = 0;
    drive_run(st, s, separable_holes, (void *)s, 64, &d);
    gt_strategy_free(st);
    memcpy(ranks, seen_ranks, (size_t)nseen * sizeof *ranks);
    return drive_clean(&d) ? nseen : -1;
}

/* bayes: valid, distinct trials, the same for a seed; the floor of a bowl
 * found; near the optimum of the synthetic landscapes, invalid results and
 * a slow tail among them; nothing but valid trials when every one fails;
 * its parameters checked. */
static void bayes_tests(void)
{
    struct gt_space *s = space(0, "E < 2 && F < 3");
    uint64_t first[256], again[256], other[256];
    long n1 = bayes_trials(s, NULL, 5, first), n2 = bayes_trials(s, NULL, 5, again);
    long n3 = bayes_trials(s, NULL, 6, other);
    ok(n1 == 64 && n2 == 64 && n3 == 64, "bayes: 64 valid, distinct trials, never the original, with invalid "
       "results among them (%ld, %ld, %ld)", n1, n2, n3);
    ok(n1 == n2 && !memcmp(first, again, sizeof(uint64_t) * (size_t)n1), "  the same seed, the same trials");
    ok(n3 != n1 || memcmp(first, other, sizeof(uint64_t) * (size_t)n1), "  another seed, others");
    int found = 0;
    long latest = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        struct drive d;
        if (run("bayes", s, NULL, bowl, 64, seed, 2, &d) && d.best_us == optimum(s, bowl)) {
            found++;
            latest = d.best_at > latest ? d.best_at : latest;
        }
    }
    ok(found == SEEDS && latest <= 64, "  the floor of a smooth bowl (4608 configurations) within 64 trials over %d "
       "of %d seeds (at trial %ld at the latest)", found, SEEDS, latest);
    drive_time_fn fns[] = {interacting_log, additive_holes, separable_tail, no_original};
    const char *what[] = {"interacting", "invalid results", "a slow tail cut short", "no original"};
    for (int i = 0; i < 4; i++) {
        double best = optimum(s, fns[i]), sum = 0;
        int clean = 1;
        for (uint64_t seed = 1; seed <= SEEDS; seed++) {
            struct drive d;
            if (!run("bayes", s, NULL, fns[i], 64, seed, 2, &d))
                return;
            clean &= drive_clean(&d) && d.trials == 64;
            sum += best / d.best_us;
        }
        ok(clean && sum / SEEDS >= 0.9, "  %s: 64 valid, distinct trials, on average within 90%% of the optimum over "
           "%d seeds (%.3f)", what[i], SEEDS, sum / SEEDS);
    }
    struct drive d;
    if (run("bayes", s, NULL, always_fails, 100, 3, 2, &d))
        ok(d.trials == 100 && d.invalid == 100 && drive_clean(&d), "  every trial failing: 100 valid, distinct "
           "trials all the same (%ld)", d.trials);
    struct gt_space *small = space(0, "C < 2 && D < 2 && E < 2");
    if (run("bayes", small, NULL, separable, 0, 1, 2, &d))
        ok(d.trials == 383 && d.stopped && drive_clean(&d), "  without a budget: every configuration once (%ld)",
           d.trials);
    gt_space_free(small);
    struct gt_settings set;
    struct gt_kv kv;
    const char *acq[] = {"ei", "pi", "lcb"};
    for (int i = 0; i < 3; i++) {
        drive_param(&set, &kv, "acquisition", acq[i]);
        if (run("bayes", s, &set, separable, 64, 2, 2, &d))
            ok(d.trials == 64 && drive_clean(&d) && d.best_us <= 1.1 * optimum(s, separable),
               "  strategy.acquisition = %s: within 10%% of the optimum in 64 trials", acq[i]);
    }
    refuses("bayes", s, "acquisition", "ucb", "strategy.acquisition = ucb: expected ei, pi or lcb");
    refuses("bayes", s, "limit", "1", "strategy.limit = 1: expected a number from 2 to 4096");
    gt_space_free(s);
}

int main(void)
{
    cart_tests();
    predictor_exact();
    predictor_holes();
    predictor_budget();
    for (size_t i = 0; i < sizeof tree_cases / sizeof *tree_cases; i++)
        tree_runs(&tree_cases[i]);
    tree_misc();
    large_space();
    pareto_tests();
    guided_tests();
    pareto_guided_tests();
    bayes_tests();
    return done_testing();
}
