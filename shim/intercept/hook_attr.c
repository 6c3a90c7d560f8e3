/* hook_attr.c: what the application sets on functions and kernels.
 *
 * Cache preference, shared-memory limits and other attributes the
 * application sets must follow a kernel to any variant that replaces it
 * (a variant without the raised dynamic shared-memory limit would fail to
 * launch).  The hooks remember each successful setting in the registry. */
#include "registry.h"
#include "state.h"

static CUresult noted(CUresult r, void *h, int attr, int value, int device)
{
    if (r == CUDA_SUCCESS && gt.mode != GT_MODE_OFF)
        gt_reg_note_setting(h, attr, value, device);
    return r;
}

CUresult cuFuncSetCacheConfig(CUfunction f, CUfunc_cache config)
{
    GT_REQUIRE_DRIVER();
    return noted(gt.drv.cuFuncSetCacheConfig(f, config), f, GT_SET_CACHE_CONFIG, (int)config, -1);
}

CUresult cuFuncSetSharedMemConfig(CUfunction f, CUsharedconfig config)
{
    GT_REQUIRE_DRIVER();
    return noted(gt.drv.cuFuncSetSharedMemConfig(f, config), f, GT_SET_SHMEM_CONFIG, (int)config, -1);
}

CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute attr, int value)
{
    GT_REQUIRE_DRIVER();
    return noted(gt.drv.cuFuncSetAttribute(f, attr, value), f, (int)attr, value, -1);
}

CUresult cuKernelSetCacheConfig(CUkernel k, CUfunc_cache config, CUdevice dev)
{
    GT_REQUIRE_DRIVER();
    return noted(gt.drv.cuKernelSetCacheConfig(k, config, dev), k, GT_SET_CACHE_CONFIG, (int)config, dev);
}

CUresult cuKernelSetAttribute(CUfunction_attribute attr, int value, CUkernel k, CUdevice dev)
{
    GT_REQUIRE_DRIVER();
    return noted(gt.drv.cuKernelSetAttribute(attr, value, k, dev), k, (int)attr, value, dev);
}
