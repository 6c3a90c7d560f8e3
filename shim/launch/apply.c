/* apply.c: what runs at each launch of a kernel with a plan.
 *
 * Run mode with nothing in its settings and cache files that can apply
 * leaves the launches to the driver altogether (gt_apply_idle).  Otherwise
 * the first launch of each kernel decides whether it gets a plan (plan.c):
 * when GPUTUNE_FORCE names it, when the cache file holds entries for it
 * (its image, this device and driver), or when tune mode may tune it.  A
 * cache tuned on one machine often runs on others of the same architecture:
 * where this device has no entry for a signature and the kernel is not
 * tuned here, another device's is used (unless GPUTUNE_STRICT_DEVICE=1),
 * said once per file and listed at exit; the guard checks it anew and never
 * writes its verdict into the other device's entry.  A kernel without a
 * plan costs one atomic load per launch from then on.  With one, each
 * launch finds the choice for its signature and runs that variant; in tune
 * mode a signature without one is tuned first (session.c); in run mode it
 * takes the configuration of the nearest tuned signature, and says so once.
 * Where the kernel's constraints read the launch, allowed.c checks each
 * launch's choice first; guard.c checks each applied configuration against
 * the original on the application's own launches, and at exit its verdicts
 * go to the cache file.  Cooperative launches always run the original, and
 * launches into a capturing stream run only a configuration already settled
 * (plan.c: gt_plan_run_captured); nothing is tuned while a stream is
 * captured.  In online mode a plan that settles (online.c:
 * gt_online_settle) costs its launches what a plan with nothing to run
 * does. */
#include "apply.h"
#include "busy.h"
#include "alloc.h"
#include "allowed.h"
#include "arena.h"
#include "budget.h"
#include "cachefile.h"
#include "cachewrite.h"
#include "capture.h"
#include "clock.h"
#include "demangle.h"
#include "direct.h"
#include "graphs.h"
#include "hash.h"
#include "online.h"
#include "perthread.h"
#include "plan.h"
#include "session.h"
#include "state.h"
#include "trialsafe.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- process-wide setup, once, at the first kernel that could need it ---- */

static void parse_force(struct gt_run_state *a, const char *v)
{
    char *copy = gt_strdup(v), *save = NULL;
    for (char *e = copy ? strtok_r(copy, ";", &save) : NULL; e; e = strtok_r(NULL, ";", &save)) {
        e += strspn(e, " \t");
        size_t glob = strcspn(e, " \t");
        if (!*e)
            continue;
        struct gt_force *f = gt_realloc(a->force, (size_t)(a->nforce + 1) * sizeof *f);
        if (!f)
            break;
        a->force = f;
        f[a->nforce].glob = gt_strndup(e, glob);
        f[a->nforce].config = gt_strdup(e + glob + strspn(e + glob, " \t"));
        if (!f[a->nforce].glob || !f[a->nforce].config) { /* the exit says memory ran out */
            free(f[a->nforce].glob);
            free(f[a->nforce].config);
            break;
        }
        a->nforce++;
    }
    free(copy);
}

/* The loader's messages; `then`, what follows from them, ends the last one,
 * so that one fault (out of memory) costs one message.  `lost`: the count
 * of failed allocations before loading. */
static void warn_diags(struct gt_diags *d, const char *then, unsigned long lost)
{
    for (size_t i = 0; i < d->n; i++) {
        char msg[1024];
        gt_diag_format(&d->v[i], msg, sizeof msg);
        int last = then && i + 1 == d->n;
        gt_log(gt_log_fault_level(lost), "%s%s%s", msg, last ? "; " : "", last ? then : "");
    }
    if (then && !d->n)
        gt_log(gt_log_fault_level(lost), "%s", then);
    gt_diags_clear(d);
}

/* GPUTUNE_POLICY's files, then GPUTUNE_SET's settings over them. */
static void load_policy(struct gt_run_state *a)
{
    const char *list = gt.env.policy, *set = gt.env.set;
    int have_list = list && *list, have_set = set && set[strspn(set, " \t")];
    if (!have_list && !have_set)
        return;
    struct gt_diags d = {0};
    unsigned long lost = gt_alloc_failures();
    if (!(a->policy = gt_policy_new())) {
        gt_log(gt_log_nomem_level(), "out of memory for the policy: neither GPUTUNE_POLICY nor GPUTUNE_SET applies");
        return;
    }
    int r = have_list ? gt_policy_load_list(a->policy, list, &d) : 0;
    warn_diags(&d, NULL, lost);
    if (r < 0) {
        gt_log(gt_log_fault_level(lost), "GPUTUNE_POLICY: cannot read %s; no policy applies", list);
        gt_policy_free(a->policy);
        a->policy = NULL;
        return;
    }
    if (have_set && gt_policy_override(a->policy, set, &d) != 0)
        warn_diags(&d, "GPUTUNE_SET is not applied", lost);
    a->policy_nomem = gt_alloc_failures() != lost;
}

/* The program as its cache file is keyed (cachefile.c: gt_cache_program),
 * from /proc/self/exe and /proc/self/cmdline. */
static void program_of(struct gt_run_state *a)
{
    char exe[PATH_MAX], args[16384];
    char *argv[64];
    int argc = 0;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    ssize_t len = fd >= 0 ? read(fd, args, sizeof args - 1) : -1;
    if (fd >= 0)
        close(fd);
    args[len > 0 ? len : 0] = '\0';
    for (ssize_t i = 0; i < len && argc < 64; i += (ssize_t)strlen(args + i) + 1)
        argv[argc++] = args + i;
    if (n <= 0 || gt_cache_program(exe, argv, argc, a->binary, sizeof a->binary) != 0)
        snprintf(a->binary, sizeof a->binary, "%s", n > 0 ? exe : "unknown");
}

/* One cache file into c; what cannot be used of it is said. */
static void read_cache(struct gt_cachefile *c, const char *path)
{
    char err[1024];
    unsigned long lost = gt_alloc_failures();
    enum gt_cache_status st = gt_cache_load(c, path, err, sizeof err);
    if (st != GT_CACHE_OK && c->n)
        gt_log(gt_log_fault_level(lost), "%s; its %zu %sentries are used", err, c->n,
               st == GT_CACHE_DAMAGED ? "other " : "");
    else if (st != GT_CACHE_OK)
        gt_log(gt_log_fault_level(lost), "%s; tuned configurations from it are not used", err);
    if (c->n)
        gt_debug("cache file %s: %zu entries", path, c->n);
}

/* The file whose entries a->cache holds up to its end now. */
static void note_source(struct gt_run_state *a, const char *path)
{
    struct gt_cache_source *v = gt_realloc(a->sources, (a->nsources + 1) * sizeof *v);
    char *copy = gt_strdup(path);
    if (v)
        a->sources = v;
    if (!v || !copy) {
        free(copy); /* out of memory, which is counted and said: its entries are named as another file's */
        return;
    }
    v[a->nsources++] = (struct gt_cache_source){.path = copy, .end = a->cache->n};
}

static struct gt_cache_source *source_of(struct gt_run_state *a, size_t entry)
{
    static struct gt_cache_source unknown = {.path = "a cache file"};
    for (size_t i = 0; i < a->nsources; i++)
        if (entry < a->sources[i].end)
            return &a->sources[i];
    return &unknown;
}

/* GPUTUNE_CACHE_PATH's files, read-only: their entries where the cache
 * file has none for the same key. */
static void read_more(struct gt_run_state *a, const char *list)
{
    struct gt_cachefile *c = a->cache;
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ":");
        char path[PATH_MAX];
        struct gt_cachefile more = {0};
        if (len && len < sizeof path) {
            snprintf(path, sizeof path, "%.*s", (int)len, p);
            read_cache(&more, path);
        }
        for (size_t i = 0; i < more.n; i++)
            if (!gt_cache_find(c, &more.v[i]) && gt_cache_put(c, &more.v[i], 1) != 0)
                break;
        if (more.n)
            note_source(a, path);
        gt_cache_clear(&more);
        p += len + (p[len] == ':');
    }
}

/* The cache file of this program (or GPUTUNE_CACHE_FILE), then
 * GPUTUNE_CACHE_PATH's, read once. */
static void load_cache(struct gt_run_state *a)
{
    char root[PATH_MAX];
    program_of(a);
    if (gt.env.cache_file) {
        if (snprintf(a->cache_path, sizeof a->cache_path, "%s", gt.env.cache_file) >= (int)sizeof a->cache_path) {
            gt_warn("GPUTUNE_CACHE_FILE is too long; no cache file is read or written");
            a->cache_path[0] = '\0';
        }
    } else if (gt_store_default_root(gt.env.cache_dir, root, sizeof root) != 0 ||
               gt_cache_file(root, a->binary, a->cache_path, sizeof a->cache_path) != 0) {
        a->cache_path[0] = '\0';
    }
    if (!(a->cache = gt_calloc(1, sizeof *a->cache))) {
        gt_log(gt_log_nomem_level(), "%s: out of memory; tuned configurations from it are not used", a->cache_path);
        return;
    }
    if (a->cache_path[0])
        read_cache(a->cache, a->cache_path);
    if (a->cache->n)
        note_source(a, a->cache_path);
    read_more(a, gt.env.cache_path);
}

/* Whether an entry can give a launch anything but the original: not one
 * the guard dropped, nor one of knobs at their original values alone (what
 * tune mode writes where the original won). */
static int may_apply(const struct gt_centry *e)
{
    return e->guard != GT_CENTRY_DROPPED && !gt_knob_config_is_original(e->config);
}

/* Run mode with no GPUTUNE_FORCE and no cache entry that can apply has
 * nothing to do at any launch, and gives the application the driver's own
 * entry points (interpose.c), as off mode does: its launches then cost
 * nothing.  At info and debug it watches every launch for the exit
 * report's table of kernels, as it counts them. */
static void decide_idle(struct gt_run_state *a)
{
    size_t n = a->cache ? a->cache->n : 0, i = 0;
    while (i < n && !may_apply(&a->cache->v[i]))
        i++;
    int nothing = gt.mode == GT_MODE_RUN && !a->nforce && i == n;
    int idle = nothing && !gt_log_enabled(GT_LOG_INFO);
    atomic_store_explicit(&a->idle, idle ? GT_RUN_IDLE : GT_RUN_WATCHING, memory_order_release);
    if (nothing)
        gt_info("run mode: %s; below info the shim leaves every launch to the driver, as in off mode",
                n ? "no entry of the cache applies (each keeps the original, or the guard dropped it)"
                  : "the cache holds nothing for this program");
}

/* The environment's settings and the cache, once, at the first driver
 * pointer handed out or the first kernel launched, whichever comes first:
 * reading them calls nothing of the driver's, so that a lookup inside
 * the driver's own start finds them read. */
static void setup(void)
{
    struct gt_run_state *a = &gt.run;
    const char *force = gt.env.force;
    a->guard = gt.env.guard;
    if (force)
        parse_force(a, force);
    load_policy(a);
    load_cache(a);
    decide_idle(a);
}

static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

/* Not in setup(): run mode sets up as early as the driver's entry points are asked for, and the guard's
 * shares of the run count from the first launch. */
static void mark_started(void)
{
    gt.run.started = gt_clock_seconds();
}

static pthread_once_t started_once = PTHREAD_ONCE_INIT;

int gt_apply_idle(void)
{
    if (gt.mode != GT_MODE_RUN)
        return 0;
    int s = atomic_load_explicit(&gt.run.idle, memory_order_acquire);
    if (s == GT_RUN_UNKNOWN) {
        pthread_once(&setup_once, setup);
        s = atomic_load_explicit(&gt.run.idle, memory_order_acquire);
    }
    return s == GT_RUN_IDLE;
}

/* ---- deciding a kernel's plan ---- */

static const char *forced_config(struct gt_run_state *a, const char *mangled, const char *demangled)
{
    for (int i = 0; i < a->nforce; i++)
        if (gt_policy_match(a->force[i].glob, mangled, demangled))
            return a->force[i].config;
    return NULL;
}

static int cache_names(const struct gt_run_state *a, const char *kernel)
{
    for (size_t i = 0; a->cache && i < a->cache->n; i++)
        if (strcmp(a->cache->v[i].kernel, kernel) == 0)
            return 1;
    return 0;
}

static int is_original(const struct gt_plan *p, const uint32_t *cfg)
{
    for (size_t i = 0; i < p->space->ndims; i++)
        if (cfg[i] != p->space->dims[i].def)
            return 0;
    return 1;
}

/* Whether e is an entry for the plan's kernel as it sees it (image,
 * architecture, driver), tuned on this device or, when `elsewhere`, on
 * another. */
static int entry_for(const struct gt_plan *p, uint64_t image, const struct gt_centry *e, int elsewhere)
{
    return e->image == image && e->arch == p->arch.sm && gt_cache_same_driver(e, p->driver, gt.drv.release) &&
           !strcmp(e->kernel, p->k->name) &&
           !strcmp(e->device, p->device) == !elsewhere;
}

/* An entry tuned on another device, said once per file it comes from. */
static void say_elsewhere(struct gt_cache_source *src, const struct gt_plan *p, const struct gt_centry *e)
{
    if (src->warned)
        return;
    src->warned = 1;
    gt_warn("%s: configurations tuned on %s are used on this %s (both sm_%d), where they may not be the fastest; "
            "GPUTUNE_STRICT_DEVICE=1 uses only this device's, GPUTUNE_LOG=info lists them at exit", src->path,
            e->device, p->device, p->arch.sm);
}

/* One cache entry as the plan's choice for its signature (none when nothing
 * beat the original); src: the file of an entry tuned on another device,
 * whose guard's verdict and times tell nothing of this one.  -1 when out of
 * memory. */
static int take_entry(struct gt_plan *p, const struct gt_centry *e, struct gt_cache_source *src)
{
    long at = gt_plan_add_cached(p, e);
    if (at < 0)
        return -1;
    uint32_t *cfg = gt_calloc(p->space->ndims + 1, sizeof *cfg);
    char err[512];
    struct gt_choice *ch = NULL;
    uint64_t sig = gt_hash64(e->signature, strlen(e->signature)) | 1;
    if (!cfg)
        gt_log(gt_log_nomem_level(), "kernel %s: out of memory for cached configuration '%s'", p->shown, e->config);
    else if (gt_plan_parse(p, e->config, cfg, err, sizeof err) != 0)
        gt_log(gt.run.policy_nomem ? gt_log_nomem_level() : GT_LOG_WARN, /* the space may be what memory cut */
               "kernel %s: cached configuration '%s' no longer fits its space: %s", p->shown, e->config, err);
    else if (is_original(p, cfg) || e->guard == GT_CENTRY_DROPPED)
        gt_plan_mark_done(p, sig); /* nothing beat the original, in the trials or in the application */
    else
        ch = gt_plan_choose(p, sig, e->signature, cfg, src ? "another device's cache entry" : "the cache");
    if (ch) {
        snprintf(ch->cubin, sizeof ch->cubin, "%s", e->cubin ? e->cubin : "");
        ch->time_us = e->time_us;
        ch->baseline_us = e->baseline_us;
        ch->entry = at;
        if (src) {
            ch->elsewhere = p->cached[at].device;
            ch->from = src->path;
        } else if (e->guard == GT_CENTRY_KEPT) {
            gt_guard_kept_before(&ch->guard, e->guard_speedup);
        } else if (e->guard_times && gt_guard_resume(&ch->guard, e->guard_times) != 0) {
            gt_debug("kernel %s: launch %s: the guard's times of earlier runs are not used", p->shown, e->signature);
        }
    }
    if (src && ch)
        say_elsewhere(src, p, e);
    free(cfg);
    return 0;
}

/* The cache's entries for this kernel as the plan sees it, each a choice:
 * this device's, then (elsewhere) those of another device of its
 * architecture for signatures this device's do not cover, the first in
 * file order. */
static void take_cached(struct gt_run_state *a, struct gt_plan *p, int elsewhere)
{
    uint64_t image = p->k->image ? gt_image_hash(p->k->image) : 0;
    for (int other = 0; other <= elsewhere; other++)
        for (size_t i = 0; i < a->cache->n; i++) {
            const struct gt_centry *e = &a->cache->v[i];
            if (!entry_for(p, image, e, other))
                continue;
            uint64_t sig = gt_hash64(e->signature, strlen(e->signature)) | 1;
            if (other && (gt_plan_find(p, sig) || gt_plan_is_done(p, sig)))
                continue;
            if (take_entry(p, e, other ? source_of(a, i) : NULL) != 0)
                return;
        }
}

static int tunable(const struct gt_run_state *a, const struct gt_section *sec)
{
    if (gt.mode != GT_MODE_TUNE && gt.mode != GT_MODE_RETUNE && gt.mode != GT_MODE_ONLINE)
        return 0;
    if (sec)
        return sec->set.tune != 0;
    return !a->policy || a->policy->unnamed.unnamed != 0;
}

static struct gt_plan *decide(struct gt_run_state *a, struct gt_kernel *k)
{
    pthread_once(&setup_once, setup);
    pthread_once(&started_once, mark_started);
    if (gt.drv.lacks)
        return NULL;
    int tune = gt.mode == GT_MODE_TUNE || gt.mode == GT_MODE_RETUNE || gt.mode == GT_MODE_ONLINE;
    int cached = gt.mode != GT_MODE_RETUNE && cache_names(a, k->name);
    if (!a->nforce && !cached && !tune)
        return NULL;
    char *shown = gt_demangle(k->name);
    const char *name = shown ? shown : k->name;
    const char *config = forced_config(a, k->name, name);
    const struct gt_section *sec = a->policy ? gt_policy_find(a->policy, k->name, name) : NULL;
    struct gt_plan *p = NULL;
    struct gt_choice *ch;
    char err[512];
    enum gt_rc rc;
    if (sec && sec->errors)
        gt_log(a->policy_nomem ? gt_log_nomem_level() : GT_LOG_WARN,
               "kernel %s: its policy section has errors; running the original", name);
    else if ((config || cached || tunable(a, sec)) && (rc = gt_plan_new(k, name, sec, &p, err, sizeof err)) != GT_OK)
        gt_log(gt_log_level_of(rc), "kernel %s: %s; running the original", name, err);
    uint32_t *cfg = p && config ? gt_calloc(p->space->ndims + 1, sizeof *cfg) : NULL;
    if (cfg && gt_plan_parse(p, config, cfg, err, sizeof err) != 0) {
        gt_warn("kernel %s: configuration '%s' does not fit its space: %s; running the original", name, config, err);
        gt_plan_free(p);
        p = NULL;
    } else if (cfg && (ch = gt_plan_choose(p, 0, NULL, cfg, "GPUTUNE_FORCE")) != NULL) {
        ch->guarded = 0; /* a configuration tried by hand runs as asked */
        gt_info("kernel %s: applying configuration '%s' (GPUTUNE_FORCE)", name, config);
    }
    free(cfg);
    if (p)
        p->tune = !config && tunable(a, sec) && (gt.mode == GT_MODE_ONLINE || gt_trialsafe(p)); /* online runs
                                                                                                   each launch once */
    if (p && cached) /* what tune mode tunes here, another device's entries do not settle */
        take_cached(a, p, !gt.env.strict_device && !p->tune);
    if (p && !p->tune && !p->choices) { /* nothing to run or tune: cached entries where the original won, or dropped */
        gt_plan_free(p);
        p = NULL;
    }
    free(shown);
    return p;
}

static struct gt_plan *plan_of(struct gt_kernel *k)
{
    int st = atomic_load_explicit(&k->planned, memory_order_acquire);
    if (st)
        return st > 0 ? k->plan : NULL;
    pthread_mutex_lock(&gt.launch.lock);
    if (!atomic_load(&k->planned)) {
        k->plan = decide(&gt.run, k);
        atomic_store_explicit(&k->planned, k->plan ? 1 : -1, memory_order_release);
    }
    pthread_mutex_unlock(&gt.launch.lock);
    return k->plan;
}

/* ---- the launch ---- */

/* The nearest tuned signature's configuration for an unseen one (run
 * mode): this device's, else one of another device's entries the plan took. */
static struct gt_choice *nearest(struct gt_plan *p, uint64_t sig, const char *signature)
{
    struct gt_centry key = {.image = p->ncached ? p->cached[0].image : 0, .kernel = p->k->name,
                            .device = p->device, .arch = p->arch.sm, .signature = (char *)signature};
    struct gt_cachefile c = {.v = p->cached, .n = p->ncached};
    const struct gt_centry *e = gt_cache_nearest(&c, &key);
    if (!e) {
        key.device = NULL;
        e = gt_cache_nearest(&c, &key);
    }
    struct gt_choice *from = e ? gt_plan_find(p, gt_hash64(e->signature, strlen(e->signature)) | 1) : NULL;
    struct gt_choice *ch = from ? gt_plan_choose(p, sig, signature, from->cfg, "the nearest tuned signature") : NULL;
    if (ch) {
        memcpy(ch->cubin, from->cubin, sizeof ch->cubin);
        ch->elsewhere = from->elsewhere;
        ch->from = from->from;
        gt_info("kernel %s: launch %s was not tuned; using the configuration tuned for %s%s%s ('%s')", p->shown,
                signature, e->signature, ch->elsewhere ? " on " : "", ch->elsewhere ? ch->elsewhere : "", ch->config);
    }
    return ch;
}

/* A launch of a signature not tuned yet: tried online (online.c), or its
 * session when the budget gives it its turn (budget.c).  Returns as
 * gt_apply_launch; *waiting as gt_online_launch. */
static int tune_turn(struct gt_plan *p, struct gt_handle *hd, const struct gt_call *c, uint64_t sig,
                     const char *signature, CUresult *r, int *waiting)
{
    if (gt.mode == GT_MODE_ONLINE) {
        int ran = gt_online_launch(p, hd, c, sig, signature, r, waiting);
        if (ran)
            gt_apply_watch_exit(); /* its last turns are read at exit */
        return ran;
    }
    gt_direct_restore(hd);
    enum gt_budget_turn turn = gt_budget_turn(p, c, sig, r);
    if (turn == GT_BUDGET_RAN && *r == CUDA_SUCCESS)
        gt_reg_note_launch(hd, &c->g, c->entry, 0);
    if (turn == GT_BUDGET_WAIT || turn == GT_BUDGET_RAN)
        return turn == GT_BUDGET_RAN;
    pthread_mutex_lock(&p->lock);
    int first = !gt_plan_is_done(p, sig); /* one session per signature, whichever thread starts it */
    gt_plan_mark_done(p, sig);
    pthread_mutex_unlock(&p->lock);
    return turn == GT_BUDGET_TUNE && first ? gt_session_tune(p, hd, c, sig, signature, r) : 0;
}

/* What this thread found last for a plan and a geometry: the choice (NULL:
 * the original), good while the plan's version is the one it was found
 * under.  Finding it again costs the signature's text and hash and the
 * plan's lock, shared by every thread that launches the kernel: most of a
 * planned launch's path, at every launch of a framework's steady state.
 * Only what the geometry alone decides is remembered (no signature values
 * or constraints read from the arguments), and only a settled outcome: a
 * choice, a signature done, or one whose online trial waits for builds
 * (whose end moves the version: online.c).  A framework cycles through a
 * hundred geometries or more an iteration (resnet18's training step: about
 * 140 signatures across its kernels), and the entries of a set that holds
 * more than it has slots take turns missing at every launch.  With four slots a
 * set, 140 geometries overflowed a set in every run tried (3.6% of the
 * launches missed; tests/apply.t fails with four); with eight, in none (by
 * chance about one run in 4000 would), and at 500 geometries 2% of the sets
 * overflow.  The table (48 KB) is made at a thread's first planned launch
 * and freed when the thread ends (base/perthread.c). */
#define VERDICT_SETS 128
#define VERDICT_WAYS 8
struct verdict {
    const struct gt_plan *p;
    unsigned version;
    struct gt_geom g;
    struct gt_choice *ch;
};
struct verdicts {
    struct verdict sets[VERDICT_SETS][VERDICT_WAYS];
    unsigned victim;
    unsigned hits; /* of choices of the original, in online mode: each SETTLE_EVERY-th asks whether its plan settles */
};
#define SETTLE_EVERY 256
static struct gt_perthread verdicts_of = GT_PERTHREAD_INIT(sizeof(struct verdicts));

/* Why a launch of a planned kernel worked out its signature under the
 * plan's lock instead of taking what its thread remembered: counted for the
 * exit report at info, where a steady state that keeps taking that path
 * shows (a few hundred nanoseconds a launch on a framework's host). */
enum slow_why { SLOW_FIRST, SLOW_CHANGED, SLOW_TURN, SLOW_ARGS, SLOW_WHYS };
static atomic_ulong slow_launches[SLOW_WHYS];

/* Launch c's set in this thread's table t, or NULL without one. */
static struct verdict *verdict_set(struct verdicts *t, const struct gt_plan *p, const struct gt_call *c)
{
    return t ? t->sets[(gt_reg_geom_fingerprint(&c->g) ^ (uintptr_t)p >> 6) % VERDICT_SETS] : NULL;
}

static int verdict_of(const struct verdict *v, const struct gt_plan *p, const struct gt_call *c)
{
    return v->p == p && !memcmp(&v->g, &c->g, sizeof v->g);
}

/* The slot remembering launch c's choice under the plan's current version,
 * or NULL; *stale: one remembers it under an older version. */
static struct verdict *verdict_find(struct verdict *set, const struct gt_plan *p, const struct gt_call *c,
                                    int *stale)
{
    unsigned version = atomic_load_explicit(&p->version, memory_order_acquire);
    for (int i = 0; set && i < VERDICT_WAYS; i++)
        if (verdict_of(&set[i], p, c)) {
            if (set[i].version == version)
                return &set[i];
            *stale = 1;
        }
    return NULL;
}

/* Where launch c's choice goes: its own slot of an older version, a free
 * one, or one taken in turn. */
static struct verdict *verdict_room(struct verdicts *t, struct verdict *set, const struct gt_plan *p,
                                    const struct gt_call *c)
{
    for (int i = 0; i < VERDICT_WAYS; i++)
        if (verdict_of(&set[i], p, c))
            return &set[i];
    for (int i = 0; i < VERDICT_WAYS; i++)
        if (!set[i].p)
            return &set[i];
    return &set[t->victim++ % VERDICT_WAYS];
}

/* Launch c's choice ch (NULL: the original) remembered under the plan's
 * version `version`, where the thread has a table t. */
static void remember(struct verdicts *t, const struct gt_plan *p, const struct gt_call *c, unsigned version,
                     struct gt_choice *ch)
{
    if (t)
        *verdict_room(t, verdict_set(t, p, c), p, c) =
            (struct verdict){.p = p, .version = version, .g = c->g, .ch = ch};
}

static int by_geometry(const struct gt_plan *p)
{
    return (!p->sec || !p->sec->nsignature) && !p->checks_launch;
}

/* The choice for launch c, under the plan's lock, remembered in its set
 * when it may be; *tune: it starts a tuning turn instead; *version: the
 * plan's, read first.  Counted by why it was not remembered before (stale:
 * it was, under an older version).  Returns -1 when the signature cannot
 * be made. */
static int find_choice(struct gt_plan *p, const struct gt_call *c, struct verdicts *t, int stale,
                       unsigned *version, uint64_t *sig, char *signature, struct gt_choice **out, int *tune)
{
    *version = atomic_load_explicit(&p->version, memory_order_acquire);
    int any_only = p->choices && !p->choices->sig && !p->choices->next && !p->tune;
    if (!any_only && gt_plan_signature(p, c, sig, signature, GT_PLAN_SIGNATURE_MAX) != 0)
        return -1;
    pthread_mutex_lock(&p->lock);
    struct gt_choice *ch = gt_plan_find(p, *sig);
    int done = gt_plan_is_done(p, *sig);
    /* A session synchronizes the context, which would break another
     * thread's stream capture: while one is on, tuning waits. */
    *tune = !ch && p->tune && !done && atomic_load(&gt.track.captures) == 0;
    if (!ch && p->tune && !done)
        p->last_turn = gt_clock_seconds();
    if (!*tune && !ch && p->ncached && !done) {
        ch = nearest(p, *sig, signature);
        if (!ch)
            gt_plan_mark_done(p, *sig);
        done = !ch;
    }
    pthread_mutex_unlock(&p->lock);
    *out = ch;
    int settled = !*tune && (ch || done);
    if (settled && by_geometry(p))
        remember(t, p, c, *version, ch);
    enum slow_why why = !settled ? SLOW_TURN : !by_geometry(p) ? SLOW_ARGS : stale ? SLOW_CHANGED : SLOW_FIRST;
    atomic_fetch_add_explicit(&slow_launches[why], 1, memory_order_relaxed);
    return 0;
}

/* Runs the variant chosen for this launch, if any.  Returns 1 with the
 * launch's result in *r when the shim ran it (a variant, or a tuning
 * session that ends with the launch), 0 when the caller must launch the
 * original. */
int gt_apply_launch(struct gt_handle *hd, const struct gt_call *c, CUresult *r)
{
    if (atomic_load_explicit(&hd->unplanned, memory_order_relaxed))
        return 0;
    struct gt_plan *p = plan_of(hd->kernel);
    if (!p)
        atomic_store_explicit(&hd->unplanned, 1, memory_order_relaxed);
    if (!p || c->entry == GT_ENTRY_COOP || c->entry == GT_ENTRY_COOP_PTSZ)
        return 0;
    int captured = gt_capture_is_on(c->s, gt_call_per_thread(c));
    if (atomic_load_explicit(&hd->kernel->nparams, memory_order_relaxed) < 0)
        gt_reg_learn_params(hd);
    /* Nothing to tune and nothing but the original to run (run mode, where
     * every cached signature kept the original): the application's launch
     * as it is, without working out its signature.  Only sessions add
     * choices later, and they are tune mode's. */
    if (!p->tune && !p->choices)
        return 0;
    if (atomic_load_explicit(&p->settled, memory_order_relaxed)) {
        gt_direct_restore(hd);
        return 0;
    }
    uint64_t sig = 0;
    char signature[GT_PLAN_SIGNATURE_MAX];
    signature[0] = '\0';
    struct gt_choice *ch;
    int stale = 0;
    struct verdicts *t = gt_perthread_get(&verdicts_of);
    struct verdict *v = verdict_find(verdict_set(t, p, c), p, c, &stale);
    if (v) {
        ch = v->ch;
        if (gt.mode == GT_MODE_ONLINE && (!ch || !gt_plan_runs(ch)) && ++t->hits % SETTLE_EVERY == 0)
            gt_online_settle(p);
    } else {
        int tune, waiting = 0;
        unsigned version;
        if (find_choice(p, c, t, stale, &version, &sig, signature, &ch, &tune) != 0)
            return 0;
        if (tune) {
            int ran = tune_turn(p, hd, c, sig, signature, r, &waiting);
            if (waiting && by_geometry(p)) /* the original, until a build's end moves the version */
                remember(t, p, c, version, NULL);
            return ran;
        }
    }
    if (ch && p->checks_launch)
        ch = gt_allowed_choice(p, ch, c, sig, signature);
    if (ch && gt_plan_runs(ch) && !captured) {
        if (gt_plan_checking(ch)) /* its timed launches are read at exit */
            gt_apply_watch_exit();
        return gt_plan_run(p, ch, hd, c, r);
    }
    /* The application's own cache preference on the function before the
     * launch, into a capture too: a capture takes the function's preference
     * into the graph for good, and the driver takes this call while a stream
     * captures (H200, driver 580, every capture mode). */
    gt_direct_restore(hd);
    if (ch && gt_plan_runs(ch) && gt_plan_run_captured(p, ch, hd, c, r))
        return 1;
    return 0;
}

/* ---- kernel nodes ---- */

/* A kernel node's launch as a direct launch on stream s would make it, with
 * its kernel's handle, plan and signature.  Returns 0, or -1 when the shim
 * has nothing for it. */
static int node_call(const CUDA_KERNEL_NODE_PARAMS *in, CUstream s, int per_thread, struct gt_node *n)
{
    CUfunction f = in->func ? in->func : (CUfunction)in->kern;
    n->hd = in->func ? gt_reg_node_function(f) : f ? gt_reg_lookup(f) : NULL;
    n->p = n->hd ? plan_of(n->hd->kernel) : NULL;
    n->ch = NULL;
    CUcontext now = NULL;
    if (!n->p || (!in->func && in->ctx && (gt.drv.cuCtxGetCurrent(&now) != CUDA_SUCCESS || now != in->ctx)))
        return -1;
    n->c = (struct gt_call){.entry = per_thread ? GT_ENTRY_LAUNCH_PTSZ : GT_ENTRY_LAUNCH,
                            .real.plain = per_thread ? gt.drv.cuLaunchKernel_ptsz : gt.drv.cuLaunchKernel,
                            .f = f, .s = s, .params = in->kernelParams, .extra = in->extra,
                            .g = {{in->gridDimX, in->gridDimY, in->gridDimZ},
                                  {in->blockDimX, in->blockDimY, in->blockDimZ}, in->sharedMemBytes}};
    if (atomic_load_explicit(&n->hd->kernel->nparams, memory_order_relaxed) < 0)
        gt_reg_learn_params(n->hd);
    return gt_plan_signature(n->p, &n->c, &n->sig, n->signature, sizeof n->signature);
}

/* Not tuned yet, and this mode tunes it: by a session (tune and retune
 * mode) or, with `online`, on the graph's replays (online mode, where the
 * plan has not settled).  Caller holds the plan's lock. */
static int untuned(struct gt_node *n, int online)
{
    return (online ? gt.mode == GT_MODE_ONLINE : gt_session_mode()) && n->p->tune &&
           !atomic_load_explicit(&n->p->settled, memory_order_relaxed) && !gt_plan_find(n->p, n->sig) &&
           !gt_plan_is_done(n->p, n->sig);
}

int gt_apply_node_open(const CUDA_KERNEL_NODE_PARAMS *in)
{
    struct gt_node n;
    if (node_call(in, NULL, 0, &n) != 0)
        return 0;
    pthread_mutex_lock(&n.p->lock);
    struct gt_choice *ch = gt_plan_find(n.p, n.sig);
    int yes = untuned(&n, 0) || untuned(&n, 1) ||
              (ch && gt_plan_runs(ch) && !gt_plan_settled(ch));
    pthread_mutex_unlock(&n.p->lock);
    return yes;
}

int gt_apply_tune_node(const CUDA_KERNEL_NODE_PARAMS *in, CUstream s, int per_thread)
{
    struct gt_node n;
    if (node_call(in, s, per_thread, &n) != 0 || atomic_load(&gt.track.captures) != 0)
        return 0;
    pthread_mutex_lock(&n.p->lock);
    int first = untuned(&n, 0);
    if (first)
        gt_plan_mark_done(n.p, n.sig);
    pthread_mutex_unlock(&n.p->lock);
    if (!first || gt_budget_node(n.p, n.sig) != GT_BUDGET_TUNE)
        return 0; /* a spent budget leaves it to a later run */
    gt_direct_restore(n.hd);
    gt_session_tune(n.p, n.hd, &n.c, n.sig, n.signature, NULL);
    return 1;
}

double gt_apply_node_us(const CUDA_KERNEL_NODE_PARAMS *in)
{
    struct gt_node n;
    return node_call(in, NULL, 0, &n) == 0 ? gt_budget_launch_us(n.p, n.sig) : 0;
}

int gt_apply_online_node(const CUDA_KERNEL_NODE_PARAMS *in, CUstream s, int per_thread,
                         const struct gt_online_graph *gr, CUresult *r)
{
    struct gt_node n;
    if (node_call(in, s, per_thread, &n) != 0 || atomic_load(&gt.track.captures) != 0)
        return -1;
    pthread_mutex_lock(&n.p->lock);
    int open = untuned(&n, 1);
    pthread_mutex_unlock(&n.p->lock);
    return open ? gt_online_node(n.p, n.hd, &n.c, n.sig, n.signature, gr, r) : -1;
}

/* What the kernel node `in` gets: *out is `in` with the configuration its
 * signature has, where a node can hold it and as `use` allows (plan.c:
 * gt_plan_node_function), described in *n.  Returns 1 when it changed
 * anything. */
int gt_apply_node(const CUDA_KERNEL_NODE_PARAMS *in, CUDA_KERNEL_NODE_PARAMS *out, enum gt_node_use use,
                  struct gt_node *n)
{
    struct gt_node mine;
    if (!n)
        n = &mine;
    if (node_call(in, NULL, 0, n) != 0)
        return 0;
    pthread_mutex_lock(&n->p->lock);
    n->ch = gt_plan_find(n->p, n->sig);
    pthread_mutex_unlock(&n->p->lock);
    if (n->ch && n->p->checks_launch)
        n->ch = gt_allowed_choice(n->p, n->ch, &n->c, n->sig, n->signature);
    struct gt_geom g;
    CUfunction fn = n->ch && gt_plan_runs(n->ch) ? gt_plan_node_function(n->p, n->ch, n->hd, &n->c, use, &g) : NULL;
    if (!fn)
        return 0;
    *out = *in;
    out->func = fn;
    out->kern = NULL;
    out->ctx = NULL;
    out->gridDimX = g.grid[0], out->gridDimY = g.grid[1], out->gridDimZ = g.grid[2];
    out->blockDimX = g.block[0], out->blockDimY = g.block[1], out->blockDimZ = g.block[2];
    out->sharedMemBytes = g.smem;
    n->g = g;
    if (use == GT_NODE_AS_IS || use == GT_NODE_SETTLED) {
        atomic_fetch_add_explicit(&n->hd->kernel->nodes, 1, memory_order_relaxed);
        gt_debug("kernel %s: a graph node for launch %s runs '%s'", n->p->shown, n->signature, n->ch->config);
    }
    return 1;
}

/* ---- the guards' last reads: at exit, and before a context goes ---- */

/* A guard's times are read as later launches find them done.  A program's
 * last launches have none after them, and one whose host queues every
 * launch ahead of the GPU has none read at all: its guards never reach a
 * verdict, and every run alternates its first launches with the original
 * again.  So the guards read what is done once more at exit, from a handler
 * registered at the first applied launch, after the CUDA runtime
 * registered its own: atexit runs the last registered first, before the
 * runtime tears the context down.  A forked child runs as mode off
 * (forks.c) and reads nothing. */
static void collect_at_exit(void)
{
    if (gt.mode != GT_MODE_OFF && atomic_load(&gt.drv.status) > 0)
        gt_apply_collect();
}

static void register_exit(void)
{
    if (atexit(collect_at_exit) != 0)
        gt_debug("cannot register an exit handler: the guards' times not read by the exit are not kept");
}

void gt_apply_watch_exit(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_exit);
}

static void each_plan(void (*fn)(struct gt_plan *p))
{
    pthread_mutex_lock(&gt.track.reg.lock);
    for (struct gt_kernel *k = gt.track.reg.kernels; k; k = k->next)
        if (atomic_load(&k->planned) > 0)
            fn(k->plan);
    pthread_mutex_unlock(&gt.track.reg.lock);
}

void gt_apply_collect(void)
{
    each_plan(gt_plan_collect);
    gt_graphs_collect();
    gt_online_collect();
}

void gt_apply_detach(void)
{
    gt_apply_collect();
    each_plan(gt_plan_detach);
    gt_graphs_detach();
    gt_online_detach();
    gt_budget_detach();
}

/* ---- at exit: what the guards measured ---- */

struct guard_sum {
    int kept, dropped, rare, unchecked, carried, earlier;
    double span_us; /* since the first launch */
    double saved_us, orig_us; /* over the kept configurations' launches */
    unsigned long launches;
    unsigned long path;       /* every launch in the shim's path */
    int unpaid;               /* the kept ones saved less than the path cost: dropped */
    struct gt_centry *changed; /* cache entries whose verdict is new */
    size_t nchanged, capchanged;
};

/* A copy of the choice's cache entry, to change and write back; NULL when
 * it has none, when the entry is another device's (what the guard saw
 * here says nothing of that one), or memory ran out. */
static struct gt_centry *change(struct guard_sum *sum, struct gt_plan *p, const struct gt_choice *ch)
{
    if (ch->entry < 0 || ch->elsewhere || (size_t)ch->entry >= p->ncached ||
        gt_grow((void **)&sum->changed, &sum->capchanged, sum->nchanged + 1, sizeof *sum->changed) != 0 ||
        gt_centry_copy(&sum->changed[sum->nchanged], &p->cached[ch->entry]) != 0)
        return NULL;
    return &sum->changed[sum->nchanged++];
}

static void note_verdict(struct guard_sum *sum, struct gt_plan *p, const struct gt_choice *ch)
{
    const struct gt_guard *g = &ch->guard;
    int v = g->verdict == GT_GUARD_KEPT ? GT_CENTRY_KEPT : GT_CENTRY_DROPPED;
    double speedup = 1 / g->ratio;
    const struct gt_centry *was = ch->entry >= 0 && (size_t)ch->entry < p->ncached ? &p->cached[ch->entry] : NULL;
    struct gt_centry *e = was && (was->guard != v || fabs(was->guard_speedup - speedup) >= 0.05 * speedup)
                              ? change(sum, p, ch)
                              : NULL;
    if (e) {
        e->guard = v;
        e->guard_speedup = speedup;
        free(e->guard_times);
        e->guard_times = NULL;
    }
}

/* Not judged in this run: its times so far go to the cache file, for the
 * next run to go on from. */
static void carry_times(struct guard_sum *sum, struct gt_plan *p, struct gt_choice *ch)
{
    char times[GT_CENTRY_GUARD_TIMES * 2 * 16];
    struct gt_centry *e;
    if (!gt_guard_times(&ch->guard, times, sizeof times) || !(e = change(sum, p, ch)))
        return;
    free(e->guard_times);
    e->guard_times = gt_strdup(times);
    if (e->guard_times) {
        sum->carried++;
    } else {
        gt_centry_clear(e);
        sum->nchanged--;
    }
}

/* Whether the choice ran under a guard in this run, checked here or as an
 * earlier run kept it. */
static int guarded(const struct gt_choice *ch)
{
    return ch->guarded && !ch->failed && atomic_load(&ch->launches);
}

/* First pass: what the configurations kept in this run saved, and those
 * run as an earlier run kept them. */
static void sum_kept(struct guard_sum *sum, struct gt_plan *p)
{
    pthread_mutex_lock(&p->lock);
    for (struct gt_choice *ch = p->choices; ch; ch = ch->next) {
        if (!guarded(ch))
            continue;
        if (ch->guard.earlier) {
            sum->earlier++;
            continue;
        }
        pthread_mutex_lock(&ch->guard.lock);
        const struct gt_guard *g = &ch->guard;
        if (g->verdict == GT_GUARD_KEPT) {
            unsigned long n = atomic_load(&ch->launches);
            sum->kept++;
            sum->launches += n;
            sum->orig_us += (double)n * g->med[0];
            sum->saved_us += (double)n * (g->med[0] - g->med[1]);
        }
        pthread_mutex_unlock(&ch->guard.lock);
    }
    pthread_mutex_unlock(&p->lock);
}

/* Second pass: every verdict of this run, the kept ones dropped when they
 * did not pay for the path, counted and noted for the cache file. */
static void sum_plan(struct guard_sum *sum, struct gt_plan *p)
{
    pthread_mutex_lock(&p->lock);
    for (struct gt_choice *ch = p->choices; ch; ch = ch->next) {
        if (!guarded(ch) || ch->guard.earlier)
            continue;
        int unpaid = sum->unpaid && gt_guard_drop_kept(&ch->guard);
        pthread_mutex_lock(&ch->guard.lock);
        const struct gt_guard *g = &ch->guard;
        int checking = g->verdict == GT_GUARD_CHECKING;
        if (!checking) {
            note_verdict(sum, p, ch);
            sum->dropped += g->verdict == GT_GUARD_DROPPED && !unpaid;
        }
        pthread_mutex_unlock(&ch->guard.lock);
        double run_us;
        if (checking && gt_guard_drop_rare(&ch->guard, sum->span_us, &run_us)) {
            gt_info("kernel %s: launch %s: '%s' dropped: its launches checked in this run took %.3f ms of the %.1f s "
                    "since the first launch, too little to gain what watching every launch costs",
                    p->shown, ch->signature, ch->config, run_us / 1e3, sum->span_us / 1e6);
            note_verdict(sum, p, ch);
            sum->rare++;
        } else if (checking) {
            sum->unchecked++;
            carry_times(sum, p, ch);
        }
    }
    pthread_mutex_unlock(&p->lock);
}

/* ---- at exit: configurations tuned on another device ---- */

static int list_elsewhere(struct gt_plan *p, int listed)
{
    pthread_mutex_lock(&p->lock);
    for (struct gt_choice *ch = p->choices; ch; ch = ch->next) {
        if (!ch->elsewhere)
            continue;
        if (!listed++)
            gt_info("configurations tuned on another device (GPUTUNE_STRICT_DEVICE=1 leaves them out):");
        gt_info("  kernel %s: launch %s: '%s' tuned on %s%s, from %s; %lu launches", p->shown, ch->signature,
                ch->config, ch->elsewhere, ch->entry < 0 ? " for the nearest tuned signature" : "", ch->from,
                atomic_load(&ch->launches));
    }
    pthread_mutex_unlock(&p->lock);
    return listed;
}

/* ---- at exit: what the launch path cost ---- */

static void say_slow(unsigned long planned)
{
    unsigned long n[SLOW_WHYS], all = 0;
    if (!planned)
        return;
    for (int i = 0; i < SLOW_WHYS; i++)
        all += n[i] = atomic_load(&slow_launches[i]);
    gt_info("launch path: of %lu launches of kernels with a plan, %lu worked out their signature under the plan's "
            "lock (%lu met first by their thread or pushed out of what it remembers, %lu after their plan changed, "
            "%lu in tuning turns or before their signature was decided, %lu of plans that read the launch's "
            "arguments); the others took what their thread remembered or needed nothing",
            planned, all, n[SLOW_FIRST], n[SLOW_CHANGED], n[SLOW_TURN], n[SLOW_ARGS]);
}

/* What the n sampled launches measured the path at (ns), where they are
 * enough (base/pathcost.c: gt_pathcost_ns). */
static void say_path(double ns, int n)
{
    unsigned long left = atomic_load_explicit(&gt.run.path.left, memory_order_relaxed);
    if (ns >= 0)
        gt_info("launch path: %.0f ns of host time a launch beside the driver's own, the median of the last %d "
                "launches timed (one in %d; %lu more left out, as made while a guard judged, timed with events or "
                "waiting for a session)",
                ns, n, GT_PATHCOST_EVERY, left);
}

/* The host ns a launch of the shim's path is charged, and in `how` where
 * that figure comes from: GPUTUNE_PATH_NS, else ns, what the n sampled
 * launches measured (as say_path has them), but never below
 * GT_GUARD_PATH_NS: a sample leaves out what the path costs the driver's
 * own call after it (caches and branch history it displaced). */
static double path_ns(double ns, int n, char *how, size_t len)
{
    if (gt.env.path_ns) {
        snprintf(how, len, "GPUTUNE_PATH_NS");
        return (double)gt.env.path_ns;
    }
    if (ns < 0)
        snprintf(how, len, "GT_GUARD_PATH_NS, with %d launches measured, too few", n);
    else if (ns <= GT_GUARD_PATH_NS)
        snprintf(how, len, "GT_GUARD_PATH_NS, above the %.0f ns measured on %d of them", ns, n);
    else
        snprintf(how, len, "as measured on %d of them", n);
    return ns > GT_GUARD_PATH_NS ? ns : GT_GUARD_PATH_NS;
}

/* Whether the configurations kept in this run saved less GPU time than
 * GT_GUARD_PAY times what run mode's path costs the host at every launch
 * of the run: without them (and with nothing else that applies) run mode
 * leaves the launches to the driver.  Where the launches sampled tell how
 * often the device was behind the host (run/busy.c: a share q of them found
 * the stream still busy), the device time saved counts at q, since it
 * shortens the run only where the host waits for the device, and the
 * path's host time at 1 - q, since it is hidden behind the device's queue
 * elsewhere.  Where an earlier run's kept configurations or GPUTUNE_FORCE
 * keep run mode in the path anyway, the path costs these nothing more. */
static int unpaid(const struct guard_sum *sum, double measured, int sampled)
{
    if (!sum->kept || sum->earlier || gt.run.nforce)
        return 0;
    char how[96];
    unsigned long probes;
    double ns = path_ns(measured, sampled, how, sizeof how), path_us = (double)sum->path * ns / 1e3;
    double q = gt_busy_share(&probes); /* below GT_BUSY_LEAST samples, both sides count whole */
    double gain = sum->saved_us * (q < 0 ? 1 : q), waited_us = path_us * (q < 0 ? 1 : 1 - q);
    int drop = gain < GT_GUARD_PAY * waited_us;
    if (!drop && sum->saved_us >= GT_GUARD_PAY * path_us) /* said where the weights decided it */
        return 0;
    if (q < 0)
        gt_info("in the application: the %d configurations measured faster saved %.2f ms of GPU time, less than %d x "
                "the %.2f ms run mode's path would add to the %lu launches of this run (%.0f ns each: %s): dropped, so "
                "that run mode leaves the launches to the driver", sum->kept, sum->saved_us / 1e3, GT_GUARD_PAY,
                path_us / 1e3, sum->path, ns, how);
    else
        gt_info("in the application: the %d configurations measured faster saved %.2f ms of GPU time, %.2f ms of it "
                "where the device was behind the host (at %.0f%% of the %lu launches sampled), against %d x the "
                "%.2f ms run mode's path adds to the %lu launches of this run (%.0f ns each: %s), %.2f ms of it "
                "where the device waited for the host: %s", sum->kept, sum->saved_us / 1e3, gain / 1e3, 100 * q,
                probes, GT_GUARD_PAY, path_us / 1e3, sum->path, ns, how, waited_us / 1e3,
                drop ? "dropped, so that run mode leaves the launches to the driver" : "kept");
    return drop;
}

/* Says which applied configurations came from another device's entries
 * and what the launch path cost; then what the applied configurations did
 * on the application's own launches, and records new verdicts, and the
 * times of those not judged yet, in the cache file. */
void gt_apply_exit(void)
{
    struct guard_sum sum = {.span_us = (gt_clock_seconds() - gt.run.started) * 1e6};
    int listed = 0, info = gt_log_enabled(GT_LOG_INFO), sampled = 0;
    unsigned long planned = 0;
    /* Once, and outside the registry's lock: it sorts the samples and times the clock. */
    double measured = info || gt.run.guard ? gt_pathcost_ns(&gt.run.path, &sampled) : -1;
    pthread_mutex_lock(&gt.track.reg.lock);
    for (struct gt_kernel *k = gt.track.reg.kernels; k; k = k->next) {
        if (atomic_load(&k->planned) <= 0)
            continue;
        if (info) {
            listed = list_elsewhere(k->plan, listed);
            planned += gt_reg_launches(k, -1, -1);
        }
        if (gt.run.guard)
            sum_kept(&sum, k->plan);
    }
    if (gt.run.guard) {
        sum.path = gt_tally_sum(&gt.run.launches);
        sum.unpaid = unpaid(&sum, measured, sampled);
        for (struct gt_kernel *k = gt.track.reg.kernels; k; k = k->next)
            if (atomic_load(&k->planned) > 0)
                sum_plan(&sum, k->plan);
    }
    pthread_mutex_unlock(&gt.track.reg.lock);
    if (info) {
        say_slow(planned);
        say_path(measured, sampled);
        if (gt.mode == GT_MODE_ONLINE)
            gt_online_report();
    }
    if (!gt.run.guard)
        return;
    if (sum.earlier)
        gt_info("in the application: %d applied configurations run as kept by an earlier run's check", sum.earlier);
    if (sum.kept + sum.dropped + sum.rare + sum.unchecked) {
        /* The GPU time saved, against the time the application ran since its
         * first launch: the most its whole run can have gained from them. */
        double ran = sum.span_us / 1e6;
        char kept[320] = "none measured faster";
        if (sum.kept)
            snprintf(kept, sizeof kept, "%d measured faster and %s (%.2fx over their %lu launches, %.1f ms of GPU "
                     "time saved in %.2f s since the first launch, %.2f%% of it)", sum.kept,
                     sum.unpaid ? "dropped as saving too little for the launch path" : "kept",
                     sum.orig_us / (sum.orig_us - sum.saved_us), sum.launches, sum.saved_us / 1e3, ran,
                     ran > 0 ? sum.saved_us / 1e4 / ran : 0);
        gt_info("in the application: of %d applied configurations checked on its own launches, %s, %d dropped as "
                "not faster, %d as too rarely launched to matter (under %g%% of the run), %d not judged yet (too few "
                "launches; %d carry their times to the next run)",
                sum.kept + sum.dropped + sum.rare + sum.unchecked, kept, sum.dropped, sum.rare, GT_GUARD_RARE * 100,
                sum.unchecked, sum.carried);
        double last = atomic_load(&gt.run.last_verdict);
        if (last > 0)
            gt_info("in the application: the last verdict on its launches came %.1f s after its first launch",
                    last - gt.run.started);
    }
    if (sum.nchanged && gt.run.cache_path[0])
        gt_cachewrite_save(gt.run.cache_path, gt.run.binary, sum.changed, sum.nchanged);
    for (size_t i = 0; i < sum.nchanged; i++)
        gt_centry_clear(&sum.changed[i]);
    free(sum.changed);
}
