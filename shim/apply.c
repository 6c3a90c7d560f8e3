/* apply.c: configurations applied at launch.
 *
 * When a kernel has a configuration to apply, its launches run a variant
 * instead: the kernel rebuilt (recipe.c) or its image loaded again with other
 * launch-time knobs (variant.c), in the launch's context, specialized to the
 * launch's block when the configuration sets launch bounds, with the launch
 * geometry the policy computes from the configuration and the launch's
 * arguments.  Variants are built at the first launch that needs them and
 * kept per (context, block).  Whatever goes wrong (no recipe, a compile
 * error, a different parameter layout, a refused launch) is said once and
 * the kernel runs as the application built it from then on.
 *
 * A plan is decided once per kernel.  Today its configuration comes from
 * GPUTUNE_FORCE ("GLOB CONFIG; GLOB CONFIG ..."), which applies one
 * configuration to every launch of the kernels GLOB selects, within the
 * space of the kernel's policy section or the automatic space. */
#include "apply.h"
#include "demangle.h"
#include "imageptx.h"
#include "interpose.h"
#include "nvrtc_hooks.h"
#include "policy.h"
#include "ptx.h"
#include "recipe.h"
#include "state.h"
#include "variant.h"

#include "gputune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct gt_plan {
    pthread_mutex_t lock;
    const struct gt_section *sec; /* NULL: the automatic space */
    struct gt_space *space;
    uint32_t *cfg;
    char text[512];               /* the configuration, as written */
    char *shown;                  /* the kernel's name for messages */
    struct gt_knobs knobs;
    int rebuild;                  /* compile-time knobs or macros differ from the original */
    struct gt_arch arch;
    struct gt_recipe recipe;
    int have_recipe;
    int *argpos;                  /* the section's argument names, resolved */
    size_t nargpos;
    int failed;                   /* given up: launch the original */
    struct gt_variant *variants;
};

CUresult gt_call_launch(const struct gt_call *c, CUfunction f, const struct gt_geom *g)
{
    switch (c->entry) {
    case GT_ENTRY_EX:
    case GT_ENTRY_EX_PTSZ: {
        CUlaunchConfig cfg = *c->config;
        cfg.gridDimX = g->grid[0], cfg.gridDimY = g->grid[1], cfg.gridDimZ = g->grid[2];
        cfg.blockDimX = g->block[0], cfg.blockDimY = g->block[1], cfg.blockDimZ = g->block[2];
        cfg.sharedMemBytes = g->smem;
        return c->real.ex(&cfg, f, c->params, c->extra);
    }
    case GT_ENTRY_COOP:
    case GT_ENTRY_COOP_PTSZ:
        return c->real.coop(f, g->grid[0], g->grid[1], g->grid[2], g->block[0], g->block[1], g->block[2], g->smem,
                            c->s, c->params);
    default:
        return c->real.plain(f, g->grid[0], g->grid[1], g->grid[2], g->block[0], g->block[1], g->block[2], g->smem,
                             c->s, c->params, c->extra);
    }
}

int gt_call_per_thread(const struct gt_call *c)
{
    return c->entry == GT_ENTRY_LAUNCH_PTSZ || c->entry == GT_ENTRY_EX_PTSZ || c->entry == GT_ENTRY_COOP_PTSZ;
}

/* ---- process-wide setup, once, at the first kernel that could need it ---- */

static void parse_force(struct gt_apply *a, const char *v)
{
    char *copy = strdup(v), *save = NULL;
    for (char *e = copy ? strtok_r(copy, ";", &save) : NULL; e; e = strtok_r(NULL, ";", &save)) {
        e += strspn(e, " \t");
        size_t glob = strcspn(e, " \t");
        if (!*e)
            continue;
        struct gt_force *f = realloc(a->force, (size_t)(a->nforce + 1) * sizeof *f);
        if (!f)
            break;
        a->force = f;
        f[a->nforce].glob = strndup(e, glob);
        f[a->nforce].config = strdup(e + glob + strspn(e + glob, " \t"));
        a->nforce++;
    }
    free(copy);
}

static void load_policy(struct gt_apply *a)
{
    const char *list = getenv(GPUTUNE_ENV_POLICY);
    if (!list || !*list)
        return;
    struct gt_diags d = {0};
    a->policy = gt_policy_new();
    int r = a->policy ? gt_policy_load_list(a->policy, list, &d) : -1;
    for (size_t i = 0; i < d.n; i++) {
        char msg[1024];
        gt_diag_format(&d.v[i], msg, sizeof msg);
        gt_warn("%s", msg);
    }
    gt_diags_clear(&d);
    if (r < 0) {
        gt_warn("GPUTUNE_POLICY: cannot read %s; no policy applies", list);
        gt_policy_free(a->policy);
        a->policy = NULL;
    }
}

static void setup(struct gt_apply *a)
{
    const char *force = getenv(GPUTUNE_ENV_FORCE);
    if (force)
        parse_force(a, force);
    if (a->nforce)
        load_policy(a);
    a->ready = 1;
}

/* The compilers and the store, opened only once a variant must be built:
 * an application the shim only watches gets no cache directory. */
static void open_builder(void)
{
    char root[PATH_MAX], err[512];
    gt_jit_init(&gt.app.jit, gt_real_dlsym);
    if (gt_store_default_root(root, sizeof root) != 0)
        gt_warn("no cache directory (set GPUTUNE_CACHE_DIR or HOME); variants are rebuilt every run");
    else if (gt_store_open(&gt.app.store, root, err, sizeof err) != 0)
        gt_warn("%s; variants are rebuilt every run", err);
    else
        gt.app.have_store = 1;
}

/* ---- deciding a kernel's plan ---- */

static const char *forced_config(struct gt_apply *a, const char *mangled, const char *demangled)
{
    for (int i = 0; i < a->nforce; i++)
        if (gt_policy_match(a->force[i].glob, mangled, demangled))
            return a->force[i].config;
    return NULL;
}

static int device_arch(struct gt_arch *arch)
{
    CUdevice dev;
    int major = 0, minor = 0;
    if (gt.drv.cuCtxGetDevice(&dev) != CUDA_SUCCESS ||
        gt.drv.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) != CUDA_SUCCESS ||
        gt.drv.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) != CUDA_SUCCESS)
        return -1;
    gt_arch_for_sm(major * 10 + minor, arch);
    return 0;
}

/* Positions of the section's arg.NAME names, from the kernel's PTX. */
static void resolve_argnames(struct gt_plan *p, const struct gt_kernel *k)
{
    if (!p->sec || !p->sec->argnames.n || !(p->argpos = malloc(p->sec->argnames.n * sizeof *p->argpos)))
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

static int has_jit(const struct gt_kernel *k, const struct gt_section *sec)
{
    return (sec && sec->source) || (k->image && (k->image->nvrtc || k->image->ptx_arch));
}

static void plan_free(struct gt_plan *p)
{
    free(p->shown);
    gt_space_free(p->space);
    free(p->cfg);
    free(p->argpos);
    if (p->have_recipe)
        gt_recipe_free(&p->recipe);
    free(p);
}

static struct gt_plan *plan_new(struct gt_apply *a, struct gt_kernel *k, const char *shown, const char *config)
{
    struct gt_plan *p = calloc(1, sizeof *p);
    char err[512];
    struct gt_diags d = {0};
    if (!p || device_arch(&p->arch) != 0) {
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    p->shown = strdup(shown);
    p->sec = a->policy ? gt_policy_find(a->policy, k->name, shown) : NULL;
    snprintf(p->text, sizeof p->text, "%s", config);
    if (p->sec && p->sec->errors) {
        gt_warn("kernel %s: its policy section has errors; running the original", shown);
        plan_free(p);
        return NULL;
    }
    int jit = has_jit(k, p->sec);
    p->space = p->sec ? gt_policy_space(p->sec, &p->arch, jit ? 0 : GT_SPACE_NO_JIT, &d)
                      : gt_space_auto(&p->arch, jit, &d);
    gt_diags_clear(&d);
    size_t at;
    if (p->space && (p->cfg = calloc(p->space->ndims + 1, sizeof *p->cfg)) != NULL) {
        gt_space_default(p->space, p->cfg);
        if (gt_space_parse(p->space, config, GT_PARSE_PARTIAL, p->cfg, err, sizeof err, &at) != 0) {
            gt_warn("kernel %s: configuration '%s' does not fit its space: %s; running the original", shown, config, err);
            plan_free(p);
            return NULL;
        }
    } else {
        gt_warn("kernel %s: no tuning space for it; running the original", shown);
        plan_free(p);
        return NULL;
    }
    gt_space_knobs(p->space, p->cfg, &p->knobs);
    p->rebuild = p->knobs.maxrreg || p->knobs.dlcm || p->knobs.bounds || p->knobs.minblocks;
    for (size_t i = 0; i < p->space->ndims; i++)
        p->rebuild |= p->space->dims[i].kind == GT_DIM_PARAM && p->cfg[i] != p->space->dims[i].def;
    resolve_argnames(p, k);
    return p;
}

static struct gt_plan *decide(struct gt_apply *a, struct gt_kernel *k)
{
    if (!a->ready)
        setup(a);
    if (!a->nforce)
        return NULL;
    char *shown = gt_demangle(k->name);
    const char *config = forced_config(a, k->name, shown ? shown : k->name);
    struct gt_plan *p = config ? plan_new(a, k, shown ? shown : k->name, config) : NULL;
    if (p)
        gt_info("kernel %s: applying configuration '%s' (GPUTUNE_FORCE)", shown ? shown : k->name, config);
    free(shown);
    return p;
}

static struct gt_plan *plan_of(struct gt_kernel *k)
{
    int st = atomic_load_explicit(&k->planned, memory_order_acquire);
    if (st)
        return st > 0 ? k->plan : NULL;
    pthread_mutex_lock(&gt.app.lock);
    if (!atomic_load(&k->planned)) {
        k->plan = decide(&gt.app, k);
        atomic_store_explicit(&k->planned, k->plan ? 1 : -1, memory_order_release);
    }
    pthread_mutex_unlock(&gt.app.lock);
    return k->plan;
}

/* ---- building and loading variants ---- */

static int make_recipe(struct gt_plan *p, const struct gt_kernel *k, char *err, size_t errlen)
{
    if (p->have_recipe)
        return 0;
    int r;
    if (p->sec && p->sec->source)
        r = gt_recipe_from_file(&p->recipe, p->sec->source, p->sec->options, (int)p->sec->noptions,
                                p->sec->link_options, (int)p->sec->nlink_options, k->name, p->arch.sm, err, errlen);
    else if (k->image && k->image->nvrtc)
        r = gt_recipe_from_nvrtc(&p->recipe, k->image->nvrtc, k->name, p->arch.sm, err, errlen);
    else
        r = gt_recipe_from_image(&p->recipe, k->image, k->name, p->arch.sm, err, errlen);
    p->have_recipe = r == 0;
    return r;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Rebuilds the kernel for the configuration and loads it. */
static int load_rebuilt(struct gt_plan *p, const struct gt_handle *hd, const unsigned block[3], struct gt_variant *v,
                        char *err, size_t errlen)
{
    struct gt_kernel *k = hd->kernel;
    char entry[512];
    const char *name_expr = NULL;
    if (p->sec && p->sec->entry && gt_policy_entry(p->sec, p->space, p->cfg, entry, sizeof entry) == 0)
        name_expr = entry;
    struct gt_variant_job vj;
    if (make_recipe(p, k, err, errlen) != 0)
        return -1;
    if (gt_recipe_job(&p->recipe, p->space, p->cfg, p->knobs.bounds ? block : NULL, name_expr, &vj) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    static pthread_once_t builder = PTHREAD_ONCE_INIT;
    pthread_once(&builder, open_builder);
    double t0 = now();
    gt_jit_build(&gt.app.jit, gt.app.have_store ? &gt.app.store : NULL, &vj.job);
    const char *kernel = name_expr ? vj.job.lowered : k->name;
    int rc = -1;
    if (!vj.job.ok)
        snprintf(err, errlen, "building from %s failed: %s", p->recipe.from, vj.job.log ? vj.job.log : "no log");
    else if (atomic_load(&k->nparams) >= 0 &&
             gt_recipe_check(&vj.job, kernel ? kernel : k->name, k->params, atomic_load(&k->nparams), err, errlen) != 0)
        ;
    else
        rc = gt_variant_load(v, vj.job.cubin, vj.job.cubin_size, kernel ? kernel : k->name, hd, &p->knobs, p->arch.sm,
                             err, errlen);
    if (rc == 0)
        gt_debug("kernel %s: variant built from %s %s(%.0f ms)", p->shown, p->recipe.from,
                 vj.job.from_store ? "out of the store " : "", (now() - t0) * 1e3);
    if (vj.job.store_error[0])
        gt_warn("%s", vj.job.store_error);
    gt_variant_job_free(&vj);
    return rc;
}

/* Loads the original image again, to carry other launch-time knobs. */
static int load_reloaded(struct gt_plan *p, const struct gt_handle *hd, struct gt_variant *v, char *err, size_t errlen)
{
    const struct gt_image *img = hd->kernel->image;
    size_t size = img ? img->size : 0;
    const unsigned char *code = img ? gt_image_container(img, &size) : NULL;
    if (!code && img && (img->format == GT_FMT_CUBIN || img->format == GT_FMT_PTX))
        code = img->bytes, size = img->size;
    if (!code) {
        snprintf(err, errlen, "the shim does not hold the kernel's image");
        return -1;
    }
    return gt_variant_load(v, code, size, hd->kernel->name, hd, &p->knobs, p->arch.sm, err, errlen);
}

static struct gt_variant *variant_for(struct gt_plan *p, const struct gt_handle *hd, const struct gt_geom *g)
{
    CUcontext ctx = NULL;
    gt.drv.cuCtxGetCurrent(&ctx);
    unsigned block[3] = {0, 0, 0};
    if (p->knobs.bounds)
        memcpy(block, g->block, sizeof block);
    pthread_mutex_lock(&p->lock);
    struct gt_variant *v = p->variants;
    while (v && !(v->ctx == ctx && memcmp(v->block, block, sizeof block) == 0))
        v = v->next;
    char err[1024];
    if (!v && !p->failed && (v = calloc(1, sizeof *v)) != NULL) {
        memcpy(v->block, block, sizeof block);
        int r = p->rebuild ? load_rebuilt(p, hd, block, v, err, sizeof err) : load_reloaded(p, hd, v, err, sizeof err);
        if (r == 0) {
            v->next = p->variants;
            p->variants = v;
        } else {
            gt_warn("kernel %s: cannot apply '%s': %s; running the original", p->shown, p->text, err);
            free(v);
            v = NULL;
            p->failed = 1;
        }
    }
    pthread_mutex_unlock(&p->lock);
    return v;
}

/* ---- the launch ---- */

/* Scalar argument values for the policy's expressions. */
static void read_args(const struct gt_kernel *k, const struct gt_call *c, int64_t *vals, unsigned char *ok, int n)
{
    const unsigned char *buf = NULL;
    for (void **e = c->extra; e && *e != CU_LAUNCH_PARAM_END; e += 2)
        if (*e == CU_LAUNCH_PARAM_BUFFER_POINTER)
            buf = e[1];
    for (int i = 0; i < n; i++) {
        const unsigned char *p = c->params ? c->params[i] : buf ? buf + k->params[i].offset : NULL;
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
}

/* The geometry the configuration asks for, or the launch's own. */
static int geometry(const struct gt_plan *p, const struct gt_kernel *k, const struct gt_call *c, struct gt_geom *g,
                    char *err, size_t errlen)
{
    *g = c->g;
    if (!p->sec || (!p->sec->nblock && !p->sec->ngrid && !p->sec->smem))
        return 0;
    int n = atomic_load(&k->nparams);
    int64_t vals[64];
    unsigned char ok[64];
    n = n < 0 ? 0 : n > 64 ? 64 : n;
    read_args(k, c, vals, ok, n);
    struct gt_launch l = {.orig = {c->g.grid[0], c->g.grid[1], c->g.grid[2], c->g.block[0], c->g.block[1],
                                   c->g.block[2], c->g.smem},
                          .nargs = n, .args = vals, .arg_ok = ok, .argpos = p->argpos, .nargpos = p->nargpos};
    struct gt_geometry out;
    if (gt_policy_geometry(p->sec, p->space, p->cfg, &l, &p->arch, &out, err, errlen) != 0)
        return -1;
    for (int i = 0; i < 3; i++)
        g->grid[i] = (unsigned)out.grid[i], g->block[i] = (unsigned)out.block[i];
    g->smem = (unsigned)out.smem;
    return 0;
}

/* Runs the kernel's configuration in place of the launch, if it has one.
 * Returns 1 with the launch's result in *r when a variant ran, 0 when the
 * caller must launch the original. */
int gt_apply_launch(struct gt_handle *hd, const struct gt_call *c, CUresult *r)
{
    struct gt_plan *p = plan_of(hd->kernel);
    if (!p || p->failed || c->entry == GT_ENTRY_COOP || c->entry == GT_ENTRY_COOP_PTSZ ||
        gt_capture_is_on(c->s, gt_call_per_thread(c)))
        return 0;
    if (atomic_load_explicit(&hd->kernel->nparams, memory_order_relaxed) < 0)
        gt_reg_learn_params(hd);
    struct gt_geom g;
    char err[512];
    if (geometry(p, hd->kernel, c, &g, err, sizeof err) != 0) {
        gt_debug("kernel %s: %s; this launch runs the original", p->shown, err);
        return 0;
    }
    struct gt_variant *v = variant_for(p, hd, &g);
    if (!v)
        return 0;
    int per_thread = gt_call_per_thread(c);
    gt_variant_mirror(v, c->s, per_thread, 0);
    *r = gt_call_launch(c, v->fn, &g);
    gt_variant_mirror(v, c->s, per_thread, 1);
    if (*r == CUDA_SUCCESS)
        gt_reg_note_launch(hd, &c->g, c->entry, GT_LAUNCH_APPLIED);
    return 1;
}
