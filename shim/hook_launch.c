/* hook_launch.c: kernel launches.
 *
 * Every launch entry point, with its per-thread-stream twin, funnels into
 * one function per signature.  The launch goes to the driver first; only a
 * launch the driver accepted is counted, so the application's errors reach
 * it unchanged.  Cooperative launches and launches into a capturing stream
 * are counted and marked, and will never be tuned. */
#include "state.h"

static void note(CUfunction f, const struct gt_geom *g, CUstream s, enum gt_entry e, unsigned flags)
{
    struct gt_handle *hd = gt_reg_lookup(f);
    if (!hd && !(hd = gt_reg_adopt(f)))
        return;
    int per_thread = e == GT_ENTRY_LAUNCH_PTSZ || e == GT_ENTRY_EX_PTSZ || e == GT_ENTRY_COOP_PTSZ;
    if (gt_capture_is_on(s, per_thread))
        flags |= GT_LAUNCH_CAPTURED;
    gt_reg_note_launch(hd, g, e, flags);
}

static CUresult launch(PFN_cuLaunchKernel_v4000 const *real, enum gt_entry e, CUfunction f,
                       unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                       unsigned smem, CUstream s, void **params, void **extra)
{
    GT_REQUIRE_DRIVER();
    CUresult r = (*real)(f, gx, gy, gz, bx, by, bz, smem, s, params, extra);
    if (r == CUDA_SUCCESS && gt.mode != GT_MODE_OFF)
        note(f, &(struct gt_geom){{gx, gy, gz}, {bx, by, bz}, smem}, s, e, 0);
    return r;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned smem, CUstream s, void **params, void **extra)
{
    return launch(&gt.drv.cuLaunchKernel, GT_ENTRY_LAUNCH, f, gx, gy, gz, bx, by, bz, smem, s, params, extra);
}

CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned smem, CUstream s, void **params, void **extra)
{
    return launch(&gt.drv.cuLaunchKernel_ptsz, GT_ENTRY_LAUNCH_PTSZ, f, gx, gy, gz, bx, by, bz, smem, s,
                  params, extra);
}

static int is_cooperative(const CUlaunchConfig *c)
{
    for (unsigned i = 0; i < c->numAttrs; i++)
        if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && c->attrs[i].value.cooperative)
            return 1;
    return 0;
}

static CUresult launch_ex(PFN_cuLaunchKernelEx_v11060 const *real, enum gt_entry e, const CUlaunchConfig *c,
                          CUfunction f, void **params, void **extra)
{
    GT_REQUIRE_DRIVER();
    CUresult r = (*real)(c, f, params, extra);
    if (r == CUDA_SUCCESS && gt.mode != GT_MODE_OFF) {
        struct gt_geom g = {{c->gridDimX, c->gridDimY, c->gridDimZ},
                            {c->blockDimX, c->blockDimY, c->blockDimZ}, c->sharedMemBytes};
        note(f, &g, c->hStream, e, is_cooperative(c) ? GT_LAUNCH_COOPERATIVE : 0);
    }
    return r;
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **params, void **extra)
{
    return launch_ex(&gt.drv.cuLaunchKernelEx, GT_ENTRY_EX, c, f, params, extra);
}

CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction f, void **params, void **extra)
{
    return launch_ex(&gt.drv.cuLaunchKernelEx_ptsz, GT_ENTRY_EX_PTSZ, c, f, params, extra);
}

static CUresult launch_coop(PFN_cuLaunchCooperativeKernel_v9000 const *real, enum gt_entry e, CUfunction f,
                            unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned smem, CUstream s, void **params)
{
    GT_REQUIRE_DRIVER();
    CUresult r = (*real)(f, gx, gy, gz, bx, by, bz, smem, s, params);
    if (r == CUDA_SUCCESS && gt.mode != GT_MODE_OFF)
        note(f, &(struct gt_geom){{gx, gy, gz}, {bx, by, bz}, smem}, s, e, GT_LAUNCH_COOPERATIVE);
    return r;
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                   unsigned by, unsigned bz, unsigned smem, CUstream s, void **params)
{
    return launch_coop(&gt.drv.cuLaunchCooperativeKernel, GT_ENTRY_COOP, f, gx, gy, gz, bx, by, bz, smem, s,
                       params);
}

CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                        unsigned by, unsigned bz, unsigned smem, CUstream s, void **params)
{
    return launch_coop(&gt.drv.cuLaunchCooperativeKernel_ptsz, GT_ENTRY_COOP_PTSZ, f, gx, gy, gz, bx, by, bz,
                       smem, s, params);
}
