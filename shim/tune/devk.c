/* devk.c: the shim's own kernels (devkernels.cu, embedded as PTX), loaded
 * into each context at its first use and kept for the life of the process:
 * the comparisons of trial outputs and the watchdog's arming. */
#include "devk.h"
#include "alloc.h"
#include "state.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

extern const unsigned char gt_devkernels_ptx[];

static const char *const names[GT_DEVK_N] = {
    [GT_DEVK_COMPARE_BITS] = "gt_compare_bits", [GT_DEVK_COMPARE_F32] = "gt_compare_f32",
    [GT_DEVK_COMPARE_F64] = "gt_compare_f64",   [GT_DEVK_COMPARE_F16] = "gt_compare_f16",
    [GT_DEVK_COMPARE_BF16] = "gt_compare_bf16", [GT_DEVK_COMPARE_POISON] = "gt_compare_poison",
    [GT_DEVK_ARM] = "gt_arm",
};


static struct gt_devk *load(CUcontext ctx, char *err, size_t errlen)
{
    struct gt_devk *d = gt_calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    d->ctx = ctx;
    CUresult r = gt.drv.cuModuleLoadData(&d->mod, gt_devkernels_ptx);
    for (int i = 0; i < GT_DEVK_N && r == CUDA_SUCCESS; i++)
        r = gt.drv.cuModuleGetFunction(&d->fn[i], d->mod, names[i]);
    if (r == CUDA_SUCCESS)
        r = gt.drv.cuMemAlloc_v2(&d->result, 2 * sizeof(unsigned long long));
    if (r != CUDA_SUCCESS) {
        snprintf(err, errlen, "cannot load the shim's own kernels: %s", gt_cu_error(r));
        if (d->mod)
            gt.drv.cuModuleUnload(d->mod);
        free(d);
        return NULL;
    }
    return d;
}

/* The kernels in the current context; NULL with why. */
struct gt_devk *gt_devk_get(char *err, size_t errlen)
{
    CUcontext ctx = NULL;
    gt.drv.cuCtxGetCurrent(&ctx);
    pthread_mutex_lock(&gt.tune.devk_lock);
    struct gt_devk *d = gt.tune.devk;
    while (d && d->ctx != ctx)
        d = d->next;
    if (!d && (d = load(ctx, err, errlen)) != NULL) {
        d->next = gt.tune.devk;
        gt.tune.devk = d;
    }
    pthread_mutex_unlock(&gt.tune.devk_lock);
    return d;
}
