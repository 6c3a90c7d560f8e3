/* trial.h: one trial of a candidate configuration, and the session it runs in (see trial.c). */
#ifndef GT_TRIAL_H
#define GT_TRIAL_H

#include "call.h"
#include "devk.h"
#include "plan.h"
#include "plot.h"
#include "pool.h"
#include "recipe.h"
#include "snapshot.h"
#include "strategy.h"
#include "timing.h"
#include "variant.h"

#define GT_SESSION_BEST 3   /* the best few candidates, measured again at the end */
#define GT_TRIAL_SKEW 0.05  /* a run with the watchdog's checks this far beyond its plain runs' range disagrees */
#define GT_TRIAL_DISTRUST 2 /* trials that disagree before the kernel's trials give up a level of checks */

/* One configuration the strategy proposed, and its build. */
struct gt_candidate {
    struct gt_task task;
    struct gt_variant_job vj;
    uint32_t *cfg;
    struct gt_knobs knobs;
    int rebuild;
    int may_cut;      /* the strategy lets the watchdog cut it short */
    int estimate;     /* the strategy asks for its estimate, not a trial */
    double build_s;   /* how long its build took on the pool */
};

/* One session (session.c): the launch it tunes, what its trials share, what they found. */
struct gt_session {
    struct gt_plan *p;
    struct gt_handle *hd;
    const struct gt_call *c;   /* the application's launch */
    const char *signature;     /* its signature, as text */
    struct gt_call trial;      /* the same on the session's stream */
    CUstream stream;
    struct gt_snapshot snap;
    int saved;                 /* snap holds the application's buffers: they are restored from it at the end */
    struct gt_timer timer;
    enum gt_compare compare;
    double abs_tol, rel_tol;
    int repeat;
    struct gt_variant *running; /* the variant a trial launches, NULL: the application's own function */
    struct gt_knobs knobs;      /* that function's launch-time knobs, when no variant runs */
    struct gt_geom geom;        /* and its geometry */
    long trials, invalid, verify_failures, aborted, estimates;
    char invalid_why[200];     /* why the first candidate that could not be tried could not */
    long skewed;               /* trials whose run with the watchdog's checks disagreed with their plain runs */
    int disagreed;             /* of them, since the checks were last lowered */
    double base_us;            /* the original's time */
    struct gt_strategy *strategy;
    int launch_only;           /* configurations that rebuild the kernel could skip its work unseen */
    /* the watchdog */
    int watchdog;              /* enum gt_watchdog of the candidates' builds */
    double factor, floor_us;
    double best_us;            /* the best time so far, <= 0 while unknown */
    struct gt_devk *devk;      /* its arming kernel */
    CUdeviceptr wd;            /* the running variant's watchdog words, 0: not instrumented */
    unsigned long long budget_ns; /* the running trial's, 0: it is not cut */
    int fresh;                 /* the next arming starts a measurement: it clears the stopped mark */
    int noted;                 /* the instrumentation was described */
    size_t pace;               /* the least step last given the strategy (session.c: pace) */
    long estimates_cut;        /* estimates asked for once their share of the time was spent */
    /* where the time goes: waiting for builds, running the kernel (and
     * checking it), and in the snapshot, whose restores before each run are
     * counted and costed at the time one synchronous restore took */
    double t_compile, t_run, t_save, t_restore;
    long restores;
    /* the best few, by median time */
    struct gt_session_best {
        uint32_t *cfg;
        double us;
        struct gt_jit_job built;
    } best[GT_SESSION_BEST];
    int nbest;
    char key[33];              /* store key of the winner's cubin */
    struct gt_plot plot;       /* its trials, when GPUTUNE_PLOTS asks for pictures */
};

CUresult gt_trial_restore(void *arg, CUstream stream);
CUresult gt_trial_launch(void *arg, CUstream stream);
void gt_trial_original(struct gt_session *s);
int gt_trial_load(struct gt_session *s, const struct gt_candidate *c, const struct gt_jit_job *built,
                  struct gt_variant *v, struct gt_variant *plain, char *why, size_t len);
enum gt_trial_status gt_trial_run(struct gt_session *s, const struct gt_candidate *c, struct gt_variant *v,
                                  struct gt_variant *plain, const char *cfgtext, int quiet, const char **outcome,
                                  double *us);
/* How trials run at a lowered level of checks (GT_WATCHDOG_ENTRY or _OFF), as the log says it. */
const char *gt_trial_checks_said(int watchdog);

#endif
