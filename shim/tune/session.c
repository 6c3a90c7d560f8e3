/* session.c: tuning a kernel inside the running application.
 *
 * At the first launch of a kernel and signature that tune mode may tune,
 * the launching thread runs a trial session before its launch:
 *
 *   1. launches from every other thread wait (gt_session_enter) and the
 *      context is synchronized, so no one else touches the buffers;
 *   2. every buffer the launch can reach (pointer arguments, pointers in
 *      struct arguments, the kernel's __device__ variables, a policy's
 *      snapshot.add) is saved (snapshot.c);
 *   3. the original runs twice from the saved state: its output is the
 *      reference, and if the two runs differ the kernel is not
 *      deterministic and candidates are compared within the policy's
 *      tolerance, or one measured from the original's own spread
 *      (own_spread); where the outputs already
 *      held that reference, poison.c makes one that a candidate skipping
 *      its work cannot match, or only launch-time knobs are tried;
 *   4. the original is timed, then candidates the strategy proposes, built
 *      ahead on the pool, each in a trial (trial.c): as run mode would run
 *      it, restored before each run, run once under the watchdog, then
 *      checked against the reference and timed several times (median) from
 *      the same code built without the watchdog's checks; the best few are
 *      measured again next to the original, built as run mode builds them.
 *      Where the session's time (budget.seconds) will end the search before
 *      its trials do, the strategy's steps widen to what the pool builds in
 *      the time of one (pace), and builds for estimates start only in the
 *      first third of that time;
 *   5. the saved state is restored and the winner (the original if nothing
 *      beat it) runs the application's launch for real, and is written to
 *      the cache file.
 *
 * Candidates are built with the watchdog's checks (watchdog.c) and armed
 * before their first run with a budget of factor x the best time so far:
 * one that cannot win stops at its deadline, counts as cut short, and its
 * output is never looked at; the checks never touch a time that counts.
 * Trials run on a stream of the session's own.
 * Whatever fails in a session (memory for the snapshot, a driver error)
 * ends it with one log line, the buffers restored, and the application's
 * launch run as built. */
#include "session.h"
#include "alloc.h"
#include "budget.h"
#include "cachefile.h"
#include "cachewrite.h"
#include "clock.h"
#include "csv.h"
#include "devk.h"
#include "direct.h"
#include "estimate.h"
#include "hash.h"
#include "median.h"
#include "modvars.h"
#include "pidpath.h"
#include "plan.h"
#include "plot.h"
#include "poison.h"
#include "pool.h"
#include "snapshot.h"
#include "state.h"
#include "strategy.h"
#include "timing.h"
#include "trial.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEFAULT_TRIALS 64
#define DEFAULT_SECONDS 30.0
#define DEFAULT_REPEAT 5
#define BATCH 16          /* configurations compiled ahead */
#define MIN_GAIN 0.01     /* a winner must beat the original by this fraction */
#define DEFAULT_WD_FACTOR 2.0  /* a trial's deadline: this times the best time so far */
#define DEFAULT_WD_FLOOR_MS 0.1 /* but never sooner */

/* ---- serializing launches while a session runs ---- */

int gt_session_mode(void)
{
    return gt.mode == GT_MODE_TUNE || gt.mode == GT_MODE_RETUNE;
}

/* Entered by every launch in those modes: waits while another thread tunes. */
void gt_session_enter(void)
{
    for (;;) {
        atomic_fetch_add(&gt.tune.ser.inflight, 1);
        if (!atomic_load(&gt.tune.ser.tuning) || pthread_equal(gt.tune.ser.owner, pthread_self()))
            return;
        atomic_fetch_sub(&gt.tune.ser.inflight, 1);
        gt_pathcost_disturb();
        pthread_mutex_lock(&gt.tune.ser.lock);
        pthread_mutex_unlock(&gt.tune.ser.lock);
    }
}

void gt_session_leave(void)
{
    atomic_fetch_sub(&gt.tune.ser.inflight, 1);
}

/* Called from within a launch (counted in flight): it stops counting while
 * it waits for another session, which would otherwise wait for it. */
static void begin_exclusive(void)
{
    gt_pathcost_disturb();
    atomic_fetch_sub(&gt.tune.ser.inflight, 1);
    pthread_mutex_lock(&gt.tune.ser.lock);
    atomic_fetch_add(&gt.tune.ser.inflight, 1);
    gt.tune.ser.owner = pthread_self();
    atomic_store(&gt.tune.ser.tuning, 1);
    while (atomic_load(&gt.tune.ser.inflight) > 1) /* the caller's own launch is in flight */
        sched_yield();
}

static void end_exclusive(void)
{
    atomic_store(&gt.tune.ser.tuning, 0);
    pthread_mutex_unlock(&gt.tune.ser.lock);
}

/* ---- what the sessions found, for the exit report ---- */

struct gt_session_result {
    char *kernel, *signature, *config, *strategy;
    double baseline_us, best_us;
    long trials, verify_failures, aborted, invalid;
    uint64_t space;
    double seconds, compile_s, trial_s, snapshot_s;
    uint64_t key;          /* of its kernel, image and signature: its plot's file */
    struct gt_plot plot;   /* its trials, when GPUTUNE_PLOTS asks for pictures */
    struct gt_session_result *next;
};

/* ---- one session ---- */

/* How elements of the type verify.type names (f32 when it names none) compare. */
static enum gt_compare element_type(const struct gt_settings *st)
{
    static const enum gt_compare by_type[] = {GT_COMPARE_F32, GT_COMPARE_F64, GT_COMPARE_F16, GT_COMPARE_BF16};
    return by_type[st && st->verify_type >= 0 ? st->verify_type : GT_VTYPE_F32];
}

static void choose_comparison(struct gt_session *s)
{
    const struct gt_settings *st = gt_plan_settings(s->p);
    s->compare = GT_COMPARE_BITS;
    s->abs_tol = st && st->verify_abs >= 0 ? st->verify_abs : 0;
    s->rel_tol = st && st->verify_rel >= 0 ? st->verify_rel : 0;
    if (st && st->verify == GT_VERIFY_TOLERANCE)
        s->compare = element_type(st);
    s->repeat = st && st->timing_repeat > 0 ? (int)st->timing_repeat : DEFAULT_REPEAT;
}

/* The policy's watchdog settings over GPUTUNE_WATCHDOG over the defaults. */
static void choose_watchdog(struct gt_session *s)
{
    const struct gt_settings *st = gt_plan_settings(s->p);
    char why[256];
    s->watchdog = st && st->watchdog >= 0 ? st->watchdog : gt.env.watchdog;
    s->factor = st && st->watchdog_factor >= 1 ? st->watchdog_factor : DEFAULT_WD_FACTOR;
    s->floor_us = (st && st->watchdog_floor_ms >= 0 ? st->watchdog_floor_ms : DEFAULT_WD_FLOOR_MS) * 1e3;
    if (s->watchdog && !(s->devk = gt_devk_get(why, sizeof why))) {
        gt_debug("kernel %s: trials run without the watchdog: %s", s->p->shown, why);
        s->watchdog = GT_WATCHDOG_OFF;
    }
    pthread_mutex_lock(&s->p->lock);
    int most = s->p->checks_max;
    pthread_mutex_unlock(&s->p->lock);
    if (s->watchdog > most) {
        gt_debug("kernel %s: trials run %s: an earlier session's checked runs did not time as their plain builds",
                 s->p->shown, gt_trial_checks_said(most));
        s->watchdog = most;
    }
}

/* A value that points into device-visible memory adds that allocation
 * (indirect: the value was read from memory). */
static void add_pointer(struct gt_session *s, uint64_t v, int indirect)
{
    struct gt_mem_range range;
    CUdeviceptr base;
    size_t size;
    if (v < 4096)
        return;
    if (gt_mem_find(&gt.track.mem, v, &range) == 0)
        gt_snapshot_add(&s->snap, range.base, range.size, indirect);
    else if (gt.drv.cuMemGetAddressRange_v2(&base, &size, (CUdeviceptr)v) == CUDA_SUCCESS)
        gt_snapshot_add(&s->snap, base, size, indirect);
}

static int arg_listed(const struct gt_argref *refs, size_t n, const struct gt_plan *p, int pos)
{
    for (size_t i = 0; i < n; i++) {
        int at = refs[i].pos >= 0 ? refs[i].pos : (p->argpos && (size_t)refs[i].name < p->nargpos ? p->argpos[refs[i].name] : -1);
        if (at == pos)
            return 1;
    }
    return 0;
}

/* Pointers stored in a buffer a policy names: one level of indirection. */
static void add_pointed(struct gt_session *s, uint64_t v)
{
    struct gt_mem_range range;
    if (gt_mem_find(&gt.track.mem, v, &range) != 0 || range.size > ((size_t)1 << 20))
        return;
    uint64_t *words = gt_malloc(range.size);
    if (words && gt.drv.cuMemcpyDtoH_v2(words, range.base, range.size) == CUDA_SUCCESS)
        for (size_t i = 0; i < range.size / 8; i++)
            add_pointer(s, words[i], 1);
    free(words);
}

/* The kernel's __device__ variables, in the original's module. */
static void add_variables(struct gt_session *s)
{
    struct gt_kernel *k = s->hd->kernel;
    size_t size = 0;
    const unsigned char *code = k->image ? gt_image_code(k->image, &size) : NULL;
    struct gt_modvar *vars;
    int n;
    CUmodule m = code ? gt_variant_original(s->hd) : NULL;
    if (!m || gt_modvars(code, size, gt_image_ptx_text(k->image), k->name, s->p->arch.sm, &vars, &n) != 0)
        return;
    for (int i = 0; i < n; i++) {
        CUdeviceptr a;
        size_t bytes;
        if (vars[i].writable && gt.drv.cuModuleGetGlobal_v2(&a, &bytes, m, vars[i].name) == CUDA_SUCCESS)
            gt_snapshot_add(&s->snap, a, bytes, 1);
    }
    gt_modvars_free(vars, n);
}

static void collect(struct gt_session *s)
{
    const struct gt_kernel *k = s->hd->kernel;
    const struct gt_section *sec = s->p->sec;
    int np = atomic_load(&k->nparams);
    for (int i = 0; i < np; i++) {
        const unsigned char *arg = gt_call_arg(s->c, k, i);
        if (!arg || (sec && arg_listed(sec->snap_skip, sec->nsnap_skip, s->p, i)))
            continue;
        for (uint32_t off = 0; off + 8 <= k->params[i].size; off += 8) {
            uint64_t v;
            memcpy(&v, arg + off, 8);
            add_pointer(s, v, 0);
            if (sec && arg_listed(sec->snap_add, sec->nsnap_add, s->p, i))
                add_pointed(s, v);
        }
    }
    add_variables(s);
}

/* Makes sure that a candidate that skips its work cannot pass (poison.c):
 * GT_OK, GT_UNAVAILABLE when the launch is not worth tuning, GT_FAILED;
 * why says. */
static enum gt_rc check_repeat(struct gt_session *s, char *why, size_t len)
{
    struct gt_poison_run run = {.p = s->p, .k = s->hd->kernel, .c = s->c, .signature = s->signature,
                                .snap = &s->snap, .stream = s->stream, .before = gt_trial_restore,
                                .launch = gt_trial_launch, .arg = s, .compare = s->compare,
                                .abs_tol = s->abs_tol, .rel_tol = s->rel_tol};
    enum gt_poison_verdict v = gt_poison_reference(&run, why, len);
    s->launch_only = v == GT_POISON_LAUNCH_ONLY;
    return v == GT_POISON_FAILED ? GT_FAILED : v == GT_POISON_UNTUNED ? GT_UNAVAILABLE : GT_OK;
}

/* An original whose output differs from run to run (float atomics) and a
 * policy that sets no tolerance: the tolerance comes from the original's
 * own spread.  The output in the buffers (its second run) and SPREAD_RUNS
 * more, each from the saved state, are compared with the reference as
 * elements of verify.type (f32 by default), each against the smallest
 * tolerance of the ladder (taken as absolute and relative) that it meets;
 * candidates then get SPREAD_MARGIN times the largest.  An original that
 * meets none is not tuned.  0, or -1 with why. */
/* The original once more from the saved state, finished. */
static CUresult rerun(struct gt_session *s)
{
    CUresult r = gt_trial_restore(s, s->stream);
    if (r == CUDA_SUCCESS)
        r = gt_trial_launch(s, s->stream);
    if (r == CUDA_SUCCESS)
        r = gt.drv.cuStreamSynchronize(s->stream);
    return r;
}

#define SPREAD_RUNS 3
#define SPREAD_MARGIN 4

static int own_spread(struct gt_session *s, char *why, size_t len)
{
    static const double ladder[] = {1e-7, 1e-6, 1e-5, 1e-4, 1e-3};
    enum { RUNGS = sizeof ladder / sizeof *ladder };
    enum gt_compare how = element_type(gt_plan_settings(s->p));
    struct gt_diff d = {.buffer = -1};
    int rung = 0;
    for (int run = 0; run <= SPREAD_RUNS && rung < RUNGS; run++) {
        CUresult r = run > 0 ? rerun(s) : CUDA_SUCCESS;
        if (r != CUDA_SUCCESS) {
            snprintf(why, len, "the original launch fails: %s", gt_cu_error(r));
            return -1;
        }
        for (; rung < RUNGS; rung++) {
            if (gt_snapshot_compare(&s->snap, how, ladder[rung], ladder[rung], s->stream, &d, why, len) != 0)
                return -1;
            if (d.buffer < 0)
                break;
        }
    }
    if (rung == RUNGS) {
        snprintf(why, len, "its output differs from run to run by more than %g (%llu elements of buffer %d); set "
                 "verify = tolerance in a policy to tune it", ladder[RUNGS - 1], d.count, d.buffer);
        return -1;
    }
    s->compare = how;
    s->abs_tol = s->rel_tol = SPREAD_MARGIN * ladder[rung];
    gt_info("kernel %s: its output differs from run to run, within %g over %d runs; candidates are compared within "
            "%g", s->p->shown, ladder[rung], SPREAD_RUNS + 2, s->abs_tol);
    return 0;
}

/* Runs the original from the saved state and keeps its output: GT_OK, or a
 * failure (check_repeat's, or GT_APP_ERROR, GT_FAILED) with why. */
static enum gt_rc reference(struct gt_session *s, char *why, size_t len)
{
    struct gt_diff d;
    gt_trial_original(s);
    CUresult r = rerun(s);
    if (r == CUDA_SUCCESS)
        r = gt_snapshot_copy(&s->snap, GT_SNAP_KEEP_REF, s->stream);
    if (r == CUDA_SUCCESS)
        r = rerun(s);
    if (r != CUDA_SUCCESS) {
        snprintf(why, len, "the original launch fails: %s", gt_cu_error(r));
        return GT_APP_ERROR; /* which the application is about to get */
    }
    if (gt_snapshot_compare(&s->snap, GT_COMPARE_BITS, 0, 0, s->stream, &d, why, len) != 0)
        return GT_FAILED;
    if (d.buffer >= 0 && s->compare == GT_COMPARE_BITS)
        return own_spread(s, why, len) != 0 ? GT_FAILED : check_repeat(s, why, len);
    if (d.buffer >= 0)
        gt_info("kernel %s: its output differs from run to run; candidates are compared within the policy's "
                "tolerance", s->p->shown);
    return check_repeat(s, why, len);
}

static void task_build(void *arg)
{
    struct gt_candidate *c = arg;
    double t0 = gt_clock_seconds();
    gt_jit_build(&gt.run.jit, gt.run.have_store ? &gt.run.store : NULL, &c->vj.job);
    c->build_s = gt_clock_seconds() - t0;
}

/* Waits for a candidate's build, counting the wait as compile time. */
static void wait_build(struct gt_session *s, struct gt_pool *pool, struct gt_candidate *c)
{
    double t0 = gt_clock_seconds();
    gt_pool_wait(pool, &c->task);
    s->t_compile += gt_clock_seconds() - t0;
    gt_plan_store_error(&c->vj.job);
}

/* GPUTUNE_TRIALS: every trial as a CSV row, appended, for studying a space
 * (run with GPUTUNE_WATCHDOG=off to have every time in full).  Sessions run
 * one at a time, so rows never interleave. */
static FILE *trials;
static int trials_opened;

static FILE *trials_file(void)
{
    if (trials_opened)
        return trials;
    trials_opened = 1;
    char path[4096];
    if (!gt.env.trials)
        return NULL;
    gt_pidpath(gt.env.trials, path, sizeof path);
    if (!(trials = fopen(path, "a"))) {
        gt_warn("cannot write GPUTUNE_TRIALS=%s: %s", path, strerror(errno));
        return NULL;
    }
    if (ftell(trials) == 0)
        fprintf(trials, "kernel,signature,configuration,outcome,us,build_s,instr,regions,threads,block_threads,"
                        "blocks_per_sm,regs\n");
    return trials;
}

/* A write that failed (a full disk) ends the recording, said once. */
static void trials_check(FILE *f)
{
    if (fflush(f) == 0 && !ferror(f))
        return;
    gt_warn("cannot write GPUTUNE_TRIALS=%s: %s; no more trials are recorded", gt.env.trials,
            strerror(errno ? errno : EIO));
    fclose(f);
    trials = NULL;
}

/* A row: e, when known, is the variant's estimate (estimate.c). */
static void record(const struct gt_session *s, const char *cfgtext, const char *outcome, double us, double build_s,
                   const struct gt_estimate *e)
{
    FILE *f = trials_file();
    if (!f)
        return;
    gt_csv_quoted(f, s->p->shown);
    fputc(',', f);
    gt_csv_quoted(f, s->signature);
    fputc(',', f);
    gt_csv_quoted(f, cfgtext);
    fprintf(f, ",%s,", outcome);
    if (us > 0) /* a trial without a time (not built, not run, estimated) shows none */
        fprintf(f, "%.3f", us);
    fprintf(f, ",%.3f,", build_s);
    if (e)
        fprintf(f, "%.0f,%.0f,%.0f,%u,%d,%d\n", e->instr, e->regions, e->threads, e->block_threads, e->blocks_per_sm,
                e->regs);
    else
        fprintf(f, ",,,,,\n");
    trials_check(f);
}

/* The loaded variant's estimate into e: e, or NULL (said in the debug log)
 * when it has none. */
static const struct gt_estimate *estimate(const struct gt_session *s, const struct gt_candidate *c,
                                          const struct gt_variant *v, const struct gt_jit_job *built,
                                          const char *cfgtext, struct gt_estimate *e)
{
    char why[512];
    if (c->rebuild && gt_estimate(v->fn, &s->geom, built, s->hd->kernel, s->c, e, why, sizeof why) == 0)
        return e;
    gt_debug("kernel %s: '%s' has no estimate: %s", s->p->shown, cfgtext,
             c->rebuild ? why : "it is not rebuilt, and only a rebuilt variant's PTX is at hand");
    return NULL;
}

/* Takes a finished build's cubin (and lowered name) for later. */
static void take_build(struct gt_jit_job *dst, struct gt_jit_job *src)
{
    *dst = (struct gt_jit_job){.ok = src->ok, .key = src->key, .cubin = src->cubin, .cubin_size = src->cubin_size,
                               .lowered = src->lowered};
    src->cubin = NULL;
    src->lowered = NULL;
    src->ok = 0;
}

/* Keeps cfg among the best few if it is fast enough, with its build unless
 * that has the watchdog's checks: the winner runs a plain one. */
static void keep_best(struct gt_session *s, struct gt_candidate *c, double us)
{
    int full = s->nbest == GT_SESSION_BEST;
    if (full && us >= s->best[GT_SESSION_BEST - 1].us)
        return;
    size_t n = s->p->space->ndims;
    uint32_t *cfg = gt_malloc((n + 1) * sizeof *cfg);
    if (!cfg) /* the session keeps nothing now (gt_session_tune) */
        return;
    memcpy(cfg, c->cfg, n * sizeof *cfg);
    int at = full ? GT_SESSION_BEST - 1 : s->nbest++;
    struct gt_session_best *b = &s->best[at];
    free(b->cfg);
    gt_jit_job_clear(&b->built);
    *b = (struct gt_session_best){.cfg = cfg, .us = us};
    if (c->rebuild && c->vj.job.ok && !c->vj.job.watchdog)
        take_build(&b->built, &c->vj.job);
    for (int i = at; i > 0 && s->best[i].us < s->best[i - 1].us; i--) {
        struct gt_session_best t = s->best[i];
        s->best[i] = s->best[i - 1];
        s->best[i - 1] = t;
    }
}

/* Loads, checks and times one candidate: GT_TRIAL_OK with its median in
 * *us, GT_TRIAL_ABORTED with how long it ran, or GT_TRIAL_INVALID.  quiet:
 * a candidate measured again, neither logged nor recorded.  A
 * configuration of launch-time knobs alone runs the application's own
 * function, as run mode does. */
static enum gt_trial_status trial(struct gt_session *s, struct gt_candidate *c, const struct gt_jit_job *built,
                                  int quiet, double *us)
{
    char why[1024], cfgtext[GT_SPACE_TEXT_MAX];
    struct gt_variant v = {0}, plain = {0};
    double t0 = gt_clock_seconds();
    const char *outcome = "failed";
    *us = -1;
    gt_space_format(s->p->space, c->cfg, cfgtext, sizeof cfgtext);
    if (gt_plan_geometry(s->p, c->cfg, s->c, &s->geom, why, sizeof why) != 0 ||
        (c->rebuild && gt_trial_load(s, c, built, &v, &plain, why, sizeof why) != 0)) {
        gt_debug("kernel %s: '%s' not tried: %s", s->p->shown, cfgtext, why);
        if (!s->invalid_why[0] && /* its first line, cut where it must be */
            snprintf(s->invalid_why, sizeof s->invalid_why, "'%s': %.*s", cfgtext, (int)strcspn(why, "\n"), why) < 0)
            s->invalid_why[0] = '\0';
        if (!quiet)
            record(s, cfgtext, "invalid", -1, c->build_s, NULL);
        return GT_TRIAL_INVALID;
    }
    if (plain.module && built->watchdog > s->watchdog) { /* built before its checks were lowered */
        gt_variant_unload(&v);
        v = plain;
        plain = (struct gt_variant){0};
    }
    struct gt_estimate est;
    const struct gt_estimate *e = !quiet && trials_file() ? estimate(s, c, &v, built, cfgtext, &est) : NULL;
    enum gt_trial_status st = gt_trial_run(s, c, &v, &plain, cfgtext, quiet, &outcome, us);
    if (st != GT_TRIAL_INVALID)
        outcome = st == GT_TRIAL_OK ? "ok" : "cut";
    if (!quiet)
        record(s, cfgtext, outcome, *us, c->build_s, e);
    gt_trial_original(s);
    if (c->rebuild) {
        gt_variant_unload(&v);
        gt_variant_unload(&plain);
    }
    s->t_run += gt_clock_seconds() - t0;
    return st;
}

/* A candidate the strategy only wants estimated: built and loaded, not run. */
static void estimate_only(struct gt_session *s, struct gt_candidate *c)
{
    char why[1024], cfgtext[GT_SPACE_TEXT_MAX];
    struct gt_variant v = {0};
    struct gt_estimate est;
    const struct gt_estimate *e = NULL;
    double t0 = gt_clock_seconds();
    gt_space_format(s->p->space, c->cfg, cfgtext, sizeof cfgtext);
    if (!c->rebuild) {
        e = estimate(s, c, &v, &c->vj.job, cfgtext, &est);
    } else if (gt_plan_geometry(s->p, c->cfg, s->c, &s->geom, why, sizeof why) != 0 ||
               gt_plan_load(s->p, s->hd, &c->knobs, &c->vj.job, &v, why, sizeof why) != 0) {
        gt_debug("kernel %s: '%s' not estimated: %s", s->p->shown, cfgtext, why);
    } else {
        e = estimate(s, c, &v, &c->vj.job, cfgtext, &est);
        gt_variant_unload(&v);
    }
    s->estimates++;
    record(s, cfgtext, "estimated", -1, c->build_s, e);
    gt_strategy_estimated(s->strategy, c->cfg, e);
    s->t_compile += gt_clock_seconds() - t0;
}

/* Compiles on a pool of GPUTUNE_JOBS threads, started at the first session (or online build). */
static void start_pool(void)
{
    gt_plan_builder_open();
    gt_pool_start(&gt.tune.pool, gt_pool_jobs((int)gt.env.jobs));
}

struct gt_pool *gt_session_pool(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, start_pool);
    return &gt.tune.pool;
}

/* What the watchdog's instrumentation did, once per session, at debug level. */
static void describe_checks(struct gt_session *s, const struct gt_jit_job *job)
{
    if (s->noted || !job->watchdog || !job->watch.note[0])
        return;
    s->noted = 1;
    gt_debug("kernel %s: watchdog (%s): %s", s->p->shown, job->watchdog == GT_WATCHDOG_ENTRY ? "entry" : "loops",
             job->watch.note);
}

/* Tries (or estimates) one candidate and tells the strategy. */
static void try_candidate(struct gt_session *s, struct gt_candidate *c, double deadline)
{
    double us = -1;
    if (c->estimate) {
        if (gt_clock_seconds() < deadline)
            estimate_only(s, c);
        else
            gt_strategy_estimated(s->strategy, c->cfg, NULL);
        return;
    }
    enum gt_trial_status st = gt_clock_seconds() < deadline ? trial(s, c, &c->vj.job, 0, &us) : GT_TRIAL_INVALID;
    s->trials++;
    s->invalid += st == GT_TRIAL_INVALID;
    if (gt.env.plots)
        gt_plot_add(&s->plot, st, us);
    gt_strategy_report(s->strategy, c->cfg, us, st);
    if (st == GT_TRIAL_OK)
        keep_best(s, c, us);
    if (st == GT_TRIAL_OK && (s->best_us <= 0 || us < s->best_us))
        s->best_us = us;
}

/* Where the session's time, not its trials, will end the search, and the
 * builds bind: a step as wide as the pool takes no longer than a narrow
 * one and runs more trials in that time (gt_strategy_width, from the last
 * batch's costs). */
static void pace(struct gt_session *s, struct gt_pool *pool, long budget, double deadline, double build_s,
                 double trial_s)
{
    long left = budget - s->trials;
    size_t most = pool->nthreads < BATCH ? (size_t)pool->nthreads : BATCH;
    size_t width = gt_strategy_width(left, deadline - gt_clock_seconds(), build_s, trial_s, most);
    if (width == s->pace)
        return;
    if (width > 1 || s->pace > 1)
        gt_debug("kernel %s: %ld trials left, builds of %.2f s a step, trials of %.3f s: steps of at least %zu",
                 s->p->shown, left, build_s, trial_s, width);
    s->pace = width;
    gt_strategy_pace(s->strategy, width);
}

/* The strategy's proposals, built ahead on the pool, then tried in turn. */
static void search(struct gt_session *s, long budget, double start, double seconds)
{
    double deadline = start + seconds;
    struct gt_pool *pool = gt_session_pool();
    struct gt_candidate batch[BATCH];
    size_t n = s->p->space->ndims;
    int more = 1;
    while (more && s->trials < budget && gt_clock_seconds() < deadline) {
        int nb = 0, ntrials = 0, tried = 0;
        double build_s = 0, trial_s = 0;
        for (; nb < BATCH && s->trials + ntrials < budget; nb++) {
            struct gt_candidate *c = &batch[nb];
            memset(c, 0, sizeof *c);
            int got = (c->cfg = gt_calloc(n + 1, sizeof *c->cfg)) ? gt_strategy_next(s->strategy, c->cfg) : 0;
            if (got != GT_NEXT_TRIAL && got != GT_NEXT_ESTIMATE) {
                if (!c->cfg)
                    gt_log(gt_log_nomem_level(), "kernel %s: out of memory for a candidate; the search ends after %ld "
                           "trials", s->p->shown, s->trials);
                free(c->cfg);
                /* it waits for this batch's results; with none to wait for, it is done */
                more = got == GT_NEXT_WAIT && nb > 0;
                break;
            }
            c->estimate = got == GT_NEXT_ESTIMATE;
            if (c->estimate && !gt_strategy_may_estimate(gt_clock_seconds() - start, seconds)) {
                if (!s->estimates_cut++)
                    gt_debug("kernel %s: a third of the session's time is spent: the estimates asked for from now on "
                             "are not built", s->p->shown);
                gt_strategy_estimated(s->strategy, c->cfg, NULL);
                free(c->cfg);
                nb--;
                continue;
            }
            ntrials += !c->estimate;
            gt_plan_knobs(s->p, c->cfg, &c->knobs, &c->rebuild);
            c->may_cut = gt_strategy_may_cut(s->strategy, c->cfg);
            if (c->rebuild && (s->p->recipe_state <= 0 || s->launch_only)) {
                /* Not rebuildable, or not checkable rebuilt: only launch-time knobs count against the budget. */
                if (c->estimate)
                    gt_strategy_estimated(s->strategy, c->cfg, NULL);
                else
                    gt_strategy_report(s->strategy, c->cfg, -1, GT_TRIAL_INVALID);
                ntrials -= !c->estimate;
                free(c->cfg);
                nb--;
                continue;
            }
            c->task = (struct gt_task){.fn = task_build, .arg = c};
            if (c->rebuild && gt_plan_job(s->p, c->cfg, s->c->g.block, s->watchdog, &c->vj) == 0) {
                c->vj.job.want_ptx = c->estimate || trials_file();
                gt_pool_submit(pool, &c->task);
            } else {
                c->task.done = 1;
            }
        }
        for (int i = 0; i < nb; i++) {
            struct gt_candidate *c = &batch[i];
            wait_build(s, pool, c);
            describe_checks(s, &c->vj.job);
            double t0 = gt_clock_seconds();
            try_candidate(s, c, deadline);
            if (!c->estimate) {
                trial_s += gt_clock_seconds() - t0;
                tried++;
            }
            build_s = c->build_s > build_s ? c->build_s : build_s;
            gt_variant_job_free(&c->vj);
            free(c->cfg);
        }
        pace(s, pool, budget, deadline, build_s, tried ? trial_s / tried : 0);
    }
}

/* The best few as they will run: built without the watchdog's checks,
 * in parallel. */
static void build_plain(struct gt_session *s)
{
    struct gt_pool *pool = gt_session_pool();
    struct gt_candidate c[GT_SESSION_BEST];
    for (int i = 0; i < s->nbest; i++) {
        memset(&c[i], 0, sizeof c[i]);
        gt_plan_knobs(s->p, s->best[i].cfg, &c[i].knobs, &c[i].rebuild);
        c[i].task = (struct gt_task){.fn = task_build, .arg = &c[i]};
        if (c[i].rebuild && !s->best[i].built.ok &&
            gt_plan_job(s->p, s->best[i].cfg, s->c->g.block, GT_WATCHDOG_OFF, &c[i].vj) == 0)
            gt_pool_submit(pool, &c[i].task);
        else
            c[i].task.done = 1;
    }
    for (int i = 0; i < s->nbest; i++) {
        wait_build(s, pool, &c[i]);
        if (c[i].vj.job.ok)
            take_build(&s->best[i].built, &c[i].vj.job);
        gt_variant_job_free(&c[i].vj);
    }
}

/* The best few and the original once more, side by side: the fastest wins,
 * if it beats the original by MIN_GAIN.  Returns the index in s->best of
 * the winner, -1 for the original; *baseline gets the original's time. */
static int remeasure(struct gt_session *s, double *baseline)
{
    double us[64];
    CUresult r;
    int reps = s->repeat < 64 ? s->repeat : 64, winner = -1;
    build_plain(s);
    gt_trial_original(s);
    double t0 = gt_clock_seconds();
    int n = gt_timer_measure(&s->timer, gt_trial_restore, gt_trial_launch, s, s->stream, reps, us, &r);
    s->t_run += gt_clock_seconds() - t0;
    *baseline = n > 0 ? gt_median(us, n) : s->base_us;
    double best = *baseline * (1 - MIN_GAIN);
    for (int i = 0; i < s->nbest; i++) {
        struct gt_candidate c = {.cfg = s->best[i].cfg};
        double t;
        gt_plan_knobs(s->p, c.cfg, &c.knobs, &c.rebuild);
        if (trial(s, &c, &s->best[i].built, 1, &t) == GT_TRIAL_OK && t < best) {
            best = t;
            winner = i;
        }
        s->best[i].us = t;
    }
    return winner;
}

/* Writes the outcome to the cache file (under its lock, merged with what
 * other processes wrote); returns its index among the plan's cached
 * entries, for the guard's verdict, or -1. */
static long persist(struct gt_session *s, const char *signature, const char *config, double best_us, double base_us)
{
    struct gt_centry e = {.signature = (char *)signature, .config = (char *)config, .cubin = s->key,
                          .strategy = (char *)gt_strategy_name(s->strategy), .time_us = best_us,
                          .baseline_us = base_us, .trials = s->trials,
                          .space = gt_strategy_space_size(s->strategy) + 1};
    return gt_plan_keep(s->p, &e);
}

/* Seconds spent in the snapshot, and running and checking kernels without
 * the restores that preceded each run. */
static double snapshot_seconds(const struct gt_session *s)
{
    return s->t_save + s->t_restore * (double)(s->restores + 1);
}

static double trial_seconds(const struct gt_session *s)
{
    double t = s->t_run - s->t_restore * (double)s->restores;
    return t > 0 ? t : 0;
}

/* Keeps apart the plots of one kernel's signatures, and of kernels of one
 * name in two images. */
static uint64_t plot_key(const struct gt_session *s, const char *signature)
{
    const struct gt_kernel *k = s->p->k;
    uint64_t seed = gt_hash64(k->name, strlen(k->name)) ^ (k->image ? gt_image_hash(k->image) : 0);
    return gt_hash64_seeded(signature, strlen(signature), seed);
}

static void remember(struct gt_session *s, const char *signature, const char *config, double base_us, double best_us,
                     double seconds)
{
    struct gt_session_result *r = gt_calloc(1, sizeof *r);
    char *kernel = gt_strdup(s->p->shown), *sig = gt_strdup(signature), *cfg = gt_strdup(config),
         *strategy = gt_strdup(gt_strategy_name(s->strategy));
    if (!r || !kernel || !sig || !cfg || !strategy) { /* left out of the exit's table; the exit says memory ran out */
        free(r), free(kernel), free(sig), free(cfg), free(strategy);
        return;
    }
    *r = (struct gt_session_result){.kernel = kernel, .signature = sig, .config = cfg, .strategy = strategy,
                         .baseline_us = base_us, .best_us = best_us,
                         .trials = s->trials, .verify_failures = s->verify_failures, .invalid = s->invalid,
                         .aborted = s->aborted,
                         .space = gt_strategy_space_size(s->strategy) + 1, .seconds = seconds,
                         .compile_s = s->t_compile, .trial_s = trial_seconds(s), .snapshot_s = snapshot_seconds(s),
                         .key = plot_key(s, signature), .plot = s->plot};
    s->plot = (struct gt_plot){0}; /* the result's now */
    r->next = gt.tune.results; /* the session holds gt.tune.ser.lock */
    gt.tune.results = r;
}

static void session_free(struct gt_session *s)
{
    for (int i = 0; i < s->nbest; i++) {
        free(s->best[i].cfg);
        gt_jit_job_clear(&s->best[i].built);
    }
    gt_strategy_free(s->strategy);
    gt_plot_free(&s->plot);
    gt_timer_end(&s->timer);
    gt_snapshot_free(&s->snap);
    if (s->stream)
        gt.drv.cuStreamDestroy_v2(s->stream);
}

/* The original's median time, the first deadlines' base; -1 if unknown. */
static double measure_original(struct gt_session *s)
{
    double us[64], t0 = gt_clock_seconds();
    CUresult r;
    gt_trial_original(s);
    int reps = s->repeat < 64 ? s->repeat : 64;
    int n = gt_timer_measure(&s->timer, gt_trial_restore, gt_trial_launch, s, s->stream, reps, us, &r);
    s->t_run += gt_clock_seconds() - t0;
    return n > 0 ? gt_median(us, n) : -1;
}

/* Everything up to the reference and the original's time: GT_OK, or
 * reference()'s failure or GT_FAILED with why. */
static enum gt_rc prepare(struct gt_session *s, char *why, size_t len)
{
    CUresult r = gt.drv.cuCtxSynchronize();
    if (r == CUDA_SUCCESS)
        r = gt.drv.cuStreamCreate(&s->stream, CU_STREAM_NON_BLOCKING);
    if (r != CUDA_SUCCESS) {
        snprintf(why, len, "%s", gt_cu_error(r));
        return GT_FAILED;
    }
    s->trial = *s->c;
    s->trial.s = s->stream;
    s->trial.in_driver = NULL; /* trials are the session's cost, not the application's launch */
    choose_comparison(s);
    collect(s);
    if (gt_snapshot_alloc(&s->snap, why, len) != 0)
        return GT_FAILED;
    double t0 = gt_clock_seconds();
    if ((r = gt_snapshot_copy(&s->snap, GT_SNAP_SAVE, s->stream)) != CUDA_SUCCESS ||
        (r = gt.drv.cuStreamSynchronize(s->stream)) != CUDA_SUCCESS) {
        snprintf(why, len, "saving its buffers failed: %s", gt_cu_error(r));
        return GT_FAILED;
    }
    s->saved = 1;
    double t1 = gt_clock_seconds();
    if ((r = gt_snapshot_copy(&s->snap, GT_SNAP_RESTORE, s->stream)) != CUDA_SUCCESS ||
        (r = gt.drv.cuStreamSynchronize(s->stream)) != CUDA_SUCCESS) {
        snprintf(why, len, "restoring its buffers failed: %s", gt_cu_error(r));
        return GT_FAILED;
    }
    double t2 = gt_clock_seconds();
    s->t_save = t1 - t0;
    s->t_restore = t2 - t1;
    gt_debug("kernel %s: snapshot of %d buffers, %.1f MiB in %s memory: saved at %.1f GB/s, restored at %.1f GB/s",
             s->p->shown, s->snap.n, s->snap.bytes / 1048576.0, s->snap.on_host ? "pinned host" : "device",
             s->snap.bytes / (t1 - t0) / 1e9, s->snap.bytes / (t2 - t1) / 1e9);
    if (gt_timer_begin(&s->timer, s->p->k->name) != 0) {
        snprintf(why, len, "cannot time trials");
        return GT_FAILED;
    }
    double t3 = gt_clock_seconds();
    enum gt_rc rc = reference(s, why, len);
    s->t_run += gt_clock_seconds() - t3;
    if (rc != GT_OK)
        return rc;
    choose_watchdog(s);
    s->best_us = s->base_us = measure_original(s);
    if (s->base_us <= 0) {
        snprintf(why, len, "the original could not be timed");
        return GT_FAILED;
    }
    return GT_OK;
}

static CUresult restore_sync(struct gt_session *s)
{
    CUresult r = gt_snapshot_copy(&s->snap, GT_SNAP_RESTORE, s->stream);
    return r == CUDA_SUCCESS ? gt.drv.cuStreamSynchronize(s->stream) : r;
}

/* The application's buffers as it left them, before its own launch runs.
 * Its results depend on this copy: one that fails is tried once more. */
static void restore_app(struct gt_session *s)
{
    CUresult r = s->saved ? restore_sync(s) : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS)
        return;
    if (restore_sync(s) == CUDA_SUCCESS)
        gt_warn("kernel %s: restoring the application's buffers after tuning failed once (%s); the second attempt "
                "restored them", s->p->shown, gt_cu_error(r));
    else
        gt_error("kernel %s: restoring the application's buffers after tuning failed twice (%s): its results may "
                 "differ from a run without the shim", s->p->shown, gt_cu_error(r));
}

static uint64_t seed_for(const char *kernel, const char *signature)
{
    return gt.env.seed ^ gt_hash64(kernel, strlen(kernel)) ^ gt_hash64(signature, strlen(signature));
}

/* Tunes the launch's kernel at its signature (the caller has marked it
 * done, so no other thread starts the same session), then runs the launch
 * with the winner.  Returns 1 with the launch's result in *r when it ran the
 * launch, 0 when the caller must launch the original (nothing beat it, or
 * the session could not run: the buffers are then as the application left
 * them). */
int gt_session_tune(struct gt_plan *p, struct gt_handle *hd, const struct gt_call *c, uint64_t sig,
                    const char *signature, CUresult *r)
{
    struct gt_session s = {.p = p, .hd = hd, .c = c, .signature = signature};
    struct gt_plan_launch env; /* the strategy's: constraints reading the launch hold for every proposal */
    const struct gt_settings *st = gt_plan_settings(p);
    long budget = st && st->budget_trials > 0 ? (long)st->budget_trials : DEFAULT_TRIALS;
    char why[1024] = "";
    double t0 = gt_clock_seconds(), baseline = -1;
    double wanted = st && st->budget_seconds > 0 ? st->budget_seconds : DEFAULT_SECONDS;
    double seconds = gt_budget_allows(wanted);
    unsigned long lost = gt_alloc_failures();
    begin_exclusive();
    gt.run.jit.answer_ms = (int)(seconds * 1000); /* a compiler worker gets no longer than the session */
    enum gt_rc prepared = lost ? GT_NO_MEMORY : prepare(&s, why, sizeof why);
    if (lost)
        snprintf(why, sizeof why, "the shim ran out of memory earlier, and tunes nothing after that");
    double t1 = gt_clock_seconds();
    if (prepared == GT_OK && p->jit && gt_plan_recipe(p, why, sizeof why) != 0)
        gt_info("kernel %s: only launch-time knobs can be tried: %s", p->shown, why);
    s.t_compile += gt_clock_seconds() - t1;
    if (prepared == GT_OK) {
        s.strategy = gt_strategy_new(st ? st->strategy : NULL, p->space, gt_plan_launch_env(p, c, &env), st,
                                     budget, seed_for(p->k->name, signature), why, sizeof why);
        if (s.strategy)
            gt_strategy_baseline(s.strategy, s.base_us);
        else
            prepared = GT_FAILED;
    }
    int ok = prepared == GT_OK, winner = -1, cut = 0;
    if (ok) {
        search(&s, budget, t0, seconds);
        /* ended by the process's budget, not its own: what it found serves
         * this run, and a later run tunes it whole */
        cut = seconds < wanted && s.trials < budget && gt_clock_seconds() >= t0 + seconds;
        winner = remeasure(&s, &baseline);
    }
    restore_app(&s);
    if (cut && winner < 0) {
        prepared = GT_UNAVAILABLE;
        snprintf(why, sizeof why, "the process's tuning budget ran out after %ld trials; a later run tunes it",
                 s.trials);
        ok = 0;
    }
    uint32_t *dflt = ok ? gt_calloc(p->space->ndims + 1, sizeof *dflt) : NULL;
    if (gt_alloc_failures() != lost) { /* what the session found, or its end, may be what was lost */
        prepared = GT_NO_MEMORY;
        snprintf(why, sizeof why, "out of memory while tuning; nothing of it is kept, and nothing more is tuned");
        ok = 0;
    }
    struct gt_choice *ch = NULL;
    char config[GT_SPACE_TEXT_MAX] = "";
    if (!ok) {
        gt_log(gt_log_level_of(prepared), "kernel %s: launch %s not tuned: %s", p->shown, signature, why);
    } else {
        uint32_t *cfg = winner >= 0 ? s.best[winner].cfg : NULL;
        if (!cfg) {
            gt_space_default(p->space, dflt);
            cfg = dflt;
        }
        /* checked to fit when the space was built (policy/build.c); never kept cut short */
        int fits = gt_space_format(p->space, cfg, config, sizeof config) < (int)sizeof config;
        if (winner >= 0 && s.best[winner].built.ok)
            gt_key_text(s.best[winner].built.key, s.key);
        double best = winner >= 0 ? s.best[winner].us : baseline;
        char estimated[64] = "";
        if (s.estimates)
            snprintf(estimated, sizeof estimated, "; %ld variant%s estimated", s.estimates, s.estimates == 1 ? "" : "s");
        char invalid[sizeof s.invalid_why + 16] = "";
        if (s.invalid && s.invalid_why[0])
            snprintf(invalid, sizeof invalid, ", the first %s", s.invalid_why);
        gt_info("kernel %s: launch %s tuned in %.1f s, %ld trials (%ld invalid%s, %ld computed another result, %ld cut "
                "short%s): %s %.2f us against %.2f us, %.2fx%s",
                p->shown, signature, gt_clock_seconds() - t0, s.trials, s.invalid, invalid, s.verify_failures,
                s.aborted, estimated, winner >= 0 ? config : "the original", best, baseline, baseline / best,
                cut ? "; the process's tuning budget ran out before its trials were done, so it serves this run only "
                      "and a later run tunes it whole" : "");
        gt_debug("kernel %s: %.2f s waiting for builds, %.2f s running and checking trials, %.2f s in the snapshot; "
                 "%ld trial%s whose checked run lay over %.0f%% outside its runs without the watchdog's checks",
                 p->shown, s.t_compile, trial_seconds(&s), snapshot_seconds(&s), s.skewed, s.skewed == 1 ? "" : "s",
                 GT_TRIAL_SKEW * 100);
        long entry = -1;
        if (cut)
            entry = -1;
        else if (fits)
            entry = persist(&s, signature, config, best, baseline);
        else
            gt_warn("kernel %s: its configuration passes %zu characters as text; the tuning result is not kept",
                    p->shown, sizeof config - 1);
        remember(&s, signature, winner >= 0 ? config : "(original)", baseline, best, gt_clock_seconds() - t0);
        if (winner >= 0) {
            pthread_mutex_lock(&p->lock);
            ch = gt_plan_choose(p, sig, signature, cfg, "tuned now");
            if (ch) {
                snprintf(ch->cubin, sizeof ch->cubin, "%s", s.key);
                ch->time_us = best;
                ch->baseline_us = baseline;
                ch->entry = entry;
            }
            pthread_mutex_unlock(&p->lock);
        }
    }
    free(dflt);
    gt_budget_spend(gt_clock_seconds() - t0,
                    ok && winner >= 0 && s.best[winner].us > 0 ? baseline / s.best[winner].us : 1);
    session_free(&s);
    /* The trials' last cache preference must not outlive them: a stream
     * capture takes a function's preference into the graph for good. */
    gt_direct_restore(hd);
    end_exclusive();
    return ch && r ? gt_plan_run(p, ch, hd, c, r) : 0;
}

/* ---- the exit report ---- */

/* GPUTUNE_PLOTS: a picture per tuned signature, in the directory, made if
 * missing; the first that cannot be written is said and ends them. */
static void write_plots(void)
{
    char dir[4096], path[4400], err[4600];
    int n = 0;
    if (!gt.env.plots || !gt.tune.results)
        return;
    gt_pidpath(gt.env.plots, dir, sizeof dir);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        gt_warn("cannot write GPUTUNE_PLOTS: cannot create directory %s: %s; no plots are written", dir,
                strerror(errno));
        return;
    }
    for (struct gt_session_result *r = gt.tune.results; r; r = r->next, n++) {
        struct gt_plot_title t = {.kernel = r->kernel, .signature = r->signature, .key = r->key,
                                  .baseline_us = r->baseline_us};
        if (gt_plot_save(dir, &t, &r->plot, path, sizeof path, err, sizeof err) != 0) {
            gt_warn("cannot write GPUTUNE_PLOTS: %s; no more plots are written", err);
            return;
        }
    }
    gt_info("GPUTUNE_PLOTS: %d plot%s of tuned signatures in %s", n, n == 1 ? "" : "s", dir);
}

/* The exit table, and GPUTUNE_REPORT. */
static void report_table(void)
{
    char csv_path[4096] = "";
    if (gt.env.report)
        gt_pidpath(gt.env.report, csv_path, sizeof csv_path);
    FILE *csv = *csv_path ? fopen(csv_path, "w") : NULL;
    if (*csv_path && !csv)
        gt_warn("cannot write GPUTUNE_REPORT=%s: %s", csv_path, strerror(errno));
    if (csv)
        fprintf(csv, "kernel,signature,baseline_us,best_us,speedup,trials,invalid,verify_failures,aborted,space,"
                     "strategy,seconds,compile_s,trial_s,snapshot_s,configuration\n");
    if (gt.tune.results && gt_log_enabled(GT_LOG_INFO))
        gt_info("  %10s  %10s  %7s  %6s  %6s  %7s  %s", "baseline", "best", "speedup", "trials", "wrong", "aborted",
                "kernel / signature / configuration");
    for (struct gt_session_result *r = gt.tune.results; r; r = r->next) {
        double speedup = r->best_us > 0 ? r->baseline_us / r->best_us : 1;
        gt_info("  %8.2fus  %8.2fus  %6.2fx  %6ld  %6ld  %7ld  %s / %s / %s", r->baseline_us, r->best_us, speedup,
                r->trials, r->verify_failures, r->aborted, r->kernel, r->signature, r->config);
        if (!csv)
            continue;
        gt_csv_quoted(csv, r->kernel);
        fputc(',', csv);
        gt_csv_quoted(csv, r->signature);
        fprintf(csv, ",%.3f,%.3f,%.4f,%ld,%ld,%ld,%ld,%llu,%s,%.3f,%.3f,%.3f,%.3f,", r->baseline_us, r->best_us,
                speedup, r->trials, r->invalid, r->verify_failures, r->aborted, (unsigned long long)r->space,
                r->strategy, r->seconds, r->compile_s, r->trial_s, r->snapshot_s);
        gt_csv_quoted(csv, r->config);
        fputc('\n', csv);
    }
    if (!csv)
        return;
    int bad = fflush(csv) != 0 ? errno : ferror(csv) ? EIO : 0;
    if (fclose(csv) != 0 && !bad)
        bad = errno;
    if (bad)
        gt_warn("cannot write GPUTUNE_REPORT=%s: %s", csv_path, strerror(bad));
}

void gt_session_report(void)
{
    report_table();
    write_plots();
}
