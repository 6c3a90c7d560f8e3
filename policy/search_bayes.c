/* search_bayes.c: Bayesian optimization with a Gaussian process, strategy
 * `bayes`, after Kernel Tuner's (Willemsen, van Werkhoven and van
 * Nieuwpoort, "Bayesian Optimization for auto-tuning GPU kernels", PMBS
 * 2021).
 *
 * A configuration is a point of [0, 1]^k: each dimension's value index over
 * its last.  The model is a Gaussian process with a Matern 5/2 kernel of one
 * length scale, fitted to the logarithm of the time, standardized over every
 * result so far: a trial cut short counts as the time it ran (a lower bound,
 * and slow anyway), an invalid one as the slowest time seen, so that the model
 * steers away from where configurations fail.  The length scale and the noise
 * are those of SCALES x NOISES of highest marginal likelihood (the amplitude
 * has a closed form), chosen again whenever the results have grown by a
 * quarter, until REFIT_UNTIL results: by then they have settled.
 *
 * The first step is strategy.initial (default 16, one batch of the engine's
 * parallel builds) configurations spread out by maximin: each the farthest,
 * from those before it and the original, of MAXIMIN_DRAWS uniform draws.
 * Each step after proposes strategy.step (default 8) configurations of
 * highest acquisition (strategy.acquisition: ei, expected improvement by
 * more than strategy.xi, the default; pi, the probability of such an
 * improvement; lcb, the mean minus strategy.kappa standard deviations) among
 * every untried valid configuration, or, past CANDIDATES of them, the
 * fastest result's untried neighbours (one dimension changed) and
 * CANDIDATES uniform draws.  The first strategy.local (default 4) of a step
 * are the fastest result's neighbours of highest acquisition while there
 * are any: on the recorded landscapes the model, fitted to few results,
 * found 95% of the optimum fast but often stalled short of 98%, which a
 * local search around the fastest result reaches (bench/replay, 30 runs:
 * coulomb 63% -> 80% of runs at 98% within 64 trials, conv2d 83% -> 93%).
 * Within a step each proposal is taken as measured at the model's mean
 * (kriging believer): the uncertainty around it shrinks, so the next
 * proposal goes where the model still expects a gain rather than beside the
 * first.  Without a valid result the model has nothing to learn: steps draw
 * uniformly.
 *
 * Cost: the model is fitted to strategy.limit (default 64) results at most,
 * the fastest half of them and the most recent rest, where a long search's
 * steps would otherwise grow with the cube of its results; the
 * standardization still sees them all, so a region the fitted results do
 * not cover is expected to be as slow as the average.  Past REFIT_UNTIL
 * results a step proposes LATE_STEP at least.  A step costs a few
 * milliseconds on the recorded spaces (up to 11130 configurations; a run
 * of 64 trials about 30 ms, of 1000 about 0.4 s). */
#include "alloc.h"
#include "cart.h"
#include "strategies.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_INITIAL 16
#define DEFAULT_STEP 8
#define DEFAULT_LIMIT 64
#define DEFAULT_LOCAL 4
#define DEFAULT_XI 0.01      /* in standard deviations of the log time */
#define DEFAULT_KAPPA 2.0
#define CANDIDATES 2048      /* untried configurations the acquisition is evaluated on at most */
#define MAXIMIN_DRAWS 32
#define REFIT_UNTIL 256
#define LATE_STEP 16         /* proposals a step at least past REFIT_UNTIL results */

static const double SCALES[] = {0.05, 0.1, 0.15, 0.2, 0.3, 0.45, 0.7, 1.0, 1.5};
static const double NOISES[] = {1e-4, 1e-2, 1e-1};   /* of the amplitude */

enum acquisition { ACQ_EI, ACQ_PI, ACQ_LCB };
static const char *const acquisitions[] = {"ei", "pi", "lcb", NULL};

struct bayes {
    struct gt_search_batch b;   /* first: see gt_search_batch_report */
    size_t k, initial, step, limit, local;
    int acq;
    double xi, kappa;
    struct gt_cart_data d;      /* the results: log time NAN where invalid */
    double scale, noise;        /* the kernel's, once fitted */
    size_t fit_n;               /* the results they were chosen on */
    int fitted, started;
    uint32_t *scratch;
};

/* What one step's model is made of: the results it is fitted to, and the
 * candidates it scores. */
struct model {
    size_t n, k;
    double *t;          /* n x k: the fitted results' points */
    double *y;          /* n: their standardized targets */
    double *l;          /* n x n: the kernel matrix's Cholesky factor (lower) */
    double *beta;       /* n: l^-1 y */
    double amp;         /* the kernel's amplitude */
    double best;        /* the fastest standardized target of every result */
    size_t m;
    uint32_t *cfg;      /* m x k: the candidates */
    double *c;          /* m x k: their points */
    double *v;          /* n x m: l^-1 times the kernel between results and candidates */
    double *mu, *var;   /* m: the posterior mean, and variance over the amplitude */
    double *u;          /* step x m: each fantasized proposal's update of the variance */
    double *dot;        /* m: scratch */
    unsigned char *near;  /* m: a neighbour of the fastest result */
    unsigned char *taken;
};

static const char *const bayes_params[] = {"initial", "step", "limit", "local", "acquisition", "xi", "kappa", NULL};

static void bayes_free(void *state)
{
    struct bayes *g = state;
    if (!g)
        return;
    gt_search_batch_free(&g->b);
    gt_cart_data_free(&g->d);
    free(g->scratch);
    free(g);
}

static int bayes_init(struct gt_strategy *st, char *err, size_t errlen)
{
    if (gt_search_param_check(st, "initial", 1, 1e6, err, errlen) != 0 ||
        gt_search_param_check(st, "step", 1, 1e6, err, errlen) != 0 ||
        gt_search_param_check(st, "limit", 2, 4096, err, errlen) != 0 ||
        gt_search_param_check(st, "local", 0, 1e6, err, errlen) != 0 ||
        gt_search_param_check(st, "xi", 0, 100, err, errlen) != 0 ||
        gt_search_param_check(st, "kappa", 0, 100, err, errlen) != 0)
        return -1;
    int acq = gt_search_param_word(st, "acquisition", acquisitions, ACQ_EI, err, errlen);
    if (acq < 0)
        return -1;
    struct bayes *g = gt_calloc(1, sizeof *g);
    st->state = g;
    if (!g || !(g->scratch = gt_calloc(st->s->ndims + 1, sizeof *g->scratch))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    g->k = g->d.k = st->s->ndims;
    g->acq = acq;
    g->initial = (size_t)gt_search_param(st, "initial", DEFAULT_INITIAL);
    g->step = (size_t)gt_search_param(st, "step", DEFAULT_STEP);
    g->limit = (size_t)gt_search_param(st, "limit", DEFAULT_LIMIT);
    g->local = (size_t)gt_search_param(st, "local", DEFAULT_LOCAL);
    g->xi = gt_search_param(st, "xi", DEFAULT_XI);
    g->kappa = gt_search_param(st, "kappa", DEFAULT_KAPPA);
    return 0;
}

static void bayes_report(struct gt_strategy *st, const uint32_t *cfg, double us, enum gt_trial_status status)
{
    struct bayes *g = st->state;
    gt_search_batch_report(st, cfg, us, status);
    gt_cart_data_add(&g->d, cfg, status != GT_TRIAL_INVALID ? us : 0, status == GT_TRIAL_ABORTED);
}

/* ---- points and the kernel ---- */

static void point(const struct gt_strategy *st, const uint32_t *cfg, double *p)
{
    for (size_t d = 0; d < st->s->ndims; d++)
        p[d] = st->s->dims[d].n > 1 ? (double)cfg[d] / (double)(st->s->dims[d].n - 1) : 0;
}

static double dist2(const double *a, const double *b, size_t k)
{
    double s = 0;
    for (size_t d = 0; d < k; d++)
        s += (a[d] - b[d]) * (a[d] - b[d]);
    return s;
}

/* Matern 5/2 of unit amplitude, from the squared distance. */
static double matern(double d2, double scale)
{
    double a = sqrt(5 * d2) / scale;
    return (1 + a + a * a / 3) * exp(-a);
}

/* In place: a's lower triangle becomes its Cholesky factor; -1 when a is
 * not positive definite. */
static int cholesky(double *a, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        double d = a[j * n + j];
        for (size_t l = 0; l < j; l++)
            d -= a[j * n + l] * a[j * n + l];
        if (!(d > 0))
            return -1;
        a[j * n + j] = d = sqrt(d);
        for (size_t i = j + 1; i < n; i++) {
            double s = a[i * n + j];
            for (size_t l = 0; l < j; l++)
                s -= a[i * n + l] * a[j * n + l];
            a[i * n + j] = s / d;
        }
    }
    return 0;
}

/* b = l^-1 b. */
static void forward(const double *l, size_t n, double *b)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < i; j++)
            b[i] -= l[i * n + j] * b[j];
        b[i] /= l[i * n + i];
    }
}

/* ---- fitting ---- */

/* The standardized targets of every result (invalid ones at the slowest
 * valid time) into y; 0 when no result is valid. */
static int targets(const struct bayes *g, double *y, double *best)
{
    double lo = INFINITY, hi = -INFINITY, sum = 0, sq = 0;
    for (size_t i = 0; i < g->d.n; i++)
        if (!isnan(g->d.y[i])) {
            lo = g->d.y[i] < lo ? g->d.y[i] : lo;
            hi = g->d.y[i] > hi ? g->d.y[i] : hi;
        }
    if (!isfinite(lo))
        return 0;
    for (size_t i = 0; i < g->d.n; i++) {
        y[i] = isnan(g->d.y[i]) ? hi : g->d.y[i];
        sum += y[i];
        sq += y[i] * y[i];
    }
    double mean = sum / (double)g->d.n, var = sq / (double)g->d.n - mean * mean;
    double sd = var > 1e-12 ? sqrt(var) : 1;
    for (size_t i = 0; i < g->d.n; i++)
        y[i] = (y[i] - mean) / sd;
    *best = (lo - mean) / sd;
    return 1;
}

/* The results the model is fitted to: all, or past the limit the fastest
 * half and then the most recent; their count. */
static size_t fit_set(const struct bayes *g, const double *y, size_t *idx)
{
    if (g->d.n <= g->limit) {
        for (size_t i = 0; i < g->d.n; i++)
            idx[i] = i;
        return g->d.n;
    }
    size_t *order = gt_search_order(y, g->d.n), n = 0;
    unsigned char *in = gt_calloc(g->d.n, 1);
    if (!order || !in) {
        free(order);
        free(in);
        return 0;
    }
    for (; n < g->limit / 2; n++)
        in[idx[n] = order[n]] = 1;
    for (size_t i = g->d.n; i-- > 0 && n < g->limit;)
        if (!in[i])
            idx[n++] = i;
    free(order);
    free(in);
    return n;
}

/* The kernel matrix of the fitted results for (scale, noise), factored
 * into m->l, beta and amp set; its log marginal likelihood, -INFINITY when
 * it cannot be factored. */
static double factor(struct model *m, const double *d2, double scale, double noise)
{
    size_t n = m->n;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++)
            m->l[i * n + j] = matern(d2[i * n + j], scale) + (i == j ? noise : 0);
    if (cholesky(m->l, n) != 0)
        return -INFINITY;
    memcpy(m->beta, m->y, n * sizeof *m->beta);
    forward(m->l, n, m->beta);
    double fit = 0, logdet = 0;
    for (size_t i = 0; i < n; i++) {
        fit += m->beta[i] * m->beta[i];
        logdet += log(m->l[i * n + i]);
    }
    /* the amplitude of highest likelihood: then y' K^-1 y = n */
    m->amp = fit / (double)n > 1e-12 ? fit / (double)n : 1e-12;
    return -0.5 * (double)n * log(m->amp) - logdet;
}

/* Chooses the kernel's scale and noise by marginal likelihood, again when
 * the results have grown by a quarter since (until REFIT_UNTIL results),
 * and leaves m factored with them; -1 when none factors. */
static int fit(struct bayes *g, struct model *m)
{
    size_t n = m->n;
    double *d2 = gt_malloc(n * n * sizeof *d2 + 1);
    if (!d2)
        return -1;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++)
            d2[i * n + j] = dist2(m->t + i * m->k, m->t + j * m->k, m->k);
    if (!g->fitted || (g->d.n < REFIT_UNTIL && 4 * g->d.n >= 5 * g->fit_n)) {
        g->fit_n = g->d.n;
        double best = -INFINITY;
        for (size_t s = 0; s < sizeof SCALES / sizeof *SCALES; s++)
            for (size_t e = 0; e < sizeof NOISES / sizeof *NOISES; e++) {
                double ll = factor(m, d2, SCALES[s], NOISES[e]);
                if (ll > best) {
                    best = ll;
                    g->scale = SCALES[s];
                    g->noise = NOISES[e];
                    g->fitted = 1;
                }
            }
    }
    int rc = g->fitted && isfinite(factor(m, d2, g->scale, g->noise)) ? 0 : -1;
    free(d2);
    return rc;
}

/* ---- candidates ---- */

static void add_candidate(struct model *m, const uint32_t *cfg)
{
    memcpy(m->cfg + m->m * m->k, cfg, m->k * sizeof *cfg);
    m->m++;
}

static void add_neighbour(void *m, const uint32_t *cfg)
{
    add_candidate(m, cfg);
}

/* Every untried valid configuration, or past CANDIDATES of them the
 * untried neighbours of the fastest result (fastest: its configuration)
 * and uniform draws; the neighbours flagged. */
static void candidates(struct gt_strategy *st, struct model *m, const uint32_t *fastest, uint32_t *cfg)
{
    m->m = 0;
    if (st->listed && st->nranks - st->ntried <= CANDIDATES) {
        for (uint64_t i = 0; i < st->nranks; i++) {
            gt_space_unrank(st->s, st->ranks[i], cfg);
            if (!gt_search_tried(st, cfg))
                add_candidate(m, cfg);
        }
    } else {
        gt_search_neighbours(st, fastest, cfg, add_neighbour, m);
        for (size_t near = m->m; m->m < near + CANDIDATES && gt_search_random(st, cfg);)
            add_candidate(m, cfg);
    }
    for (size_t j = 0; j < m->m; j++) {
        size_t moved = 0;
        for (size_t d = 0; d < m->k; d++)
            moved += m->cfg[j * m->k + d] != fastest[d];
        m->near[j] = moved == 1;
        point(st, m->cfg + j * m->k, m->c + j * m->k);
    }
}

/* The posterior at every candidate: mean, and variance over the amplitude. */
static void predict(const struct bayes *g, struct model *m)
{
    size_t n = m->n, c = m->m;
    for (size_t i = 0; i < n; i++) {
        double *restrict row = m->v + i * c;
        for (size_t j = 0; j < c; j++)
            row[j] = matern(dist2(m->t + i * m->k, m->c + j * m->k, m->k), g->scale);
        for (size_t l = 0; l < i; l++) {
            const double *restrict prev = m->v + l * c, f = m->l[i * n + l];
            for (size_t j = 0; j < c; j++)
                row[j] -= f * prev[j];
        }
        for (size_t j = 0; j < c; j++)
            row[j] /= m->l[i * n + i];
    }
    double *restrict mu = m->mu, *restrict var = m->var;
    for (size_t j = 0; j < c; j++)
        mu[j] = 0, var[j] = 1;
    for (size_t i = 0; i < n; i++) {
        const double *restrict row = m->v + i * c, b = m->beta[i];
        for (size_t j = 0; j < c; j++) {
            mu[j] += row[j] * b;
            var[j] -= row[j] * row[j];
        }
    }
}

/* ---- acquisition ---- */

static double acquire(const struct bayes *g, const struct model *m, size_t j)
{
    double sd = m->var[j] > 0 ? sqrt(m->amp * m->var[j]) : 0, gain = m->best - m->mu[j];
    if (g->acq == ACQ_LCB)
        return gain + g->kappa * sd;
    gain -= g->xi;
    if (sd <= 0)
        return g->acq == ACQ_EI ? (gain > 0 ? gain : 0) : gain > 0;
    double z = gain / sd, cdf = 0.5 * erfc(-z / M_SQRT2);
    if (g->acq == ACQ_PI)
        return cdf;
    return gain * cdf + sd * exp(-0.5 * z * z) / sqrt(2 * M_PI);
}

/* Takes candidate p as measured at its mean: every candidate's variance
 * shrinks by its posterior covariance with p, the f-th such update. */
static void believe(const struct bayes *g, struct model *m, size_t p, size_t f)
{
    size_t c = m->m;
    double *restrict u = m->u + f * c, *restrict dot = m->dot, *restrict var = m->var;
    double s = sqrt(var[p] + g->noise);
    for (size_t j = 0; j < c; j++)
        dot[j] = matern(dist2(m->c + j * m->k, m->c + p * m->k, m->k), g->scale);
    for (size_t i = 0; i < m->n; i++) {
        const double *restrict row = m->v + i * c, vp = row[p];
        for (size_t j = 0; j < c; j++)
            dot[j] -= row[j] * vp;
    }
    for (size_t e = 0; e < f; e++) {
        const double *restrict prev = m->u + e * c, up = prev[p];
        for (size_t j = 0; j < c; j++)
            dot[j] -= prev[j] * up;
    }
    for (size_t j = 0; j < c; j++) {
        u[j] = dot[j] / s;
        var[j] -= u[j] * u[j];
    }
}

/* The candidate of highest acquisition not taken yet, among the fastest
 * result's neighbours only when near; SIZE_MAX when there is none. */
static size_t pick(const struct bayes *g, const struct model *m, int near)
{
    size_t p = SIZE_MAX;
    double top = -INFINITY;
    for (size_t j = 0; j < m->m; j++) {
        if (m->taken[j] || (near && !m->near[j]))
            continue;
        double a = acquire(g, m, j);
        if (p == SIZE_MAX || a > top)
            top = a, p = j;
    }
    return p;
}

/* Plans up to want candidates, each of highest acquisition once those
 * before it are believed: the first `local` among the fastest result's
 * neighbours while there are any. */
static void propose(struct gt_strategy *st, struct bayes *g, struct model *m, size_t want)
{
    for (size_t f = 0; g->b.n < want && f < want;) {
        size_t p = g->b.n < g->local ? pick(g, m, 1) : SIZE_MAX;
        if (p == SIZE_MAX)
            p = pick(g, m, 0);
        if (p == SIZE_MAX)
            return;
        m->taken[p] = 1;
        int added = gt_search_batch_add(st, &g->b, m->cfg + p * m->k);
        if (added < 0)
            return;
        if (added)
            believe(g, m, p, f++);
    }
}

/* ---- steps ---- */

static void model_free(struct model *m)
{
    free(m->t);
    free(m->y);
    free(m->l);
    free(m->beta);
    free(m->cfg);
    free(m->c);
    free(m->v);
    free(m->mu);
    free(m->var);
    free(m->u);
    free(m->dot);
    free(m->near);
    free(m->taken);
}

/* The fitted results' points and targets; 0 when there is no model to fit
 * (no valid result, or no memory). */
static int model_data(const struct gt_strategy *st, const struct bayes *g, struct model *m, size_t *fastest)
{
    double *y = gt_malloc(g->d.n * sizeof *y + 1);
    size_t *idx = gt_malloc(g->d.n * sizeof *idx + 1);
    int ok = y && idx && targets(g, y, &m->best) && (m->n = fit_set(g, y, idx)) > 0;
    m->k = g->k;
    m->t = ok ? gt_malloc(m->n * m->k * sizeof *m->t + 1) : NULL;
    m->y = ok ? gt_malloc(m->n * sizeof *m->y + 1) : NULL;
    m->l = ok ? gt_malloc(m->n * m->n * sizeof *m->l + 1) : NULL;
    m->beta = ok ? gt_malloc(m->n * sizeof *m->beta + 1) : NULL;
    ok = ok && m->t && m->y && m->l && m->beta;
    for (size_t i = 0; ok && i < m->n; i++) {
        point(st, g->d.x + idx[i] * g->k, m->t + i * m->k);
        m->y[i] = y[idx[i]];
    }
    for (size_t i = 0; ok && i < g->d.n; i++)
        if (y[i] == m->best)
            *fastest = i;
    free(y);
    free(idx);
    return ok;
}

/* The candidates' arrays for want proposals; 0 without memory. */
static int model_room(const struct gt_strategy *st, struct model *m, size_t want)
{
    size_t c = st->nranks - st->ntried;
    if (!st->listed || c > CANDIDATES) {
        c = CANDIDATES;
        for (size_t d = 0; d < m->k; d++)
            c += st->s->dims[d].n - 1;
    }
    m->cfg = gt_malloc(c * m->k * sizeof *m->cfg + 1);
    m->c = gt_malloc(c * m->k * sizeof *m->c + 1);
    m->v = gt_malloc(c * m->n * sizeof *m->v + 1);
    m->mu = gt_malloc(c * sizeof *m->mu + 1);
    m->var = gt_malloc(c * sizeof *m->var + 1);
    m->u = gt_malloc(c * want * sizeof *m->u + 1);
    m->dot = gt_malloc(c * sizeof *m->dot + 1);
    m->near = gt_calloc(c + 1, 1);
    m->taken = gt_calloc(c + 1, 1);
    return m->cfg && m->c && m->v && m->mu && m->var && m->u && m->dot && m->near && m->taken;
}

/* A step from the model, when there is one to fit. */
static void plan_model(struct gt_strategy *st, struct bayes *g, size_t want)
{
    struct model m = {0};
    size_t fastest = 0;
    if (model_data(st, g, &m, &fastest) && fit(g, &m) == 0 && model_room(st, &m, want)) {
        candidates(st, &m, g->d.x + fastest * g->k, g->scratch);
        predict(g, &m);
        propose(st, g, &m, want);
    }
    model_free(&m);
}

/* The first step: each configuration the farthest, of MAXIMIN_DRAWS
 * uniform draws, from the results so far and those planned before it. */
static void plan_spread(struct gt_strategy *st, struct bayes *g, size_t want)
{
    size_t k = g->k;
    double *p = gt_malloc(2 * k * sizeof *p + 1), *q = p ? p + k : NULL;
    uint32_t *far = gt_malloc(k * sizeof *far + 1);
    while (p && far && g->b.n < want) {
        double best = -1;
        for (int i = 0; i < MAXIMIN_DRAWS && gt_search_random(st, g->scratch); i++) {
            double near = INFINITY;
            point(st, g->scratch, p);
            for (size_t j = 0; j < g->d.n + g->b.n; j++) {
                point(st, j < g->d.n ? g->d.x + j * k : g->b.cfg + (j - g->d.n) * k, q);
                double d = dist2(p, q, k);
                near = d < near ? d : near;
            }
            if (near > best) {
                best = near;
                memcpy(far, g->scratch, k * sizeof *far);
            }
        }
        if (best < 0 || gt_search_batch_add(st, &g->b, far) <= 0)
            break;
    }
    free(p);
    free(far);
}

static int bayes_plan(struct gt_strategy *st)
{
    struct bayes *g = st->state;
    gt_search_batch_clear(&g->b);
    if (!g->started && st->baseline_us > 0) {
        gt_space_default(st->s, g->scratch);
        gt_cart_data_add(&g->d, g->scratch, st->baseline_us, 0);
    }
    size_t step = g->d.n < REFIT_UNTIL || g->step > LATE_STEP ? g->step : LATE_STEP;
    size_t want = gt_search_left(st, g->started ? step : g->initial);
    if (g->started)
        plan_model(st, g, want);
    else
        plan_spread(st, g, want);
    g->started = 1;
    gt_search_batch_fill(st, &g->b, g->scratch, want);
    return g->b.n > 0;
}

static int bayes_next(struct gt_strategy *st, uint32_t *cfg)
{
    return gt_search_batch_next(st, st->state, bayes_plan, cfg);
}

const struct gt_search gt_search_bayes = {
    .name = "bayes", .params = bayes_params, .init = bayes_init, .next = bayes_next,
    .report = bayes_report, .free = bayes_free,
};
