/* direct.c: launch-time knobs on the application's own function.
 *
 * A configuration that changes only the cache preference or the carve-out
 * runs the application's own function: a second copy of its image would
 * have its own copies of every module variable the kernel uses, copied in
 * and out around each launch (hundreds of small copies a launch for a
 * kernel of one of PyTorch's large fatbins), and its own code where the
 * application's is already loaded.  The carve-out goes with the launch
 * (CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, through
 * cuLaunchKernelEx), so the function keeps what the application set and
 * reads back.  The cache preference has no launch attribute and no getter:
 * it is set on the function before a launch that wants another one, and
 * the application's own is set again before a launch that wants that one
 * (the driver takes a function's settings when a launch is queued).  Two
 * threads launching the same handle with different preferences at once may
 * each get the other's: a question of speed, never of results. */
#include "direct.h"
#include "alloc.h"
#include "state.h"

#include <stdlib.h>

static const CUfunc_cache cache_modes[] = {
    [GT_CACHE_NONE] = CU_FUNC_CACHE_PREFER_NONE, [GT_CACHE_SHARED] = CU_FUNC_CACHE_PREFER_SHARED,
    [GT_CACHE_L1] = CU_FUNC_CACHE_PREFER_L1, [GT_CACHE_EQUAL] = CU_FUNC_CACHE_PREFER_EQUAL,
};

static CUresult set_cache(struct gt_handle *hd, CUfunc_cache v, CUdevice dev)
{
    if (hd->kind == GT_HANDLE_KERNEL)
        return gt.drv.cuKernelSetCacheConfig ? gt.drv.cuKernelSetCacheConfig((CUkernel)hd->h, v, dev)
                                             : CUDA_ERROR_NOT_SUPPORTED;
    return gt.drv.cuFuncSetCacheConfig ? gt.drv.cuFuncSetCacheConfig((CUfunction)hd->h, v) : CUDA_ERROR_NOT_SUPPORTED;
}

/* Puts preference `want` (GT_CACHE_DEFAULT: the application's) on the handle if another is there. */
static CUresult ensure_cache(struct gt_handle *hd, int want)
{
    if (atomic_load_explicit(&hd->cache_now, memory_order_relaxed) == want)
        return CUDA_SUCCESS;
    CUdevice dev = 0;
    CUresult r = gt.drv.cuCtxGetDevice(&dev);
    if (r == CUDA_SUCCESS)
        r = set_cache(hd, want == GT_CACHE_DEFAULT ? (CUfunc_cache)gt_reg_own_cache(hd->kernel, dev) : cache_modes[want],
                      dev);
    if (r == CUDA_SUCCESS)
        atomic_store_explicit(&hd->cache_now, want, memory_order_relaxed);
    return r;
}

/* The launch with the carve-out as one of its attributes, replacing any
 * the application gave. */
static CUresult launch_carveout(const struct gt_call *c, CUfunction f, const struct gt_geom *g, int carveout)
{
    CUlaunchAttribute own[8], *attrs = own;
    unsigned n = 0, have = c->config ? c->config->numAttrs : 0;
    if (have + 1 > sizeof own / sizeof own[0] && !(attrs = gt_malloc((have + 1) * sizeof *attrs)))
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (unsigned i = 0; i < have; i++)
        if (c->config->attrs[i].id != CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)
            attrs[n++] = c->config->attrs[i];
    attrs[n] = (CUlaunchAttribute){.id = CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT};
    attrs[n++].value.sharedMemCarveout = (unsigned)carveout;
    CUlaunchConfig cfg = {.gridDimX = g->grid[0], .gridDimY = g->grid[1], .gridDimZ = g->grid[2],
                          .blockDimX = g->block[0], .blockDimY = g->block[1], .blockDimZ = g->block[2],
                          .sharedMemBytes = g->smem, .hStream = c->s, .attrs = attrs, .numAttrs = n};
    PFN_cuLaunchKernelEx_v11060 ex = gt_call_per_thread(c) ? gt.drv.cuLaunchKernelEx_ptsz : gt.drv.cuLaunchKernelEx;
    CUresult r = ex ? ex(&cfg, f, c->params, c->extra) : CUDA_ERROR_NOT_SUPPORTED;
    if (attrs != own)
        free(attrs);
    return r;
}

/* Launch c of handle hd's own function with the launch-time knobs k and geometry g. */
CUresult gt_direct_launch(struct gt_handle *hd, const struct gt_call *c, const struct gt_knobs *k,
                          const struct gt_geom *g)
{
    CUresult r = ensure_cache(hd, k->cache);
    if (r != CUDA_SUCCESS)
        return r;
    if (k->carveout == GT_CARVEOUT_DEFAULT)
        return gt_call_launch(c, c->f, g);
    return launch_carveout(c, c->f, g, k->carveout);
}

/* Before a launch of the original: the application's own cache preference. */
void gt_direct_restore(struct gt_handle *hd)
{
    if (atomic_load_explicit(&hd->cache_now, memory_order_relaxed) != GT_CACHE_DEFAULT)
        ensure_cache(hd, GT_CACHE_DEFAULT);
}
