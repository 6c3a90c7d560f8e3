/* variant.c: a variant loaded into one context.
 *
 * A variant is a module of the shim's own in the application's context:
 * a rebuilt cubin, or the original image loaded again when only launch-time
 * knobs change.  It gets what the application set on the original (raised
 * shared-memory limits, cache preference) and then the configuration's
 * cache preference and carve-out.  Its module-scope variables are separate
 * copies: before each launch the shim copies the original's values in, and
 * after it copies back those the kernel may write, both on the launch's
 * stream, so the application sees one set of variables whichever module ran. */
#include "variant.h"
#include "alloc.h"
#include "call.h"
#include "modvars.h"
#include "state.h"
#include "watchdog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const CUfunc_cache cache_modes[] = {
    [GT_CACHE_NONE] = CU_FUNC_CACHE_PREFER_NONE, [GT_CACHE_SHARED] = CU_FUNC_CACHE_PREFER_SHARED,
    [GT_CACHE_L1] = CU_FUNC_CACHE_PREFER_L1, [GT_CACHE_EQUAL] = CU_FUNC_CACHE_PREFER_EQUAL,
};

/* What the application set on the original, for this device. */
static CUresult inherit_settings(CUfunction fn, struct gt_kernel *k, CUdevice dev)
{
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&k->lock);
    for (int i = 0; i < k->nsettings && r == CUDA_SUCCESS; i++) {
        const struct gt_setting *s = &k->settings[i];
        if (s->device >= 0 && s->device != dev)
            continue;
        if (s->attr == GT_SET_CACHE_CONFIG)
            r = gt.drv.cuFuncSetCacheConfig(fn, (CUfunc_cache)s->value);
        else if (s->attr == GT_SET_SHMEM_CONFIG)
            r = gt.drv.cuFuncSetSharedMemConfig(fn, (CUsharedconfig)s->value);
        else
            r = gt.drv.cuFuncSetAttribute(fn, (CUfunction_attribute)s->attr, s->value);
    }
    pthread_mutex_unlock(&k->lock);
    return r;
}

static CUresult apply_knobs(CUfunction fn, const struct gt_knobs *knobs)
{
    CUresult r = CUDA_SUCCESS;
    if (knobs->cache != GT_CACHE_DEFAULT)
        r = gt.drv.cuFuncSetCacheConfig(fn, cache_modes[knobs->cache]);
    if (r == CUDA_SUCCESS && knobs->carveout != GT_CARVEOUT_DEFAULT)
        r = gt.drv.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, knobs->carveout);
    return r;
}

/* The module the original kernel lives in, in the current context. */
CUmodule gt_variant_original(const struct gt_handle *orig)
{
    CUfunction f = (CUfunction)orig->h;
    CUmodule m = NULL;
    if (orig->kind == GT_HANDLE_KERNEL && gt.drv.cuKernelGetFunction(&f, (CUkernel)orig->h) != CUDA_SUCCESS)
        return NULL;
    return gt.drv.cuFuncGetModule(&m, f) == CUDA_SUCCESS ? m : NULL;
}

static void pair_variable(struct gt_variant *v, CUmodule orig, const char *name, int writable)
{
    CUdeviceptr a, b;
    size_t sa, sb;
    if (gt.drv.cuModuleGetGlobal_v2(&a, &sa, orig, name) != CUDA_SUCCESS ||
        gt.drv.cuModuleGetGlobal_v2(&b, &sb, v->module, name) != CUDA_SUCCESS || sa != sb)
        return; /* only the variant has it: its own initial value stands */
    v->vars[v->nvars++] = (struct gt_var_pair){a, b, sa, writable};
}

/* Whether the kernel's variable is the application's: the watchdog's
 * deadline, in a build with its checks, is the shim's alone. */
static int of_application(const struct gt_modvar *var)
{
    return strcmp(var->name, GT_WATCHDOG_SYMBOL) != 0;
}

/* Pairs the variables `kernel` uses in the code loaded with the original's. */
static int pair_variables(struct gt_variant *v, const unsigned char *code, size_t size, const char *ptx,
                          const char *kernel, const struct gt_handle *orig, int arch)
{
    struct gt_modvar *vars;
    int n, theirs = 0;
    if (gt_modvars(code, size, ptx, kernel, arch, &vars, &n) != 0)
        return -1;
    for (int i = 0; i < n; i++)
        theirs += of_application(&vars[i]);
    CUmodule om = theirs ? gt_variant_original(orig) : NULL;
    int rc = theirs && (!om || !(v->vars = gt_calloc((size_t)theirs, sizeof *v->vars))) ? -1 : 0;
    for (int i = 0; rc == 0 && om && i < n; i++)
        if (of_application(&vars[i]))
            pair_variable(v, om, vars[i].name, vars[i].writable);
    gt_modvars_free(vars, n);
    return rc;
}

/* Loads `code` (a cubin or the original image; `ptx`, the PTX text it was
 * compiled from, or NULL) into the current context and prepares kernel
 * `kernel` in it to stand in for `orig`. */
int gt_variant_load(struct gt_variant *v, const unsigned char *code, size_t size, const char *ptx, const char *kernel,
                    const struct gt_handle *orig, const struct gt_knobs *knobs, int arch, char *err, size_t errlen)
{
    CUdevice dev = 0;
    const char *what = "cuModuleLoadData";
    CUresult r = gt.drv.cuCtxGetCurrent(&v->ctx);
    if (r == CUDA_SUCCESS)
        r = gt.drv.cuCtxGetDevice(&dev);
    if (r == CUDA_SUCCESS)
        r = gt.drv.cuModuleLoadData(&v->module, code);
    if (r == CUDA_SUCCESS && (what = "cuModuleGetFunction") && (r = gt.drv.cuModuleGetFunction(&v->fn, v->module, kernel)) == CUDA_SUCCESS &&
        (what = "a setting of the original") && (r = inherit_settings(v->fn, orig->kernel, dev)) == CUDA_SUCCESS &&
        (what = "the cache preference or carve-out") && (r = apply_knobs(v->fn, knobs)) == CUDA_SUCCESS &&
        pair_variables(v, code, size, ptx, kernel, orig, arch) != 0) {
        snprintf(err, errlen, "cannot find the original's module-scope variables");
        gt_variant_unload(v);
        return -1;
    }
    if (r != CUDA_SUCCESS) {
        snprintf(err, errlen, "%s failed: %s", what, gt_cu_error(r));
        gt_variant_unload(v);
        return -1;
    }
    if (v->nvars)
        gt_debug("kernel %s: its variant has its own copies of %d module variables, copied at each launch", kernel,
                 v->nvars);
    return 0;
}

/* Launch c with the variant's function and geometry g, its module
 * variables mirrored around it. */
CUresult gt_variant_launch(const struct gt_variant *v, const struct gt_call *c, const struct gt_geom *g)
{
    int per_thread = gt_call_per_thread(c);
    gt_variant_mirror(v, c->s, per_thread, 0);
    CUresult r = gt_call_launch(c, v->fn, g);
    gt_variant_mirror(v, c->s, per_thread, 1);
    return r;
}

/* Copies the original's variables into the variant's (back == 0) or the
 * variant's writable ones back (back == 1), ordered on the launch's stream. */
void gt_variant_mirror(const struct gt_variant *v, CUstream s, int per_thread, int back)
{
    for (int i = 0; i < v->nvars; i++) {
        const struct gt_var_pair *p = &v->vars[i];
        if (back && !p->writable)
            continue;
        CUdeviceptr dst = back ? p->orig : p->copy, src = back ? p->copy : p->orig;
        if (per_thread)
            gt.drv.cuMemcpyDtoDAsync_v2_ptsz(dst, src, p->size, s);
        else
            gt.drv.cuMemcpyDtoDAsync_v2(dst, src, p->size, s);
    }
}

void gt_variant_unload(struct gt_variant *v)
{
    if (v->module)
        gt.drv.cuModuleUnload(v->module);
    free(v->vars);
    v->module = NULL;
    v->fn = NULL;
    v->vars = NULL;
    v->nvars = 0;
}
