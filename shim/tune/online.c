/* online.c: tuning on the application's own launches, without a session.
 *
 * GPUTUNE_MODE=online tunes only what cannot change results, so that
 * nothing has to be saved, restored or checked: the configurations of a
 * signature's space one knob away from the default, for the knobs that
 * leave the kernel's arithmetic alone.  Cache preference and carve-out run
 * on the application's own function (run/direct.c); a register limit, a
 * load cache mode, launch bounds or a minimum of blocks per SM need a
 * variant, built from the kernel's PTX or source on the pool of worker
 * threads while the launches run the original, then loaded (a host call,
 * no synchronization) and launched as run mode launches it, its module
 * variables mirrored on the application's stream.  A kernel with neither
 * PTX nor source tries the launch-time knobs alone.  Once every build has
 * ended, the candidates and the original take turns on the signature's own
 * launches: after one untimed launch, ROUNDS rounds each in a drawn order,
 * each launch timed by two events on the application's stream and read
 * later without waiting.  A kernel that runs in a CUDA graph takes its
 * turns on the graph's replays instead (gt_online_node, from
 * launch/graphs.c): the kernel's node holds each candidate's function (for
 * launch-time knobs a copy of the image with them set on its function),
 * and the node is timed within the replay (or the whole replay, where the
 * graph cannot mark it: gt_online_graph); a trial begun on direct launches
 * starts its stage over there.  Nothing is synchronized and no other thread is
 * held; the launches being tried pass one at a time through this module's
 * lock.  Where arms beat the original, a second stage races the
 * SHORTLIST fastest of them and, where several knobs each did, those knobs
 * together (built as above where one needs a variant) against the
 * original, FINAL_ROUNDS rounds each.  Where that round chose another
 * configuration than the original, a second round starts from it: the
 * configurations one knob away from the choice not tried yet, beside it
 * and the original, then their race as above.  Once every time is read the
 * fastest by median becomes the signature's choice (the original, unless
 * it is faster by more than the guard's least gain) and is written to the
 * cache file (a variant's cubin to the store), and the guard (run/guard.c)
 * then checks it against the original on the launches that follow, as it
 * checks any applied configuration.  Turns still unread when the
 * application exits are read then (gt_online_collect).  A signature with
 * K candidates besides the original is decided after at most
 * 1 + (K + 1) * ROUNDS launches once its builds have ended, at most
 * (SHORTLIST + 2) * FINAL_ROUNDS more with a second stage, with a second
 * round (K' + 2) * ROUNDS and (SHORTLIST + 3) * FINAL_ROUNDS more for its
 * K' new configurations once their builds have ended, and the reads that
 * follow: a candidate found hopeless, or whose build failed, gives its
 * turns back.  At exit a stage that has not had all its turns leaves the
 * decision to the stage before it, if one ended.  As a session, a trial
 * keeps nothing once the shim ran out of memory (a build lost to it must
 * not lose the race for that), and none starts after. */
#include "online.h"
#include "alloc.h"
#include "cachefile.h"
#include "call.h"
#include "clock.h"
#include "direct.h"
#include "guard.h"
#include "hash.h"
#include "jit.h"
#include "median.h"
#include "plan.h"
#include "pool.h"
#include "recipe.h"
#include "registry.h"
#include "session.h"
#include "state.h"
#include "store.h"
#include "variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 4        /* the first stage's turns per arm */
#define FINAL_ROUNDS 8  /* the second stage's */
#define SHORTLIST 3     /* the first stage's arms raced again in the second */
#define HOPELESS 1.2 /* an arm whose fastest launch is this much slower than the original's median gets no more turns */
#define SETTLE_S 1.0 /* online.settle's default */

#define O (gt.tune.online) /* this module's part of the state */

/* One configuration under trial; arm 0 is the original (the default). */
struct arm {
    uint32_t *cfg;
    struct gt_knobs knobs;
    double us[FINAL_ROUNDS]; /* this stage's times */
    int n;
    int hopeless; /* its turns go to the original, untimed */
    int rebuild;  /* needs a variant: */
    int building; /*   its build is on the pool */
    atomic_int built; /* its build has ended: set on the pool's thread before it moves the plan's version */
    struct gt_plan *plan;
    struct gt_variant_job vj;
    struct gt_task task;
    struct gt_variant *v; /* loaded; what the arm launches */
    char key[33];         /* its cubin's key in the store */
};

struct slot {
    int arm;
    int timed;     /* all but the first stage's first launch */
    CUevent ev[2];
};

struct gt_online {
    struct gt_plan *p;
    uint64_t sig;
    CUcontext ctx; /* its turns' events and variants are this context's: its launches in another run the original */
    char signature[GT_PLAN_SIGNATURE_MAX];
    struct arm *arms;
    int narms;
    struct slot *slots;
    int nslots, issued, read;
    int launched; /* slots that launched (an arm's turn after it is found hopeless does not) */
    int broken;  /* an event or a launch failed: the original stays */
    int building; /* arms whose builds have not ended */
    int can_build; /* variants can be built: -1 until an arm that needs one asks */
    int final;     /* the second stage is on */
    int ref;       /* the arm the stages' candidates are one knob from: the original, then the first round's choice */
    int decided;
    int torn;      /* its context was torn down while it was on */
    int graph;     /* its turns run on a graph's replays (gt_online_node), its times the node's there */
    int last;      /* the fastest arm of the last stage that ended, -1 before one has; */
    double last_med[2]; /*   the original's median then, and its */
    struct gt_online *next; /* in O.all */
};

static void online_free(struct gt_online *o)
{
    for (int i = 0; o->arms && i < o->narms; i++)
        free(o->arms[i].cfg);
    free(o->arms);
    free(o->slots);
    free(o);
}

/* Whether variants of the kernel can be built: its PTX or source is there
 * and the compilers load.  They are loaded here, on the application's
 * thread, before any build: a worker that loaded them while the
 * application exits would meet the loader's lock held by the exit, and
 * their exit handlers must be registered before the shim's own (jit.c:
 * hold_at_exit). */
static int can_build(struct gt_plan *p)
{
    char err[512];
    pthread_mutex_lock(&p->lock);
    int ok = gt_plan_recipe(p, err, sizeof err) == 0;
    pthread_mutex_unlock(&p->lock);
    gt_plan_builder_open();
    if (ok && gt_jit_open(&gt.run.jit) != 0) {
        snprintf(err, sizeof err, "%s", gt.run.jit.error);
        ok = 0;
    }
    if (!ok)
        gt_debug("kernel %s: online, launch-time knobs only: %s", p->shown, err);
    return ok;
}

/* The arm of configuration cfg, or -1. */
static int arm_of(const struct gt_online *o, const uint32_t *cfg)
{
    size_t n = o->p->space->ndims * sizeof *cfg;
    for (int i = 0; i < o->narms; i++)
        if (memcmp(o->arms[i].cfg, cfg, n) == 0)
            return i;
    return -1;
}

/* Adds cfg as an arm when it is not one already, needs no variant or
 * variants can be built (asked at the first arm that needs one), and the
 * space's constraints allow it for this launch.  Returns -1 when out of
 * memory, else 0. */
static int add_arm(struct gt_online *o, struct gt_plan *p, const uint32_t *cfg, const struct gt_launch *l)
{
    if (o->narms && arm_of(o, cfg) >= 0)
        return 0;
    struct arm a = {0};
    gt_plan_knobs(p, cfg, &a.knobs, &a.rebuild);
    if (o->narms && a.rebuild && o->can_build < 0)
        o->can_build = can_build(p);
    if ((o->narms && a.rebuild && !o->can_build) || (o->narms && gt_space_check(p->space, cfg, l, NULL) != 1))
        return 0;
    size_t n = p->space->ndims + 1;
    struct arm *v = gt_realloc(o->arms, (size_t)(o->narms + 1) * sizeof *v);
    if (!v)
        return -1;
    o->arms = v;
    if (!(a.cfg = gt_malloc(n * sizeof *a.cfg)))
        return -1;
    memcpy(a.cfg, cfg, n * sizeof *a.cfg);
    o->arms[o->narms++] = a;
    return 0;
}

/* The build, on the pool; its end moves the plan's version, so that a
 * launch that remembered its signature waiting for it (apply.c) comes
 * back to the trial. */
static void build_arm(void *arg)
{
    struct arm *a = arg;
    gt_jit_build(&gt.run.jit, gt.run.have_store ? &gt.run.store : NULL, &a->vj.job);
    atomic_store_explicit(&a->built, 1, memory_order_release);
    atomic_fetch_add_explicit(&a->plan->version, 1, memory_order_release);
}

/* The arm's configuration as text, for messages. */
static const char *shown_config(const struct gt_online *o, const struct arm *a, char *buf, size_t len)
{
    gt_space_format(o->p->space, a->cfg, buf, len);
    return buf;
}

/* Puts the arm's build on the pool, for the launch's block (launch bounds
 * are set to it), or gives its turns back. */
static void start_build(struct gt_online *o, struct gt_plan *p, struct arm *a, const struct gt_call *c)
{
    pthread_mutex_lock(&p->lock);
    int r = gt_plan_job(p, a->cfg, c->g.block, GT_WATCHDOG_OFF, &a->vj);
    pthread_mutex_unlock(&p->lock);
    if (r != 0) {
        a->hopeless = 1;
        return;
    }
    a->task = (struct gt_task){.fn = build_arm, .arg = a};
    a->plan = p;
    atomic_store(&a->built, 0);
    a->building = 1;
    o->building++;
    gt_pool_submit(gt_session_pool(), &a->task);
}

/* Loads the arm's built variant into the current context, or gives its
 * turns back. */
static void load_arm(struct gt_online *o, struct gt_plan *p, struct arm *a, const struct gt_handle *hd,
                     const struct gt_call *c)
{
    char err[1024] = "out of memory", shown[GT_SPACE_TEXT_MAX];
    struct gt_variant *v = gt_calloc(1, sizeof *v);
    int rc = -1;
    if (v) {
        if (a->knobs.bounds)
            memcpy(v->block, c->g.block, sizeof v->block);
        pthread_mutex_lock(&p->lock);
        rc = gt_plan_load(p, hd, &a->knobs, &a->vj.job, v, err, sizeof err);
        pthread_mutex_unlock(&p->lock);
    }
    if (rc == 0) {
        a->v = v;
        gt_key_text(a->vj.job.key, a->key);
        gt_debug("kernel %s: online, '%s' built from %s and loaded", p->shown,
                 shown_config(o, a, shown, sizeof shown), p->recipe.from);
    } else {
        free(v);
        a->hopeless = 1;
        gt_debug("kernel %s: online, '%s' cannot be tried: %s", p->shown, shown_config(o, a, shown, sizeof shown),
                 err);
    }
    gt_plan_store_error(&a->vj.job);
    gt_variant_job_free(&a->vj);
    a->building = 0;
    o->building--;
}

/* Loads the variants whose builds have ended; returns whether all have. */
static int builds_ended(struct gt_online *o, struct gt_plan *p, const struct gt_handle *hd, const struct gt_call *c)
{
    for (int i = 1; i < o->narms && o->building; i++)
        if (o->arms[i].building && gt_pool_done(gt_session_pool(), &o->arms[i].task))
            load_arm(o, p, &o->arms[i], hd, c);
    return !o->building;
}

/* Whether a build still runs whose end will move the plan's version: until
 * then the signature's launches may run the original without asking
 * (WAITING).  A build that has ended on the pool's thread but is not yet
 * done for the pool has moved it already, so its launches keep asking. */
static int build_running(const struct gt_online *o)
{
    for (int i = 1; i < o->narms; i++)
        if (o->arms[i].building && !atomic_load_explicit(&o->arms[i].built, memory_order_acquire))
            return 1;
    return 0;
}

/* The stage's slots from the first, none issued, and its times none. */
static void afresh(struct gt_online *o)
{
    o->issued = o->read = 0;
    for (int i = 0; i < o->narms; i++)
        o->arms[i].n = 0;
}

/* The slots of one stage: `rounds` turns of each of the n arms in `arms`,
 * each round in an order drawn from a fixed pseudo-random sequence, after
 * one untimed launch when `untimed`.  A fixed rotation lines up with an
 * application that launches the signature from several places an
 * iteration, which time it differently: some arms then took their turns at
 * the faster places.  The stage's times start afresh. */
static int schedule(struct gt_online *o, const int *arms, int n, int rounds, int untimed)
{
    struct slot *s = gt_calloc((size_t)(untimed + n * rounds), sizeof *s);
    if (!s)
        return -1;
    free(o->slots);
    o->slots = s;
    o->nslots = untimed + n * rounds;
    for (int i = 0; i < untimed; i++)
        s[i] = (struct slot){.arm = 0};
    for (int r = 0; r < rounds; r++) {
        struct slot *round = s + untimed + r * n;
        for (int i = 0; i < n; i++)
            round[i] = (struct slot){.arm = arms[i], .timed = 1};
        for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
            int j = (int)(gt_hash_mix((uint64_t)r << 32 | (uint64_t)i) % (uint64_t)(i + 1));
            struct slot t = round[i];
            round[i] = round[j];
            round[j] = t;
        }
    }
    afresh(o);
    return 0;
}

/* Whether value v of dimension dim runs exactly as its default: no
 * preference for the cache where the application set none on the kernel
 * (`own_none`), which a framework's kernels seldom have.  Its turns would
 * be spent on noise, and a win the guard kept would set the function's
 * preference back and forth for nothing. */
static int as_default(const struct gt_dim *dim, uint32_t v, int own_none)
{
    return dim->kind == GT_DIM_CACHE && dim->values[v] == GT_CACHE_NONE && own_none;
}

/* Every configuration one knob away from the arm `ref`'s, as arms; a
 * dimension of macro values is left alone, since it may change results.
 * Returns -1 when out of memory, else 0. */
static int add_neighbours(struct gt_online *o, struct gt_plan *p, int ref, const struct gt_launch *l)
{
    const struct gt_space *sp = p->space;
    uint32_t *cfg = gt_malloc((sp->ndims + 1) * sizeof *cfg);
    int bad = !cfg;
    CUdevice dev;
    int own_none = gt.drv.cuCtxGetDevice(&dev) == CUDA_SUCCESS &&
                   gt_reg_own_cache(p->k, (int)dev) == CU_FUNC_CACHE_PREFER_NONE;
    for (size_t d = 0; !bad && d < sp->ndims; d++)
        for (uint32_t v = 0; !bad && sp->dims[d].kind != GT_DIM_PARAM && v < sp->dims[d].n; v++) {
            if (as_default(&sp->dims[d], v, own_none))
                continue;
            memcpy(cfg, o->arms[ref].cfg, (sp->ndims + 1) * sizeof *cfg);
            cfg[d] = v;
            bad = v != o->arms[ref].cfg[d] && add_arm(o, p, cfg, l) != 0;
        }
    free(cfg);
    return bad ? -1 : 0;
}

/* A first stage's turns: the original, the arm `ref` where it is another,
 * and the arms from `from` on, ROUNDS each, after one untimed launch at
 * the signature's first stage. */
static int schedule_first(struct gt_online *o, int ref, int from)
{
    int *arms = gt_malloc((size_t)(o->narms + 2) * sizeof *arms), n = 0;
    if (!arms)
        return -1;
    arms[n++] = 0;
    if (ref)
        arms[n++] = ref;
    for (int i = from; i < o->narms; i++)
        arms[n++] = i;
    int r = schedule(o, arms, n, ROUNDS, !ref);
    free(arms);
    return r;
}

/* The first stage: the original, then every configuration one knob away
 * from it. */
static struct gt_online *online_new(struct gt_plan *p, const struct gt_call *c, uint64_t sig, const char *signature,
                                     CUcontext ctx)
{
    const struct gt_space *sp = p->space;
    struct gt_plan_launch env;
    const struct gt_launch *l = gt_plan_launch_env(p, c, &env);
    struct gt_online *o = gt_calloc(1, sizeof *o);
    uint32_t *cfg = gt_calloc(sp->ndims + 1, sizeof *cfg);
    int bad = !o || !cfg;
    if (!bad) {
        *o = (struct gt_online){.p = p, .sig = sig, .ctx = ctx, .can_build = -1, .last = -1};
        snprintf(o->signature, sizeof o->signature, "%s", signature);
        gt_space_default(sp, cfg);
        bad = add_arm(o, p, cfg, l) != 0 || add_neighbours(o, p, 0, l) != 0 || schedule_first(o, 0, 1) != 0;
    }
    free(cfg);
    if (bad && o)
        online_free(o);
    return bad ? NULL : o;
}

/* The signature's trial, made at its first launch; NULL when there is
 * none to run, or the launch is in another context than the trial's (an
 * application on several devices: the trial goes on with the launches of
 * the first).  As a session, none starts once memory ran out: the
 * signature runs the original from then on.  Its builds go on the pool
 * only once it is in the map: a pool thread holds an arm until its build
 * ends, so a trial that could not be kept must have none running. */
static struct gt_online *online_of(struct gt_plan *p, const struct gt_call *c, uint64_t sig, const char *signature)
{
    CUcontext ctx = NULL;
    if (gt.drv.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS)
        return NULL;
    struct gt_online *o = gt_map_get(&O.trials, gt_plan_key(p, sig));
    if (o)
        return o->p == p && o->sig == sig && o->ctx == ctx ? o : NULL;
    int earlier = gt_alloc_failures() != 0;
    if (!earlier && (o = online_new(p, c, sig, signature, ctx)) && gt_map_put(&O.trials, gt_plan_key(p, sig), o) != 0) {
        online_free(o);
        o = NULL;
    }
    if (!o) {
        gt_log(gt_log_nomem_level(), "kernel %s: launch %s not tuned online: %s", p->shown, signature,
               earlier ? "the shim ran out of memory earlier, and tunes nothing after that"
                       : "out of memory for its trial; nothing more is tuned");
        pthread_mutex_lock(&p->lock);
        gt_plan_mark_done(p, sig);
        pthread_mutex_unlock(&p->lock);
        return NULL;
    }
    o->next = O.all;
    O.all = o;
    for (int i = 1; i < o->narms; i++)
        if (o->arms[i].rebuild)
            start_build(o, p, &o->arms[i], c);
    return o;
}

static void release(struct slot *s)
{
    for (int e = 0; e < 2; e++)
        if (s->ev[e]) {
            gt.drv.cuEventDestroy_v2(s->ev[e]);
            s->ev[e] = NULL;
        }
}

static double median_of(const struct arm *a)
{
    double t[FINAL_ROUNDS];
    memcpy(t, a->us, sizeof t);
    return gt_median(t, a->n);
}

/* Arms that cannot beat the original: even their fastest launch is
 * HOPELESS times its median.  A knob that starves a kernel (a carve-out
 * too small for the shared memory its blocks need, say) would otherwise
 * cost the application all its turns. */
static void give_up_hopeless(struct gt_online *o)
{
    if (!o->arms[0].n)
        return;
    double orig = median_of(&o->arms[0]);
    for (int i = 1; i < o->narms; i++) {
        struct arm *a = &o->arms[i];
        double fastest = a->n ? a->us[0] : 0;
        for (int k = 1; k < a->n; k++)
            fastest = a->us[k] < fastest ? a->us[k] : fastest;
        if (!a->hopeless && a->n && fastest > HOPELESS * orig) {
            a->hopeless = 1;
            gt_debug("kernel %s: online, a configuration %.2fx slower than the original (%.2f us against %.2f us) "
                     "gets no more turns", o->p->shown, fastest / orig, fastest, orig);
        }
    }
}

/* Reads the timed launches that finished, in order, without waiting. */
static void read_done(struct gt_online *o)
{
    while (o->read < o->issued && !o->broken) {
        struct slot *s = &o->slots[o->read];
        float ms = 0;
        if (s->ev[1]) {
            CUresult q = gt.drv.cuEventQuery(s->ev[1]);
            if (q == CUDA_ERROR_NOT_READY)
                return;
            struct arm *a = &o->arms[s->arm];
            if (q != CUDA_SUCCESS || gt.drv.cuEventElapsedTime_v2(&ms, s->ev[0], s->ev[1]) != CUDA_SUCCESS ||
                ms <= 0 || a->n >= FINAL_ROUNDS)
                o->broken = 1;
            else
                a->us[a->n++] = ms * 1e3;
            release(s);
            give_up_hopeless(o);
        }
        o->read++;
    }
}

/* The slots of arms found hopeless give their turns back: no events,
 * read_done passes them. */
static void pass_hopeless(struct gt_online *o)
{
    while (o->issued < o->nslots && o->arms[o->slots[o->issued].arm].hopeless)
        o->issued++;
}

/* The next turn's slot, its events made when it is timed.  A turn whose
 * events are not recorded, or fail, breaks the trial (read_done): the
 * original stays. */
static struct slot *turn_begin(struct gt_online *o)
{
    struct slot *s = &o->slots[o->issued++];
    if (s->timed && (gt.drv.cuEventCreate(&s->ev[0], CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
                     gt.drv.cuEventCreate(&s->ev[1], CU_EVENT_DEFAULT) != CUDA_SUCCESS)) {
        release(s);
        o->broken = 1;
    }
    return s;
}

static void turn_end(struct gt_online *o, CUresult r)
{
    o->launched++;
    if (r != CUDA_SUCCESS) /* the application's own error: its times mean nothing */
        o->broken = 1;
}

/* The next launch, with the configuration its slot names. */
static CUresult run_slot(struct gt_online *o, struct gt_handle *hd, const struct gt_call *c)
{
    struct slot *s = turn_begin(o);
    gt_event_record(s->ev[0], c->s, gt_call_per_thread(c));
    CUresult r;
    if (s->arm == 0) {
        gt_direct_restore(hd);
        r = gt_call_launch(c, c->f, &c->g);
    } else if (o->arms[s->arm].v) {
        r = gt_variant_launch(o->arms[s->arm].v, c, &c->g);
    } else {
        r = gt_direct_launch(hd, c, &o->arms[s->arm].knobs, &c->g);
    }
    /* The turn's cache preference off the function again, or a stream
     * capture next would take it into the graph for good; before the turn's
     * end is recorded, so that its time holds the way back too, as the
     * guard's does (config_cost in run/plan.c). */
    gt_direct_restore(hd);
    gt_event_record(s->ev[1], c->s, gt_call_per_thread(c));
    turn_end(o, r);
    if (r == CUDA_SUCCESS)
        gt_reg_note_launch(hd, &c->g, c->entry, s->arm ? GT_LAUNCH_APPLIED : 0);
    return r;
}

/* The next replay of the graph, the node holding the function of the
 * configuration its slot names, timed as the graph can (online.h). */
static CUresult run_node_slot(struct gt_online *o, const struct gt_online_graph *gr)
{
    const struct arm *a = &o->arms[o->slots[o->issued].arm];
    if ((a != o->arms && !a->v) || gr->hold(gr->arg, a == o->arms ? NULL : a->v->fn) != 0) {
        o->broken = 1; /* the replay would not run what the slot names */
        return gr->replay(gr->arg, NULL, NULL);
    }
    struct slot *s = turn_begin(o);
    CUresult r = gr->replay(gr->arg, s->ev[0], s->ev[1]);
    turn_end(o, r);
    return r;
}

/* On a graph's replays every candidate is a function a node can hold: a
 * variant, or for launch-time knobs a copy of the original image with the
 * knobs set on its function (a node's parameters have no place for them).
 * Loads the copies the arms lack; an arm whose variant has module
 * variables to copy at each launch gives its turns back, since a node has
 * no stream for the copies. */
static void node_arms(struct gt_online *o, struct gt_plan *p, const struct gt_handle *hd)
{
    char err[1024] = "out of memory", shown[GT_SPACE_TEXT_MAX];
    for (int i = 1; i < o->narms; i++) {
        struct arm *a = &o->arms[i];
        if (a->hopeless || a->building || a->rebuild || a->v)
            continue;
        struct gt_variant *v = gt_calloc(1, sizeof *v);
        pthread_mutex_lock(&p->lock);
        int rc = v ? gt_plan_load_copy(p, hd, &a->knobs, v, err, sizeof err) : -1;
        pthread_mutex_unlock(&p->lock);
        if (rc == 0) {
            a->v = v;
            continue;
        }
        free(v);
        a->hopeless = 1;
        gt_debug("kernel %s: online, '%s' cannot be tried in a graph: %s", p->shown,
                 shown_config(o, a, shown, sizeof shown), err);
    }
    for (int i = 1; i < o->narms; i++) {
        struct arm *a = &o->arms[i];
        if (!a->hopeless && a->v && a->v->nvars) {
            a->hopeless = 1;
            gt_debug("kernel %s: online, '%s' cannot be tried in a graph: its module has %d variables to copy at "
                     "each launch, and a node has no stream for them", p->shown,
                     shown_config(o, a, shown, sizeof shown), a->v->nvars);
        }
    }
}

/* The winning arm's variant becomes the choice's, loaded already: for
 * launch-time knobs tried in a graph, the copy its nodes hold (direct
 * launches run the application's own function with them). */
static void adopt_variant(struct gt_choice *ch, struct arm *a)
{
    if (!a->v || ch->variants)
        return;
    ch->variants = a->v;
    a->v = NULL;
}

/* At debug, each arm timed in the stage that ends: its median and turns. */
static void say_stage(const struct gt_online *o, const char *signature)
{
    if (!gt_log_enabled(GT_LOG_DEBUG))
        return;
    for (int i = 0; i < o->narms; i++) {
        const struct arm *a = &o->arms[i];
        char shown[GT_SPACE_TEXT_MAX];
        if (a->n)
            gt_debug("kernel %s: launch %s: online, %s stage: '%s' %.2f us (median of %d)%s", o->p->shown,
                     signature, o->final ? "second" : "first", shown_config(o, a, shown, sizeof shown),
                     median_of(a), a->n, a->hopeless ? ", hopeless" : "");
    }
}

/* Whether arm i was timed in this stage and beat arm `than` by median
 * (0: the original). */
static int faster(const struct gt_online *o, int i, int than)
{
    return o->arms[i].n && median_of(&o->arms[i]) < median_of(&o->arms[than]);
}

/* The arm fastest by median among those timed in this stage; 0, the
 * original, unless another beats it. */
static int fastest_arm(const struct gt_online *o)
{
    int best = 0;
    for (int i = 1; i < o->narms; i++)
        if (faster(o, i, best))
            best = i;
    return best;
}

/* For every knob, its value whose arm beat the arm `ref` by the most, if
 * one did, together on ref's configuration into cfg; returns how many
 * knobs that is.  Each arm timed in the first stage is one knob away from
 * ref's.  Gains of a few tenths of a percent each, within the first
 * stage's noise, can add up to one the guard sees. */
static int combine(const struct gt_online *o, uint32_t *cfg)
{
    const struct gt_space *sp = o->p->space;
    const uint32_t *ref = o->arms[o->ref].cfg;
    int knobs = 0;
    memcpy(cfg, ref, (sp->ndims + 1) * sizeof *cfg);
    for (size_t d = 0; d < sp->ndims; d++) {
        int best = o->ref;
        for (int i = 1; i < o->narms; i++)
            if (o->arms[i].cfg[d] != ref[d] && faster(o, i, best))
                best = i;
        if (best != o->ref) {
            cfg[d] = o->arms[best].cfg[d];
            knobs++;
        }
    }
    return knobs;
}

/* Up to SHORTLIST arms of the first stage that beat the arm `ref`, fastest
 * first, into arms; returns how many. */
static int shortlist(const struct gt_online *o, int *arms)
{
    int n = 0;
    while (n < SHORTLIST) {
        int best = o->ref;
        for (int i = 1; i < o->narms; i++) {
            int taken = i == o->ref;
            for (int k = 0; k < n; k++)
                taken |= arms[k] == i;
            if (!taken && !o->arms[i].hopeless && faster(o, i, best))
                best = i;
        }
        if (best == o->ref)
            break;
        arms[n++] = best;
    }
    return n;
}

/* The second stage, where more than one arm beat the original in the
 * first: the SHORTLIST fastest of those and, where several knobs each
 * did, their best values together, against the original, FINAL_ROUNDS
 * turns each, timed afresh.  Four turns rank the first stage's arms only
 * roughly, and the fastest of many by so few is often the luckiest: the
 * best few race again, as tune mode measures its best few again.  Tune
 * mode's winners often set several knobs, and knobs that each help may
 * not help together.  A single arm that beat the original is the choice
 * at once: the guard races it against the original on the launches that
 * follow.  Returns 0 when the stage is on, -1 when the signature is
 * decided now. */
static int start_final(struct gt_online *o, struct gt_plan *p, const struct gt_call *c, const char *signature)
{
    say_stage(o, signature);
    int arms[SHORTLIST + 3] = {0};
    int n = 1, first = o->narms;
    if (o->ref)
        arms[n++] = o->ref;
    int found = shortlist(o, arms + n);
    n += found;
    uint32_t *cfg = found ? gt_calloc(p->space->ndims + 1, sizeof *cfg) : NULL;
    struct gt_plan_launch env;
    if (cfg && combine(o, cfg) > 1 && add_arm(o, p, cfg, gt_plan_launch_env(p, c, &env)) == 0 && o->narms > first)
        arms[n++] = first;
    free(cfg);
    if (n < 3 || schedule(o, arms, n, FINAL_ROUNDS, 0) != 0)
        return -1;
    o->final = 1;
    if (o->narms > first && o->arms[first].rebuild)
        start_build(o, p, &o->arms[first], c);
    return 0;
}

/* A round ended with a choice other than the original: a second round
 * starts from it, as the first started from the original, its first stage
 * timing the configurations one knob away from it that no stage has made
 * an arm of yet, beside it and the original.  Tune mode's winners set
 * several knobs whose values depend on each other (a register limit that
 * helps with one load cache mode and not another), which the first
 * round's one knob at a time and its best values together do not reach.
 * Returns 0 when the round is on, -1 when the signature is decided now. */
static int start_round(struct gt_online *o, struct gt_plan *p, const struct gt_call *c, const char *signature)
{
    int best = fastest_arm(o), first = o->narms;
    if (o->ref || !best)
        return -1;
    struct gt_plan_launch env;
    o->ref = best;
    if (add_neighbours(o, p, best, gt_plan_launch_env(p, c, &env)) != 0 || o->narms == first)
        return -1; /* decided on this stage, which decide() lists */
    if (o->final)
        say_stage(o, signature);
    if (schedule_first(o, best, first) != 0)
        return -1;
    o->final = 0;
    for (int i = first; i < o->narms; i++)
        if (o->arms[i].rebuild)
            start_build(o, p, &o->arms[i], c);
    char shown[GT_SPACE_TEXT_MAX];
    gt_debug("kernel %s: launch %s: online, a second round from '%s', %d configurations one knob away", p->shown,
             signature, shown_config(o, &o->arms[best], shown, sizeof shown), o->narms - first);
    return 0;
}

/* The next stage once every time of this one is read: the first stage's
 * race, or a second round.  Returns 0 when one is on, -1 when the
 * signature is decided now. */
static int next_stage(struct gt_online *o, struct gt_plan *p, const struct gt_call *c, const char *signature)
{
    o->last = fastest_arm(o);
    o->last_med[0] = median_of(&o->arms[0]);
    o->last_med[1] = median_of(&o->arms[o->last]);
    if (!o->final && start_final(o, p, c, signature) == 0) {
        gt_debug("kernel %s: launch %s: online, the second stage", p->shown, signature);
        return 0;
    }
    return start_round(o, p, c, signature);
}

/* Every time of the last stage read (or, with `before`, none of the
 * stage that follows it timed): the fastest by median becomes the
 * signature's choice where it beats the original by more than the guard's
 * least gain, or the original stays; either is written to the cache file.
 * A choice within that gain is a draw the turns' noise decided, which the
 * guard's launches would only spend time dropping: on a graph's replays
 * each of its turns updates the executable graph. */
static void decide(struct gt_online *o, struct gt_plan *p, const char *signature, int before)
{
    int best = 0;
    double med[2] = {0, 0};
    if (gt_alloc_failures()) { /* what the trial found, or how it ended, may be what was lost */
        gt_log(gt_log_nomem_level(), "kernel %s: launch %s not tuned online: out of memory while tuning; nothing "
               "of it is kept, and nothing more is tuned", p->shown, signature);
        o->broken = 1;
    } else if (o->narms == 1) {
        gt_debug("kernel %s: launch %s: no launch-time knob to try online", p->shown, signature);
        o->broken = 1; /* nothing measured, nothing to keep */
    } else if (!o->broken && before) {
        best = o->last;
        med[0] = o->last_med[0];
        med[1] = o->last_med[1];
    } else if (!o->broken) {
        if (o->final)
            say_stage(o, signature);
        best = fastest_arm(o);
        med[0] = median_of(&o->arms[0]);
        med[1] = median_of(&o->arms[best]);
    }
    char config[GT_SPACE_TEXT_MAX] = "", draw[GT_SPACE_TEXT_MAX + 96] = "";
    if (best && 1 - med[1] / med[0] <= GT_GUARD_GAIN) { /* the gain as the guard reckons it */
        gt_space_format(p->space, o->arms[best].cfg, config, sizeof config);
        snprintf(draw, sizeof draw, " ('%s' read %.2f us, within the %.1f%% the guard keeps a gain from)", config,
                 med[1], 100 * GT_GUARD_GAIN);
        best = 0;
        med[1] = med[0];
    }
    gt_space_format(p->space, o->arms[best].cfg, config, sizeof config);
    long entry = -1;
    if (!o->broken) {
        struct gt_centry e = {.signature = (char *)signature, .config = config, .cubin = o->arms[best].key,
                              .strategy = "online",
                              .time_us = med[1], .baseline_us = med[0], .trials = o->launched,
                              .space = (uint64_t)o->narms};
        entry = gt_plan_keep(p, &e);
        gt_info("kernel %s: launch %s tuned online over %d launches: %s %.2f us against %.2f us, %.2fx%s", p->shown,
                signature, o->launched, best ? config : "the original", med[1], med[0], med[0] / med[1], draw);
    } else if (o->torn) {
        gt_info("kernel %s: launch %s: its context was torn down while it was tuned online; the original stays, "
                "and a later run tunes it", p->shown, signature);
    } else if (o->narms > 1) {
        gt_debug("kernel %s: launch %s: a launch or an event failed while tuning online; the original stays",
                 p->shown, signature);
    }
    pthread_mutex_lock(&p->lock);
    struct gt_choice *ch = best ? gt_plan_choose(p, o->sig, signature, o->arms[best].cfg, "tuned online") : NULL;
    if (ch) {
        ch->time_us = med[1];
        ch->baseline_us = med[0];
        ch->entry = entry;
        snprintf(ch->cubin, sizeof ch->cubin, "%s", o->arms[best].key);
        adopt_variant(ch, &o->arms[best]);
    } else {
        gt_plan_mark_done(p, o->sig);
    }
    pthread_mutex_unlock(&p->lock);
}

/* Once every turn is read, every launch of the candidates has ended: the
 * variants of those not chosen are unloaded, in the context they were
 * loaded in, current at the signature's launches.  A trial that broke may
 * have launches unread, and keeps them. */
static void unload_others(struct gt_online *o, const char *signature)
{
    int n = 0;
    if (o->broken)
        return;
    for (int i = 1; i < o->narms; i++)
        if (o->arms[i].v) {
            gt_variant_unload(o->arms[i].v);
            free(o->arms[i].v);
            o->arms[i].v = NULL;
            n++;
        }
    if (n)
        gt_debug("kernel %s: launch %s: online, the variants of %d candidates not chosen unloaded", o->p->shown,
                 signature, n);
}

enum step { TURN, NO_TURN, WAITING, DECIDED };

/* The trial moved on as far as it can now: the variants whose builds
 * ended loaded, the turns done read, the next stage started or the
 * signature decided.  Returns TURN when the slot o->issued is to run now.
 * On a graph's replays (gr), the node holds its own function again before
 * the signature is decided, since the losers' variants are unloaded. */
static enum step advance(struct gt_online *o, struct gt_plan *p, struct gt_handle *hd, const struct gt_call *c,
                         const char *signature, const struct gt_online_graph *gr)
{
    if (o->decided)
        return DECIDED;
    if (!builds_ended(o, p, hd, c))
        return build_running(o) ? WAITING : NO_TURN;
    if (gr)
        node_arms(o, p, hd);
    read_done(o);
    pass_hopeless(o);
    if (o->issued < o->nslots && !o->broken && o->narms > 1)
        return TURN;
    if (o->read == o->issued && !o->broken && o->narms > 1 && !gt_alloc_failures() &&
        next_stage(o, p, c, signature) == 0)
        return NO_TURN; /* its turns start at the next launch */
    if (o->read < o->issued && !o->broken && o->narms > 1)
        return NO_TURN;
    if (gr && gr->hold(gr->arg, NULL) != 0)
        o->broken = 1;
    o->decided = 1;
    O.decided++;
    O.last_decided = gt_clock_seconds();
    decide(o, p, signature, 0);
    unload_others(o, signature);
    return DECIDED;
}

int gt_online_launch(struct gt_plan *p, struct gt_handle *hd, const struct gt_call *c, uint64_t sig,
                     const char *signature, CUresult *r, int *waiting)
{
    int ran = 0;
    pthread_mutex_lock(&O.lock);
    struct gt_online *o = online_of(p, c, sig, signature);
    enum step st = o && !o->graph ? advance(o, p, hd, c, signature, NULL) : NO_TURN;
    if (st == TURN) {
        *r = run_slot(o, hd, c);
        ran = 1;
    }
    *waiting = st == WAITING;
    pthread_mutex_unlock(&O.lock);
    if (!ran)
        gt_direct_restore(hd);
    return ran;
}

/* A trial begun on direct launches goes on on a graph's replays (a
 * framework launches a kernel a few times, then captures it): its stage
 * starts over, since a node's time in a graph and a launch's do not compare.
 * Returns 0 once it has, -1 while turns of the stage are unread. */
static int to_graph(struct gt_online *o)
{
    read_done(o);
    if (o->read < o->issued && !o->broken)
        return -1;
    for (int i = 0; i < o->nslots; i++)
        release(&o->slots[i]);
    afresh(o);
    o->graph = 1;
    return 0;
}

int gt_online_node(struct gt_plan *p, struct gt_handle *hd, const struct gt_call *c, uint64_t sig,
                   const char *signature, const struct gt_online_graph *gr, CUresult *r)
{
    int ran = 0;
    pthread_mutex_lock(&O.lock);
    struct gt_online *o = online_of(p, c, sig, signature);
    if (!o || o->decided) {
        ran = -1;
    } else if (gr && (o->graph || to_graph(o) == 0)) {
        enum step st = advance(o, p, hd, c, signature, gr);
        if (st == TURN)
            *r = run_node_slot(o, gr);
        ran = st == TURN ? 1 : st == DECIDED ? -1 : 0;
    }
    pthread_mutex_unlock(&O.lock);
    return ran;
}

/* At exit, and before a context goes: a trial whose stage has every
 * launch issued reads them without waiting (at exit, after the
 * application's last synchronization, they are done), and one with all of
 * them read decides on that stage, the first one too, since no launch is
 * left to run a second: a program that queues its launches ahead of the
 * GPU finds none done while it launches, and would start over at every
 * run.  One whose stage has not had all its turns decides on the stage
 * before, if one ended: the second stage's combination of knobs differs
 * from run to run, and a run too short for its build and its turns would
 * otherwise decide nothing at every run.  The guard checks the choice in
 * a later run, as any. */
void gt_online_collect(void)
{
    pthread_mutex_lock(&O.lock);
    for (struct gt_online *o = O.all; o; o = o->next) {
        if (o->decided || o->broken || o->narms < 2)
            continue;
        read_done(o);
        if (!o->building)
            pass_hopeless(o);
        int whole = !o->building && !o->broken && o->issued == o->nslots && o->read == o->issued;
        int before = !whole && !o->broken && o->last >= 0;
        if (!whole && !before)
            continue;
        if (whole && !o->final)
            say_stage(o, o->signature);
        if (before)
            gt_debug("kernel %s: launch %s: online, decided on the stage before: the last one had not had all its "
                     "turns", o->p->shown, o->signature);
        o->decided = 1;
        O.decided_at_exit++;
        decide(o, o->p, o->signature, before);
    }
    pthread_mutex_unlock(&O.lock);
}

/* A kernel every signature of which has been decided for the original (or
 * for a configuration the guard dropped), and none of whose launches has
 * taken a turn for its policy's online.settle seconds, is left alone: its
 * launches run the original without looking up their signature, as a
 * kernel with nothing to run or tune does.  That lookup (the thread's
 * table of choices, its lines evicted by a framework's own work between
 * launches) is most of what online mode's steady state costs a launch.  A
 * signature the kernel meets afterwards runs the original and is tuned by a
 * later run, which finds it missing from the cache file; so is a graph
 * node of it.  Asked now and then from a launch that ran the original
 * (launch/apply.c); a trial that begins in between only loses its turns. */
void gt_online_settle(struct gt_plan *p)
{
    const struct gt_settings *st = gt_plan_settings(p);
    double settle = st && st->online_settle >= 0 ? st->online_settle : SETTLE_S;
    if (settle <= 0 || !p->tune || atomic_load_explicit(&p->settled, memory_order_relaxed))
        return;
    double now = gt_clock_seconds();
    pthread_mutex_lock(&p->lock);
    int quiet = now - p->last_turn >= settle;
    for (const struct gt_choice *ch = p->choices; quiet && ch; ch = ch->next)
        quiet = !gt_plan_runs(ch);
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_lock(&O.lock);
    for (const struct gt_online *o = O.all; quiet && o; o = o->next)
        quiet = o->p != p || o->decided;
    int first = quiet && !atomic_exchange(&p->settled, 1); /* another thread may have settled it meanwhile */
    O.settled += first;
    pthread_mutex_unlock(&O.lock);
    if (first)
        gt_debug("kernel %s: settled online: every signature runs the original, none took a turn for %.1f s; its "
                 "launches now pass as an untuned kernel's",
                 p->shown, settle);
}

/* At exit, at info: when online mode's trials ended, against the first
 * launch, so that a benchmark can tell whether its timed part ran while
 * signatures still took turns. */
void gt_online_report(void)
{
    pthread_mutex_lock(&O.lock);
    if (O.decided)
        gt_info("online mode: %d signatures decided on the application's launches, the last %.1f s after its first "
                "launch; %d more decided at exit", O.decided, O.last_decided - gt.run.started, O.decided_at_exit);
    else if (O.decided_at_exit)
        gt_info("online mode: no signature decided on the application's launches; %d decided at exit",
                O.decided_at_exit);
    if (O.settled)
        gt_info("online mode: %d kernels settled (every signature ran the original, none took a turn for "
                "online.settle seconds): their launches passed untouched, and a signature they met afterwards ran "
                "the original, for a later run to tune", O.settled);
    pthread_mutex_unlock(&O.lock);
}

/* Before the application destroys a context or resets a device's primary
 * one: every trial still on lets go of its events unread, and its
 * variants, loaded in that context, are never launched again.  Which
 * context a trial's launches ran in is not looked up, as for the guards
 * (intercept/hook_ctx.c): each trial still on ends with the original,
 * decided at its signature's next launch, and nothing is written for it,
 * so that a later run tunes it afresh. */
void gt_online_detach(void)
{
    pthread_mutex_lock(&O.lock);
    for (struct gt_online *o = O.all; o; o = o->next) {
        if (o->decided)
            continue;
        for (int i = o->read; i < o->issued; i++)
            release(&o->slots[i]);
        o->read = o->issued;
        o->broken = o->torn = 1;
    }
    pthread_mutex_unlock(&O.lock);
}
