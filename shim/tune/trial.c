/* trial.c: one trial of a candidate configuration, inside a session.
 *
 * A trial runs a candidate as run mode would run it (launch-time knobs on
 * the application's own function, or a variant with its module variables
 * copied in and out) on the session's stream, from the saved state restored
 * before each run: once under the watchdog, armed with a deadline of factor
 * x the best time so far; unless that was cut short, again from the same
 * code built without the watchdog's checks, its output checked against the
 * reference, then timed several times (median).  Where checked runs do not
 * time as their plain builds, the checks change the code they watch and
 * their deadlines could stop a configuration for the checks' own cost: the
 * kernel's trials give up a level of checks.  The session (session.c)
 * chooses the candidates and keeps the best. */
#include "trial.h"
#include "direct.h"
#include "median.h"
#include "state.h"
#include "watchdog.h"

#include <stdlib.h>
#include <string.h>

/* Sets the running trial's deadline, ordered before its launch.  The mark
 * of a stop is cleared only at the first launch of a measurement, so that
 * a stop in any of its repetitions is seen after the last. */
static CUresult arm(struct gt_session *s, CUstream stream)
{
    CUdeviceptr wd = s->wd;
    unsigned long long budget = s->budget_ns;
    int clear = s->fresh;
    void *args[] = {&wd, &budget, &clear};
    s->fresh = 0;
    return gt.drv.cuLaunchKernel(s->devk->fn[GT_DEVK_ARM], 1, 1, 1, 1, 1, 1, 0, stream, args, NULL);
}

/* Before each launch of a trial: its inputs as saved, its deadline set. */
CUresult gt_trial_restore(void *arg, CUstream stream)
{
    struct gt_session *s = arg;
    s->restores++;
    CUresult r = gt_snapshot_copy(&s->snap, GT_SNAP_TRIAL, stream);
    if (r == CUDA_SUCCESS && s->running)
        gt_variant_mirror(s->running, stream, 0, 0);
    if (r == CUDA_SUCCESS && s->wd)
        r = arm(s, stream);
    return r;
}

/* Whether the running trial stopped at its deadline (its stream is idle). */
static int cut_short(const struct gt_session *s)
{
    unsigned long long flag = 0;
    return s->wd && gt.drv.cuMemcpyDtoH_v2(&flag, s->wd + 8 * GT_WD_ABORTED, sizeof flag) == CUDA_SUCCESS && flag;
}

/* Watches the variant about to run if its build has the checks: its budget
 * is factor x the best time so far (or x the time the strategy measures
 * cfg against), at least the floor. */
static void watch(struct gt_session *s, const struct gt_variant *v, const uint32_t *cfg, int may_cut)
{
    CUdeviceptr a;
    size_t size;
    s->wd = 0;
    if (s->devk && gt.drv.cuModuleGetGlobal_v2(&a, &size, v->module, GT_WATCHDOG_SYMBOL) == CUDA_SUCCESS &&
        size == 3 * sizeof(unsigned long long))
        s->wd = a;
    double base = s->strategy ? gt_strategy_cut_base(s->strategy, cfg) : -1;
    base = base > 0 ? base : s->best_us;
    double us = s->factor * base;
    s->budget_ns = may_cut && base > 0 ? (unsigned long long)((us > s->floor_us ? us : s->floor_us) * 1e3) : 0;
}

/* One launch as run mode makes it: the variant with its module variables
 * copied back, or the application's own function with launch-time knobs
 * (the original is that with none). */
CUresult gt_trial_launch(void *arg, CUstream stream)
{
    struct gt_session *s = arg;
    (void)stream;
    if (!s->running)
        return gt_direct_launch(s->hd, &s->trial, &s->knobs, &s->geom);
    CUresult r = gt_call_launch(&s->trial, s->running->fn, &s->geom);
    gt_variant_mirror(s->running, s->stream, 0, 1);
    return r;
}

/* The next launches run the original, unwatched. */
void gt_trial_original(struct gt_session *s)
{
    s->running = NULL;
    s->wd = 0;
    s->knobs = (struct gt_knobs){.cache = GT_CACHE_DEFAULT, .carveout = GT_CARVEOUT_DEFAULT};
    s->geom = s->c->g;
}

/* A trial that stopped at its deadline: it ran `us` (-1 if unknown). */
static enum gt_trial_status aborted(struct gt_session *s, const char *cfgtext, double us, double *out)
{
    double budget = s->budget_ns / 1e3;
    s->aborted++;
    *out = us > 0 ? us : budget;
    gt_debug("kernel %s: '%s' cut short at its deadline: stopped after %.1f us, budget %.1f us (%.2fx)", s->p->shown,
             cfgtext, *out, budget, *out / budget);
    return GT_TRIAL_ABORTED;
}

/* The shim's own copies around a variant's launch, which run mode makes at
 * every launch: its module variables in and the writable ones back. */
static CUresult mirror_both(void *arg, CUstream stream)
{
    const struct gt_session *s = arg;
    gt_variant_mirror(s->running, stream, 0, 0);
    gt_variant_mirror(s->running, stream, 0, 1);
    return CUDA_SUCCESS;
}

/* What the copies cost a launch of the running variant, in us. */
static double mirror_cost(struct gt_session *s)
{
    if (!s->running || !s->running->nvars)
        return 0;
    double us = gt_timer_events(mirror_both, s, s->stream, 3);
    return us > 0 ? us : 0;
}

/* Makes c's configuration the one trials launch: a loaded variant v, or the
 * application's own function with launch-time knobs. */
static void run_candidate(struct gt_session *s, const struct gt_candidate *c, struct gt_variant *v)
{
    s->running = c->rebuild ? v : NULL;
    s->knobs = c->knobs;
    s->wd = 0;
    if (c->rebuild)
        watch(s, v, c->cfg, c->may_cut);
}

/* Times a candidate that ran once and matched the reference: its median
 * over the repetitions, with what run mode adds to each launch of it, and
 * the repetitions' range. */
static enum gt_trial_status time_candidate(struct gt_session *s, const char *cfgtext, double *us, double range[2])
{
    double t[64];
    CUresult r;
    s->fresh = 1;
    int reps = s->repeat < 64 ? s->repeat : 64;
    int n = gt_timer_measure(&s->timer, gt_trial_restore, gt_trial_launch, s, s->stream, reps, t, &r);
    if (n > 0 && cut_short(s))
        return aborted(s, cfgtext, gt_median(t, n), us);
    if (n <= 0) {
        gt_debug("kernel %s: '%s' could not be timed: %s", s->p->shown, cfgtext,
                 r != CUDA_SUCCESS ? gt_cu_error(r) : "no time was read");
        return GT_TRIAL_INVALID;
    }
    *us = gt_median(t, n) + mirror_cost(s); /* sorts t */
    range[0] = t[0];
    range[1] = t[n - 1];
    return GT_TRIAL_OK;
}

const char *gt_trial_checks_said(int watchdog)
{
    return watchdog == GT_WATCHDOG_OFF ? "without checks" : "with checks at block entry only";
}

/* A checked run of `first` us outside the plain build's runs, widened by
 * GT_TRIAL_SKEW.  The GT_TRIAL_DISTRUST-th such trial lowers the checks of
 * this session's later builds and of the kernel's later sessions (loops,
 * then block entry only, then none); builds made before run plain. */
static void disagree(struct gt_session *s, const char *cfgtext, double first, const double range[2])
{
    s->skewed++;
    gt_debug("kernel %s: '%s' ran %.1f us with the watchdog's checks, %.1f-%.1f us without", s->p->shown, cfgtext,
             first, range[0], range[1]);
    if (++s->disagreed < GT_TRIAL_DISTRUST || s->watchdog == GT_WATCHDOG_OFF)
        return;
    s->disagreed = 0;
    s->watchdog--;
    pthread_mutex_lock(&s->p->lock);
    s->p->checks_max = s->watchdog < s->p->checks_max ? s->watchdog : s->p->checks_max;
    pthread_mutex_unlock(&s->p->lock);
    gt_info("kernel %s: the watchdog's checks change its times ('%s' ran %.1f us with them, %.1f-%.1f us without; "
            "%d trials over %.0f%% outside their runs without checks), so their deadlines could stop a "
            "configuration for their own cost: its trials run %s from now on", s->p->shown, cfgtext, first,
            range[0], range[1], GT_TRIAL_DISTRUST, GT_TRIAL_SKEW * 100, gt_trial_checks_said(s->watchdog));
}

/* Compares the last run's output with the reference: 0 when it matches,
 * 1 when it differs (said unless quiet), -1 when it could not be compared. */
static int check_output(struct gt_session *s, const char *cfgtext, int quiet)
{
    char why[1024];
    struct gt_diff d;
    if (gt_snapshot_compare(&s->snap, s->compare, s->abs_tol, s->rel_tol, s->stream, &d, why, sizeof why) != 0) {
        gt_warn("kernel %s: %s", s->p->shown, why);
        return -1;
    }
    if (d.buffer < 0)
        return 0;
    s->verify_failures++;
    if (!quiet)
        gt_info("kernel %s: '%s' computes another result: buffer %d (%.1f MiB at 0x%llx) differs first at "
                "element %llu, %llu elements in all",
                s->p->shown, cfgtext, d.buffer, s->snap.v[d.buffer].size / 1048576.0,
                (unsigned long long)s->snap.v[d.buffer].base, d.index, d.count);
    return 1;
}

/* Loads a rebuilt candidate: v from the build, with the watchdog's checks
 * when it has them, and plain from the same code without them when there
 * is one.  0, or -1 with why. */
int gt_trial_load(struct gt_session *s, const struct gt_candidate *c, const struct gt_jit_job *built,
                  struct gt_variant *v, struct gt_variant *plain, char *why, size_t len)
{
    if (gt_plan_load(s->p, s->hd, &c->knobs, built, v, why, len) != 0)
        return -1;
    if (!built->plain)
        return 0;
    struct gt_jit_job view = *built;
    view.cubin = built->plain;
    view.cubin_size = built->plain_size;
    if (gt_plan_load(s->p, s->hd, &c->knobs, &view, plain, why, len) != 0) {
        gt_debug("kernel %s: its build without the watchdog's checks does not load (%s); timed with them", s->p->shown,
                 why);
        memset(plain, 0, sizeof *plain);
    }
    return 0;
}

/* Runs a candidate under the watchdog once, then, unless that was cut
 * short, runs what run mode would (the build without checks when there is
 * one), checks its output and times it. */
enum gt_trial_status gt_trial_run(struct gt_session *s, const struct gt_candidate *c, struct gt_variant *v,
                                  struct gt_variant *plain, const char *cfgtext, int quiet, const char **outcome,
                                  double *us)
{
    double t[1], first = -1;
    CUresult r;
    run_candidate(s, c, v);
    s->fresh = 1;
    int n = gt_timer_measure(&s->timer, gt_trial_restore, gt_trial_launch, s, s->stream, 1, t, &r);
    if (r == CUDA_SUCCESS && cut_short(s))
        return aborted(s, cfgtext, n > 0 ? t[0] : -1, us);
    if (r == CUDA_SUCCESS && plain->module) {
        first = n > 0 ? t[0] : -1;
        s->running = plain;
        s->wd = 0; /* never cut: the run above was not */
        gt_timer_measure(&s->timer, gt_trial_restore, gt_trial_launch, s, s->stream, 1, t, &r);
    }
    if (r != CUDA_SUCCESS) {
        gt_debug("kernel %s: '%s' failed to run: %s", s->p->shown, cfgtext, gt_cu_error(r));
        return GT_TRIAL_INVALID;
    }
    int differs = check_output(s, cfgtext, quiet);
    if (differs) {
        *outcome = differs > 0 ? "wrong" : "failed";
        return GT_TRIAL_INVALID;
    }
    double range[2];
    enum gt_trial_status st = time_candidate(s, cfgtext, us, range);
    if (st == GT_TRIAL_OK && first > 0 &&
        (first < range[0] * (1 - GT_TRIAL_SKEW) || first > range[1] * (1 + GT_TRIAL_SKEW)))
        disagree(s, cfgtext, first, range);
    return st;
}
