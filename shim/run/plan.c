/* plan.c: what the shim knows and decided about one kernel.
 *
 * A plan is made once per kernel, at the first launch that needs one: the
 * kernel's tuning space (its policy section's, or the automatic space) for
 * the device it runs on, how to rebuild it (a recipe, made when first
 * needed), and the configurations chosen for its launch signatures.  A
 * choice that rebuilds the kernel becomes a loaded variant per context
 * (and per block size when it sets launch bounds) at the first launch that
 * runs it: out of the store when its cubin is there, else built; one of
 * launch-time knobs alone runs the application's own function (direct.c).
 * While its guard (guard.c) checks it, its launches alternate with the
 * original's.  The trial engine (session.c) and the launch path (apply.c)
 * share these pieces. */
#include "plan.h"
#include "alloc.h"
#include "cachefile.h"
#include "cachewrite.h"
#include "clock.h"
#include "direct.h"
#include "elfsym.h"
#include "errmsg.h"
#include "hash.h"
#include "imageptx.h"
#include "pathcost.h"
#include "perthread.h"
#include "ptx.h"
#include "rtcworker.h"
#include "state.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- making a plan ---- */

static int device_facts(struct gt_plan *p)
{
    CUdevice dev;
    int major = 0, minor = 0;
    if (gt.drv.cuCtxGetDevice(&dev) != CUDA_SUCCESS ||
        gt.drv.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) != CUDA_SUCCESS ||
        gt.drv.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) != CUDA_SUCCESS)
        return -1;
    gt_arch_for_sm(major * 10 + minor, &p->arch);
    if (gt.drv.cuDeviceGetName(p->device, sizeof p->device, dev) != CUDA_SUCCESS)
        snprintf(p->device, sizeof p->device, "device %d", (int)dev);
    p->driver = gt.drv.cuda;
    return 0;
}

/* Positions of the section's arg.NAME names, from the kernel's PTX. */
static void resolve_argnames(struct gt_plan *p)
{
    const struct gt_kernel *k = p->k;
    if (!p->sec || !p->sec->argnames.n || !(p->argpos = gt_malloc(p->sec->argnames.n * sizeof *p->argpos)))
        return;
    p->nargpos = p->sec->argnames.n;
    for (size_t i = 0; i < p->nargpos; i++)
        p->argpos[i] = -1;
    struct gt_image_ptx *ptx = NULL;
    size_t n = 0;
    char err[128];
    if (!k->image || gt_image_ptx(k->image, p->arch.sm, &ptx, &n, err, sizeof err) != 0)
        return;
    for (size_t i = 0; i < n; i++) {
        struct gt_ptx_module m;
        if (gt_ptx_parse(ptx[i].text, ptx[i].size, &m, err, sizeof err) != 0)
            continue;
        const struct gt_ptx_func *f = gt_ptx_find(&m, k->name);
        for (unsigned j = 0; f && j < f->nparams; j++) {
            int at = gt_names_find(&p->sec->argnames, f->params[j].name);
            if (at >= 0)
                p->argpos[at] = (int)j;
        }
        gt_ptx_free(&m);
    }
    gt_image_ptx_free(ptx, n);
}

enum gt_rc gt_plan_new(struct gt_kernel *k, const char *shown, const struct gt_section *sec, struct gt_plan **out,
                       char *err, size_t errlen)
{
    unsigned long lost = gt_alloc_failures();
    struct gt_plan *p = gt_calloc(1, sizeof *p);
    struct gt_diags d = {0};
    *out = NULL;
    enum gt_rc rc = !p || !(p->shown = gt_strdup(shown)) ? GT_NO_MEMORY : device_facts(p) != 0 ? GT_FAILED : GT_OK;
    if (rc != GT_OK) {
        gt_errf(err, errlen, "%s", rc == GT_NO_MEMORY ? "out of memory" : "cannot learn the device");
        gt_plan_free(p);
        return rc;
    }
    pthread_mutex_init(&p->lock, NULL);
    p->k = k;
    p->sec = sec;
    p->checks_max = GT_WATCHDOG_LOOPS;
    p->jit = (sec && sec->source) || (k->image && (k->image->nvrtc || k->image->ptx_arch));
    p->space = sec ? gt_policy_space(sec, &p->arch, p->jit ? 0 : GT_SPACE_NO_JIT, &d)
                   : gt_space_auto(&p->arch, p->jit, &d);
    if (!p->space) {
        /* the diagnostics may be what was lost */
        rc = gt_alloc_failures() != lost ? GT_NO_MEMORY : GT_FAILED;
        if (rc == GT_NO_MEMORY)
            gt_errf(err, errlen, "out of memory");
        else if (d.n)
            gt_diag_format(&d.v[0], err, errlen);
        else
            gt_errf(err, errlen, "no tuning space for it");
        gt_diags_clear(&d);
        gt_plan_free(p);
        return rc;
    }
    gt_diags_clear(&d);
    resolve_argnames(p);
    p->checks_launch = gt_space_launch_constraints(p->space) > 0;
    *out = p;
    return GT_OK;
}

static void free_variants(struct gt_variant *v)
{
    while (v) {
        struct gt_variant *next = v->next;
        gt_variant_unload(v);
        free(v);
        v = next;
    }
}

void gt_plan_free(struct gt_plan *p)
{
    if (!p)
        return;
    for (struct gt_choice *c = p->choices, *next; c; c = next) {
        next = c->next;
        free_variants(c->variants);
        gt_guard_free(&c->guard);
        free(c->cfg);
        free(c);
    }
    for (size_t i = 0; i < p->ncached; i++)
        gt_centry_clear(&p->cached[i]);
    free(p->cached);
    free(p->done);
    free(p->said);
    free(p->shown);
    free(p->argpos);
    gt_space_free(p->space);
    if (p->recipe_state > 0)
        gt_recipe_free(&p->recipe);
    free(p);
}

/* The settings of the plan's kernel: its section's, else those of the kernels no section names. */
const struct gt_settings *gt_plan_settings(const struct gt_plan *p)
{
    return p->sec ? &p->sec->set : gt.run.policy ? &gt.run.policy->unnamed : NULL;
}

/* A configuration from text: dimensions not named keep their default. */
int gt_plan_parse(const struct gt_plan *p, const char *text, uint32_t *cfg, char *err, size_t errlen)
{
    size_t at;
    gt_space_default(p->space, cfg);
    return gt_space_parse(p->space, text, GT_PARSE_PARTIAL, cfg, err, errlen, &at);
}

void gt_plan_knobs(const struct gt_plan *p, const uint32_t *cfg, struct gt_knobs *knobs, int *rebuild)
{
    gt_space_knobs(p->space, cfg, knobs);
    *rebuild = knobs->maxrreg || knobs->dlcm || knobs->bounds || knobs->minblocks;
    for (size_t i = 0; i < p->space->ndims; i++)
        *rebuild |= p->space->dims[i].kind == GT_DIM_PARAM && cfg[i] != p->space->dims[i].def;
}

/* Records cfg as the choice for signature `sig` (0: every launch); NULL
 * without memory or when its texts do not fit (the space's is checked when
 * it is built, a signature when it is made).  Caller holds p->lock or owns p
 * alone. */
struct gt_choice *gt_plan_choose(struct gt_plan *p, uint64_t sig, const char *signature, const uint32_t *cfg,
                                 const char *why)
{
    struct gt_choice *c = gt_calloc(1, sizeof *c);
    if (!c || !(c->cfg = gt_malloc((p->space->ndims + 1) * sizeof *c->cfg)) ||
        snprintf(c->signature, sizeof c->signature, "%s", signature ? signature : "") >= (int)sizeof c->signature ||
        gt_space_format(p->space, cfg, c->config, sizeof c->config) >= (int)sizeof c->config) {
        if (c)
            free(c->cfg);
        free(c);
        return NULL;
    }
    memcpy(c->cfg, cfg, p->space->ndims * sizeof *c->cfg);
    c->sig = sig;
    gt_plan_knobs(p, cfg, &c->knobs, &c->rebuild);
    c->why = why;
    c->guarded = 1;
    c->entry = -1;
    gt_guard_init(&c->guard);
    c->next = p->choices;
    p->choices = c;
    atomic_fetch_add_explicit(&p->version, 1, memory_order_release);
    return c;
}

/* The choice for a signature, else the one for every launch; caller holds p->lock. */
struct gt_choice *gt_plan_find(struct gt_plan *p, uint64_t sig)
{
    struct gt_choice *any = NULL;
    for (struct gt_choice *c = p->choices; c; c = c->next) {
        if (c->sig == sig)
            return c;
        if (!c->sig)
            any = c;
    }
    return any;
}

uintptr_t gt_plan_key(const struct gt_plan *p, uint64_t sig)
{
    return (uintptr_t)(sig ^ gt_hash64(&p, sizeof p));
}

/* Whether the choice runs its configuration: not given up, not dropped by its guard. */
int gt_plan_runs(const struct gt_choice *ch)
{
    return !ch->failed && ch->guard.verdict != GT_GUARD_DROPPED;
}

/* Keeps a copy of a cache entry the plan's choices may refer to; its index, or -1. */
long gt_plan_add_cached(struct gt_plan *p, const struct gt_centry *e)
{
    struct gt_centry *v = gt_realloc(p->cached, (p->ncached + 1) * sizeof *v);
    if (!v)
        return -1;
    p->cached = v;
    if (gt_centry_copy(&v[p->ncached], e) != 0)
        return -1;
    return (long)p->ncached++;
}

void gt_plan_mark_done(struct gt_plan *p, uint64_t sig)
{
    if (p->ndone == p->capdone) {
        size_t cap = p->capdone ? p->capdone * 2 : 8;
        uint64_t *v = gt_realloc(p->done, cap * sizeof *v);
        if (!v)
            return;
        p->done = v;
        p->capdone = cap;
    }
    p->done[p->ndone++] = sig;
    atomic_fetch_add_explicit(&p->version, 1, memory_order_release);
}

int gt_plan_is_done(const struct gt_plan *p, uint64_t sig)
{
    for (size_t i = 0; i < p->ndone; i++)
        if (p->done[i] == sig)
            return 1;
    return 0;
}

/* ---- a launch, through the plan's eyes ---- */

/* Scalar argument values for the policy's expressions. */
static int read_args(const struct gt_kernel *k, const struct gt_call *c, int64_t *vals, unsigned char *ok, int max)
{
    int n = atomic_load(&k->nparams);
    n = n < 0 ? 0 : n > max ? max : n;
    for (int i = 0; i < n; i++) {
        const unsigned char *p = gt_call_arg(c, k, i);
        uint32_t size = k->params[i].size;
        ok[i] = p && (size == 1 || size == 2 || size == 4 || size == 8);
        if (!ok[i])
            continue;
        int8_t b; int16_t h; int32_t w; int64_t d;
        switch (size) {
        case 1: memcpy(&b, p, 1); vals[i] = (uint8_t)b; break;
        case 2: memcpy(&h, p, 2); vals[i] = (uint16_t)h; break;
        case 4: memcpy(&w, p, 4); vals[i] = w; break;
        default: memcpy(&d, p, 8); vals[i] = d; break;
        }
    }
    return n;
}

#define MAX_ARGS GT_PLAN_MAX_ARGS

static void launch_env(const struct gt_plan *p, const struct gt_call *c, struct gt_launch *l, int64_t *vals,
                       unsigned char *ok)
{
    *l = (struct gt_launch){.orig = {c->g.grid[0], c->g.grid[1], c->g.grid[2], c->g.block[0], c->g.block[1],
                                     c->g.block[2], c->g.smem},
                           .args = vals, .arg_ok = ok, .argpos = p->argpos, .nargpos = p->nargpos};
    l->nargs = read_args(p->k, c, vals, ok, MAX_ARGS);
}

/* Launch c as the policy's expressions see it, for checking constraints;
 * env holds its arguments. */
const struct gt_launch *gt_plan_launch_env(const struct gt_plan *p, const struct gt_call *c,
                                          struct gt_plan_launch *env)
{
    launch_env(p, c, &env->l, env->vals, env->ok);
    return &env->l;
}

/* The store (and so the cache directory), opened only once a variant must
 * be built or a result kept: an application the shim only watches gets no
 * cache directory. */
static void open_store(void)
{
    char root[PATH_MAX], err[512];
    if (gt_store_default_root(gt.env.cache_dir, root, sizeof root) != 0)
        gt_warn("no cache directory (set GPUTUNE_CACHE_DIR or HOME); variants are rebuilt every run");
    else if (gt_store_open(&gt.run.store, root, err, sizeof err) != 0)
        gt_warn("%s; variants are rebuilt every run", err);
    else
        gt.run.have_store = 1;
}

static void store_once(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, open_store);
}

/* Writes a tuning result to the cache file (under its lock, merged with what
 * other processes wrote), the plan's kernel, device and the time filled in
 * here; returns its index among the plan's cached entries, for the guard's
 * verdict, or -1. */
long gt_plan_keep(struct gt_plan *p, struct gt_centry *e)
{
    char when[32];
    time_t t = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
    e->image = p->k->image ? gt_image_hash(p->k->image) : 0;
    e->image_file = p->k->image && p->k->image->file ? p->k->image->file : "";
    e->kernel = p->k->name;
    e->device = p->device;
    e->arch = p->arch.sm;
    e->driver = p->driver;
    e->driver_version = gt.drv.release;
    e->tuned = when;
    store_once(); /* the directory the file goes in */
    if (!gt.run.cache_path[0])
        gt_warn("kernel %s: no cache directory; the tuning result is not kept", p->shown);
    else
        gt_cachewrite_save(gt.run.cache_path, gt.run.binary, e, 1);
    pthread_mutex_lock(&p->lock);
    long at = gt_plan_add_cached(p, e);
    pthread_mutex_unlock(&p->lock);
    e->tuned = NULL; /* this function's */
    e->image_file = NULL;
    return at;
}

/* Signatures from geometry alone, as this thread made them last, many
 * geometries at once: the text and its hash cost more than the rest of a
 * planned launch's path, and a framework's launches cycle through a
 * hundred geometries or more (a resnet18 training step: over 100, across
 * its kernels).  Texts too long for a slot are made at every launch.  The
 * table (26 KB) is made at the thread's first signature and freed when it
 * ends (base/perthread.c). */
#define RECENT 256
#define RECENT_TEXT 64
struct recent {
    struct gt_geom g;
    uint32_t len; /* 0: none yet */
    uint64_t hash;
    char text[RECENT_TEXT];
};
static struct gt_perthread recent_of = GT_PERTHREAD_INIT(RECENT * sizeof(struct recent));

/* The launch's signature: its geometry and the section's signature values. */
int gt_plan_signature(const struct gt_plan *p, const struct gt_call *c, uint64_t *hash, char *text, size_t cap)
{
    int64_t extra[GT_CACHE_MAX_EXTRA] = {0};
    int n = 0;
    int plain = !p->sec || !p->sec->nsignature;
    struct recent *recent = gt_perthread_get(&recent_of);
    struct recent *last = recent ? &recent[gt_reg_geom_fingerprint(&c->g) % RECENT] : NULL;
    if (plain && last && last->len && last->len < cap && !memcmp(&last->g, &c->g, sizeof last->g)) {
        memcpy(text, last->text, last->len + 1);
        *hash = last->hash;
        return 0;
    }
    if (!plain) {
        int64_t vals[MAX_ARGS];
        unsigned char ok[MAX_ARGS];
        struct gt_launch l;
        char err[256];
        launch_env(p, c, &l, vals, ok);
        n = gt_policy_signature(p->sec, &l, extra, GT_CACHE_MAX_EXTRA, err, sizeof err);
        if (n < 0)
            return -1;
    }
    if (gt_cache_signature(c->g.grid, c->g.block, c->g.smem, extra, (size_t)n, text, cap) != 0)
        return -1;
    size_t len = strlen(text);
    *hash = gt_hash64(text, len) | 1;
    if (plain && last && len < sizeof last->text) {
        last->g = c->g;
        last->hash = *hash;
        last->len = (uint32_t)len;
        memcpy(last->text, text, len + 1);
    }
    return 0;
}

/* The geometry configuration cfg asks for at launch c, or the launch's own. */
int gt_plan_geometry(const struct gt_plan *p, const uint32_t *cfg, const struct gt_call *c, struct gt_geom *g,
                     char *err, size_t errlen)
{
    *g = c->g;
    if (!p->sec || (!p->sec->nblock && !p->sec->ngrid && !p->sec->smem))
        return 0;
    int64_t vals[MAX_ARGS];
    unsigned char ok[MAX_ARGS];
    struct gt_launch l;
    struct gt_geometry out;
    launch_env(p, c, &l, vals, ok);
    if (gt_policy_geometry(p->sec, p->space, cfg, &l, &p->arch, &out, err, errlen) != 0)
        return -1;
    for (int i = 0; i < 3; i++)
        g->grid[i] = (unsigned)out.grid[i], g->block[i] = (unsigned)out.block[i];
    g->smem = (unsigned)out.smem;
    return 0;
}

/* ---- building and loading variants ---- */

/* Which compilers were opened (debug) or why none could be (info), and
 * what the workers could not do: at info when it ends something. */
static void note_compilers(int final, const char *message)
{
    gt_log(final ? GT_LOG_INFO : GT_LOG_DEBUG, "%s", message);
}

/* NVRTC runs in compiler workers, the gputune beside this library
 * (rtcworker.c): NVRTC serializes the compilations of one process. */
static void find_worker(struct gt_jit *j)
{
    Dl_info self;
    char err[PATH_MAX + 128];
    if (!dladdr((void *)gt_plan_builder_open, &self) || !self.dli_fname)
        gt_debug("cannot tell where libgputune.so is; NVRTC runs in this process");
    else if (gt_rtcw_find(self.dli_fname, "gputune", j->worker, sizeof j->worker, err, sizeof err) != 0)
        gt_debug("%s; NVRTC runs in this process", err);
    j->note = note_compilers;
}

/* The compilers and the store. */
static void open_builder(void)
{
    gt_jit_init(&gt.run.jit, gt_elfsym_dlsym);
    gt.run.jit.cuda_major = gt.drv.cuda / 1000;
    gt.run.jit.opened = note_compilers;
    find_worker(&gt.run.jit);
    store_once();
}

void gt_plan_builder_open(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, open_builder);
}

/* Makes the recipe once; later calls repeat the first answer. */
int gt_plan_recipe(struct gt_plan *p, char *err, size_t errlen)
{
    if (p->recipe_state == 0) {
        const struct gt_kernel *k = p->k;
        int r;
        if (p->sec && p->sec->source)
            r = gt_recipe_from_file(&p->recipe, p->sec->source, p->sec->options, (int)p->sec->noptions,
                                    p->sec->link_options, (int)p->sec->nlink_options, k->name, p->arch.sm,
                                    p->recipe_error, sizeof p->recipe_error);
        else if (k->image && k->image->nvrtc)
            r = gt_recipe_from_nvrtc(&p->recipe, k->image->nvrtc, k->name, p->arch.sm, p->recipe_error,
                                     sizeof p->recipe_error);
        else
            r = gt_recipe_from_image(&p->recipe, k->image, k->name, p->arch.sm, p->recipe_error,
                                     sizeof p->recipe_error);
        p->recipe_state = r == 0 ? 1 : -1;
    }
    if (p->recipe_state < 0)
        snprintf(err, errlen, "%s", p->recipe_error);
    return p->recipe_state > 0 ? 0 : -1;
}

/* The compilation of cfg (for a launch of `block`, for launch bounds), for
 * trials under the watchdog (enum gt_watchdog) or plain. */
int gt_plan_job(struct gt_plan *p, const uint32_t *cfg, const unsigned block[3], int watchdog,
                struct gt_variant_job *vj)
{
    if (p->recipe_state <= 0)
        return -1;
    struct gt_knobs knobs;
    gt_space_knobs(p->space, cfg, &knobs);
    char *entry = NULL;
    if (p->sec && p->sec->entry && (entry = gt_malloc(512)) != NULL &&
        gt_policy_entry(p->sec, p->space, cfg, entry, 512) != 0) {
        free(entry);
        entry = NULL;
    }
    int r = gt_recipe_job(&p->recipe, p->space, cfg, knobs.bounds ? block : NULL, entry, vj);
    if (r == 0 && entry)
        vj->own[vj->nown++] = entry; /* freed with the job */
    else
        free(entry);
    if (r == 0 && gt_recipe_watchdog(&p->recipe, watchdog, vj) != 0) {
        gt_variant_job_free(vj);
        r = -1;
    }
    return r;
}

/* Loads a rebuilt variant, checked against the original's parameter layout. */
int gt_plan_load(struct gt_plan *p, const struct gt_handle *hd, const struct gt_knobs *knobs,
                 const struct gt_jit_job *built, struct gt_variant *v, char *err, size_t errlen)
{
    struct gt_kernel *k = hd->kernel;
    const char *name = built->lowered ? built->lowered : k->name;
    int np = atomic_load(&k->nparams);
    if (!built->ok) {
        snprintf(err, errlen, "building from %s failed: %s", p->recipe.from, built->log ? built->log : "no log");
        return -1;
    }
    if (np >= 0 && gt_recipe_check(built, name, k->params, np, err, errlen) != 0)
        return -1;
    /* A variant built from the image's PTX uses what that PTX's kernel uses;
     * one built from the application's source, with other macros, may not. */
    const char *ptx = k->image && !k->image->nvrtc ? gt_image_ptx_text(k->image) : NULL;
    return gt_variant_load(v, built->cubin, built->cubin_size, ptx, name, hd, knobs, p->arch.sm, err, errlen);
}

/* A build whose cubin the store could not keep (a full disk): said once a
 * process, since the next build fails alike, and at info: it costs a later
 * run a build (a cache entry naming it is built again by the run that
 * needs it), nothing else, and the cache file's own write says the rest. */
void gt_plan_store_error(const struct gt_jit_job *built)
{
    if (built->store_error[0])
        gt_log(atomic_exchange(&gt.run.store_failed, 1) ? GT_LOG_DEBUG : GT_LOG_INFO,
               "%s; the variants built in this run are not kept for later runs, which build them again",
               built->store_error);
}

/* The original image loaded again, its function with the knobs set on it:
 * what a graph node runs for launch-time knobs (gt_plan_node_function, and
 * online mode's turns on a graph's replays). */
int gt_plan_load_copy(struct gt_plan *p, const struct gt_handle *hd, const struct gt_knobs *knobs,
                      struct gt_variant *v, char *err, size_t errlen)
{
    size_t size = 0;
    const unsigned char *code = hd->kernel->image ? gt_image_code(hd->kernel->image, &size) : NULL;
    if (!code) {
        snprintf(err, errlen, "the kernel's image is not at hand to load again");
        return -1;
    }
    return gt_variant_load(v, code, size, gt_image_ptx_text(hd->kernel->image), hd->kernel->name, hd, knobs,
                           p->arch.sm, err, errlen);
}

/* Builds (or takes out of the store) and loads the choice's variant. */
static int load_choice(struct gt_plan *p, struct gt_choice *ch, const struct gt_handle *hd, const unsigned block[3],
                       struct gt_variant *v, char *err, size_t errlen)
{
    struct gt_variant_job vj;
    struct gt_key key;
    if (!ch->rebuild)
        return gt_plan_load_copy(p, hd, &ch->knobs, v, err, errlen);
    memset(&vj, 0, sizeof vj);
    gt_plan_builder_open();
    /* A configuration from the cache: its cubin is in the store, nothing to compile. */
    if (ch->cubin[0] && gt.run.have_store && gt_key_parse(ch->cubin, &key) == 0 &&
        gt_jit_from_store(&gt.run.store, key, &vj.job)) {
        int rc = gt_plan_load(p, hd, &ch->knobs, &vj.job, v, err, errlen);
        gt_jit_job_clear(&vj.job);
        return rc;
    }
    if (ch->cubin[0])
        gt_info("kernel %s: the cubin of '%s' is not in the store; building it", p->shown, ch->config);
    if (gt_plan_recipe(p, err, errlen) != 0)
        return -1;
    if (gt_plan_job(p, ch->cfg, block, GT_WATCHDOG_OFF, &vj) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    double t0 = gt_clock_seconds();
    gt_jit_build(&gt.run.jit, gt.run.have_store ? &gt.run.store : NULL, &vj.job);
    int rc = gt_plan_load(p, hd, &ch->knobs, &vj.job, v, err, errlen);
    if (rc == 0)
        gt_debug("kernel %s: variant built from %s %s(%.0f ms)", p->shown, p->recipe.from,
                 vj.job.from_store ? "out of the store " : "", (gt_clock_seconds() - t0) * 1e3);
    gt_plan_store_error(&vj.job);
    gt_variant_job_free(&vj);
    return rc;
}

/* The choice's variant for the current context and the launch's block,
 * loaded on first use; NULL (said once) when it cannot be had. */
/* The choice's variant loaded in the current context for block size g's
 * (when its launch bounds depend on it), or NULL; caller holds p->lock. */
static struct gt_variant *loaded_variant(const struct gt_choice *ch, const struct gt_geom *g, unsigned block[3])
{
    CUcontext ctx = NULL;
    gt.drv.cuCtxGetCurrent(&ctx);
    memset(block, 0, 3 * sizeof *block);
    if (ch->knobs.bounds)
        memcpy(block, g->block, 3 * sizeof *block);
    struct gt_variant *v = ch->variants;
    while (v && !(v->ctx == ctx && memcmp(v->block, block, 3 * sizeof *block) == 0))
        v = v->next;
    return v;
}

struct gt_variant *gt_plan_variant(struct gt_plan *p, struct gt_choice *ch, const struct gt_handle *hd,
                                   const struct gt_geom *g)
{
    unsigned block[3];
    pthread_mutex_lock(&p->lock);
    struct gt_variant *v = loaded_variant(ch, g, block);
    char err[1024];
    unsigned long lost = gt_alloc_failures();
    if (!v && !ch->failed && !ch->nocopy && (v = gt_calloc(1, sizeof *v)) != NULL) {
        memcpy(v->block, block, sizeof block);
        if (load_choice(p, ch, hd, g->block, v, err, sizeof err) == 0) {
            v->next = ch->variants;
            ch->variants = v;
        } else {
            if (ch->rebuild)
                gt_log(gt_log_fault_level(lost), "kernel %s: cannot apply '%s': %s; running the original", p->shown,
                       ch->config, err);
            else /* direct launches still apply the knobs to the application's function */
                gt_info("kernel %s: cannot give graph nodes '%s': %s", p->shown, ch->config, err);
            free(v);
            v = NULL;
            *(ch->rebuild ? &ch->failed : &ch->nocopy) = 1;
        }
    }
    pthread_mutex_unlock(&p->lock);
    return v;
}

/* Once per choice, at its first launch: what runs and why. */
static void describe(struct gt_plan *p, struct gt_choice *ch)
{
    if (atomic_load_explicit(&ch->said, memory_order_relaxed) || atomic_exchange(&ch->said, 1))
        return;
    if (ch->time_us > 0)
        gt_info("kernel %s: launch %s runs '%s' from %s (%.2f us against %.2f us, %.2fx when tuned)%s", p->shown,
                ch->signature, ch->config, ch->why, ch->time_us, ch->baseline_us, ch->baseline_us / ch->time_us,
                ch->guard.earlier                          ? "; kept by an earlier run's check on the application's launches"
                : ch->guarded && gt.run.guard ? "; checking it on the application's launches"
                                              : "");
}

/* What the guard found, once, when it found it. */
static void verdict(struct gt_plan *p, const struct gt_choice *ch)
{
    const struct gt_guard *g = &ch->guard;
    double speedup = g->ratio > 0 ? 1 / g->ratio : 0;
    if (g->verdict == GT_GUARD_KEPT)
        gt_info("kernel %s: launch %s: '%s' is %.2fx as fast as the original on the application's own launches "
                "(%d and %d timed); kept", p->shown, ch->signature, ch->config, speedup, g->n[1], g->n[0]);
    else
        gt_info("kernel %s: launch %s: '%s' is not faster than the original on the application's own launches "
                "(%.2fx, %d and %d timed); the original runs from now on", p->shown, ch->signature, ch->config,
                speedup, g->n[1], g->n[0]);
}

/* The configuration's launch: its variant with module variables mirrored
 * in and out on the launch's stream, or the application's own function
 * with its launch-time knobs. */
static CUresult run_config(struct gt_choice *ch, struct gt_variant *v, struct gt_handle *hd,
                           const struct gt_call *c, const struct gt_geom *g)
{
    return v ? gt_variant_launch(v, c, g) : gt_direct_launch(hd, c, &ch->knobs, g);
}

/* Runs the launch with the choice's configuration (or, while its guard
 * checks it, the original every other time).  Returns 1 with the launch's
 * result in *r when it ran, 0 when the original must run instead.
 * config_cost: a timed launch of a cache preference on the application's
 * function sets the application's own back before its end is recorded, so
 * that its time holds both host calls (set, set back) and the original's
 * that follows holds none.  Kept, a preference costs them at each launch
 * whose neighbours on the function run another one (a kernel launched at
 * several geometries, one kept), and a host ahead of nothing pays them in
 * the application's time as well (about 0.4 us a launch on an H200 host,
 * bench/launch_overhead); where the host runs ahead of the GPU, they are
 * in neither. */
int gt_plan_run(struct gt_plan *p, struct gt_choice *ch, struct gt_handle *hd, const struct gt_call *c, CUresult *r)
{
    struct gt_geom g;
    char err[512];
    if (gt_plan_geometry(p, ch->cfg, c, &g, err, sizeof err) != 0) {
        gt_debug("kernel %s: %s; this launch runs the original", p->shown, err);
        return 0;
    }
    struct gt_variant *v = NULL;
    if (ch->rebuild && !(v = gt_plan_variant(p, ch, hd, &g)))
        return 0;
    describe(p, ch);
    struct gt_guard_slot *slot = NULL;
    int checking = gt_plan_checking(ch) && gt.run.guard;
    if (checking) /* reading and weighing its times: no sample of the path once the verdicts are in */
        gt_pathcost_disturb();
    int timed = checking && gt_guard_take(&ch->guard, &slot), per_thread = gt_call_per_thread(c);
    int original = timed && !slot->variant;
    if (timed)
        gt_guard_mark(slot, 0, c->s, per_thread);
    if (original)
        gt_direct_restore(hd);
    *r = original ? gt_call_launch(c, c->f, &c->g) : run_config(ch, v, hd, c, &g);
    if (timed && !original && !v) /* the way back inside its time: see config_cost */
        gt_direct_restore(hd);
    if (timed)
        gt_guard_mark(slot, 1, c->s, per_thread);
    if (*r == CUDA_SUCCESS) {
        atomic_fetch_add_explicit(&ch->launches, 1, memory_order_relaxed);
        gt_reg_note_launch(hd, &c->g, c->entry, original ? 0 : GT_LAUNCH_APPLIED);
    }
    if (checking && gt_guard_settle(&ch->guard, timed)) {
        verdict(p, ch);
        atomic_store_explicit(&gt.run.last_verdict, gt_clock_seconds(), memory_order_relaxed);
    }
    return 1;
}

void gt_plan_collect(struct gt_plan *p)
{
    pthread_mutex_lock(&p->lock);
    for (struct gt_choice *ch = p->choices; ch; ch = ch->next)
        if (gt_plan_checking(ch) && gt_guard_settle(&ch->guard, 0))
            verdict(p, ch);
    pthread_mutex_unlock(&p->lock);
}

void gt_plan_detach(struct gt_plan *p)
{
    pthread_mutex_lock(&p->lock);
    for (struct gt_choice *ch = p->choices; ch; ch = ch->next)
        if (gt_plan_checking(ch))
            gt_guard_detach(&ch->guard);
    pthread_mutex_unlock(&p->lock);
}

/* Whether the choice's configuration may go into a graph for good: kept
 * by its guard, or run unchecked. */
int gt_plan_settled(const struct gt_choice *ch)
{
    return !ch->guarded || !gt.run.guard || ch->guard.verdict == GT_GUARD_KEPT;
}

/* A kernel node's function with the choice's configuration, in *g its
 * geometry, or NULL: a variant whose module variables need no copies (a
 * node has no stream to copy them on), as `use` allows (plan.h).  For
 * launch-time knobs alone the variant is the original image loaded again
 * with the knobs set on its function: a node's parameters have no place for
 * a carve-out, and the application's own function keeps its own settings. */
CUfunction gt_plan_node_function(struct gt_plan *p, struct gt_choice *ch, const struct gt_handle *hd,
                                 const struct gt_call *c, enum gt_node_use use, struct gt_geom *g)
{
    char err[512];
    unsigned block[3];
    if ((!gt_plan_settled(ch) && use != GT_NODE_CHECKED) ||
        gt_plan_geometry(p, ch->cfg, c, g, err, sizeof err) != 0)
        return NULL;
    struct gt_variant *v;
    if (use == GT_NODE_AS_IS) {
        pthread_mutex_lock(&p->lock);
        v = loaded_variant(ch, g, block);
        pthread_mutex_unlock(&p->lock);
    } else {
        v = gt_plan_variant(p, ch, hd, g);
    }
    if (v && v->nvars)
        gt_debug("kernel %s: a graph node for launch %s cannot run '%s': its module has %d variables to copy at "
                 "each launch, and a node has no stream for them", p->shown, ch->signature, ch->config, v->nvars);
    return v && !v->nvars ? v->fn : NULL;
}

/* A launch into a capturing stream.  The graph replays what is captured
 * here for as long as it lives, so only a configuration already settled
 * goes in (kept by its guard, or run unchecked), and only as far as it can
 * be captured: a variant already loaded in this context (the copies of its
 * module variables are captured with it; for launch-time knobs, the copy of
 * the image a graph's nodes got), or launch-time knobs without a cache
 * preference (the carve-out goes with the launch; a cache preference is the
 * function's, and the capture would take it into the graph for every
 * launch of that function there, and loading a module is no stream
 * operation).  The caller has put the application's own preference back
 * on the function (apply.c).  Returns as gt_plan_run. */
int gt_plan_run_captured(struct gt_plan *p, struct gt_choice *ch, struct gt_handle *hd, const struct gt_call *c,
                         CUresult *r)
{
    struct gt_geom g;
    char err[512];
    unsigned block[3];
    if (!gt_plan_settled(ch) || gt_plan_geometry(p, ch->cfg, c, &g, err, sizeof err) != 0)
        return 0;
    pthread_mutex_lock(&p->lock);
    struct gt_variant *v = loaded_variant(ch, &g, block);
    pthread_mutex_unlock(&p->lock);
    if (!v && (ch->rebuild || ch->knobs.cache != GT_CACHE_DEFAULT ||
               atomic_load_explicit(&hd->cache_now, memory_order_relaxed) != GT_CACHE_DEFAULT))
        return 0;
    *r = run_config(ch, v, hd, c, &g);
    if (*r == CUDA_SUCCESS)
        gt_reg_note_launch(hd, &c->g, c->entry, GT_LAUNCH_APPLIED | GT_LAUNCH_CAPTURED);
    return 1;
}
