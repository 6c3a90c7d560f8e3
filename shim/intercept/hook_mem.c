/* hook_mem.c: the application's allocations and frees.
 *
 * Each successful allocation that kernels can reach is recorded in the
 * memory tracker with its device address; each free removes it.  Pinned and
 * registered host memory is recorded at the address a kernel would use
 * (equal to the host address under unified addressing). */
#include "state.h"

static CUresult track(CUresult r, const CUdeviceptr *p, size_t size, enum gt_mem_kind kind)
{
    if (r == CUDA_SUCCESS && gt.mode != GT_MODE_OFF)
        gt_mem_add(&gt.track.mem, *p, size, kind);
    return r;
}

static CUresult untrack(CUresult r, CUdeviceptr p, size_t size)
{
    if (r == CUDA_SUCCESS && gt.mode != GT_MODE_OFF)
        gt_mem_remove(&gt.track.mem, p, size);
    return r;
}

/* Where kernels see host memory at `p`. */
static CUdeviceptr device_view(void *p)
{
    CUdeviceptr d = 0;
    if (gt.drv.cuMemHostGetDevicePointer_v2(&d, p, 0) != CUDA_SUCCESS)
        d = (CUdeviceptr)(uintptr_t)p;
    return d;
}

static CUresult track_host(CUresult r, void *p, size_t size, enum gt_mem_kind kind)
{
    if (r == CUDA_SUCCESS && gt.mode != GT_MODE_OFF)
        gt_mem_add(&gt.track.mem, device_view(p), size, kind);
    return r;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t size)
{
    GT_REQUIRE_DRIVER();
    return track(gt.drv.cuMemAlloc_v2(p, size), p, size, GT_MEM_DEVICE);
}

CUresult cuMemAllocPitch_v2(CUdeviceptr *p, size_t *pitch, size_t width, size_t height, unsigned elem)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuMemAllocPitch_v2(p, pitch, width, height, elem);
    return track(r, p, r == CUDA_SUCCESS ? *pitch * height : 0, GT_MEM_PITCH);
}

CUresult cuMemAllocManaged(CUdeviceptr *p, size_t size, unsigned flags)
{
    GT_REQUIRE_DRIVER();
    return track(gt.drv.cuMemAllocManaged(p, size, flags), p, size, GT_MEM_MANAGED);
}

CUresult cuMemAllocAsync(CUdeviceptr *p, size_t size, CUstream s)
{
    GT_REQUIRE_DRIVER();
    return track(gt.drv.cuMemAllocAsync(p, size, s), p, size, GT_MEM_ASYNC);
}

CUresult cuMemAllocAsync_ptsz(CUdeviceptr *p, size_t size, CUstream s)
{
    GT_REQUIRE_DRIVER();
    return track(gt.drv.cuMemAllocAsync_ptsz(p, size, s), p, size, GT_MEM_ASYNC);
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t size, CUmemoryPool pool, CUstream s)
{
    GT_REQUIRE_DRIVER();
    return track(gt.drv.cuMemAllocFromPoolAsync(p, size, pool, s), p, size, GT_MEM_POOL);
}

CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *p, size_t size, CUmemoryPool pool, CUstream s)
{
    GT_REQUIRE_DRIVER();
    return track(gt.drv.cuMemAllocFromPoolAsync_ptsz(p, size, pool, s), p, size, GT_MEM_POOL);
}

CUresult cuMemAllocHost_v2(void **pp, size_t size)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuMemAllocHost_v2(pp, size);
    return track_host(r, r == CUDA_SUCCESS ? *pp : NULL, size, GT_MEM_HOST);
}

CUresult cuMemHostAlloc(void **pp, size_t size, unsigned flags)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuMemHostAlloc(pp, size, flags);
    return track_host(r, r == CUDA_SUCCESS ? *pp : NULL, size, GT_MEM_HOST);
}

CUresult cuMemHostRegister_v2(void *p, size_t size, unsigned flags)
{
    GT_REQUIRE_DRIVER();
    return track_host(gt.drv.cuMemHostRegister_v2(p, size, flags), p, size, GT_MEM_REGISTERED);
}

CUresult cuMemMap(CUdeviceptr p, size_t size, size_t offset, CUmemGenericAllocationHandle h,
                  unsigned long long flags)
{
    GT_REQUIRE_DRIVER();
    return track(gt.drv.cuMemMap(p, size, offset, h, flags), &p, size, GT_MEM_MAPPED);
}

CUresult cuMemFree_v2(CUdeviceptr p)
{
    GT_REQUIRE_DRIVER();
    return untrack(gt.drv.cuMemFree_v2(p), p, 1);
}

CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s)
{
    GT_REQUIRE_DRIVER();
    return untrack(gt.drv.cuMemFreeAsync(p, s), p, 1);
}

CUresult cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream s)
{
    GT_REQUIRE_DRIVER();
    return untrack(gt.drv.cuMemFreeAsync_ptsz(p, s), p, 1);
}

CUresult cuMemUnmap(CUdeviceptr p, size_t size)
{
    GT_REQUIRE_DRIVER();
    return untrack(gt.drv.cuMemUnmap(p, size), p, size);
}

/* Host memory: its device view must be asked before it is released. */
CUresult cuMemFreeHost(void *p)
{
    GT_REQUIRE_DRIVER();
    CUdeviceptr d = device_view(p);
    return untrack(gt.drv.cuMemFreeHost(p), d, 1);
}

CUresult cuMemHostUnregister(void *p)
{
    GT_REQUIRE_DRIVER();
    CUdeviceptr d = device_view(p);
    return untrack(gt.drv.cuMemHostUnregister(p), d, 1);
}
