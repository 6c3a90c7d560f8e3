/* hook_launch.c: kernel launches.
 *
 * Every launch entry point, with its per-thread-stream twin, describes the
 * launch as a gt_call and hands it to launch(): a kernel with a
 * configuration to apply runs its variant (apply.c), and in tune mode a
 * launch not yet tuned starts a session (session.c); any other runs as the
 * application asked.  Only launches the driver accepted are counted (for
 * the exit report, at info, and only then), so the application's errors
 * reach it unchanged.  Cooperative launches and
 * launches into a capturing stream are counted and marked; the first never
 * run a variant, the second only one already settled (apply.c).  While the
 * application has suspended the shim (gputune_suspend), a launch runs as
 * asked and is neither counted nor timed, as in off mode, except that it
 * still waits for another thread's session, whose buffers it could touch. */
#include "apply.h"
#include "busy.h"
#include "capture.h"
#include "clock.h"
#include "direct.h"
#include "log.h"
#include "session.h"
#include "state.h"
#include "suspend.h"

/* A launch of the original: its handle adopted where no hook saw it made,
 * so that later launches find its plan; counted for the exit report, which
 * only info shows, so that below it such a launch costs its lookup alone
 * (the counters are shared by every thread that launches the kernel). */
static void note(struct gt_handle *hd, const struct gt_call *c, unsigned flags)
{
    if (!hd && !(hd = gt_reg_adopt(c->f)))
        return;
    if (!gt_log_enabled(GT_LOG_INFO))
        return;
    if (gt_capture_is_on(c->s, gt_call_per_thread(c)))
        flags |= GT_LAUNCH_CAPTURED;
    gt_reg_note_launch(hd, &c->g, c->entry, flags);
}

static CUresult watched(const struct gt_call *c, unsigned flags)
{
    struct gt_handle *hd = gt_reg_lookup(c->f);
    CUresult r;
    if (gt_suspended()) {
        if (hd) /* a configuration may have left its cache preference on the function */
            gt_direct_restore(hd);
        return gt_call_launch(c, c->f, &c->g);
    }
    if (hd && !(flags & GT_LAUNCH_COOPERATIVE) && gt_apply_launch(hd, c, &r))
        return r;
    r = gt_call_launch(c, c->f, &c->g);
    if (r == CUDA_SUCCESS)
        note(hd, c, flags);
    return r;
}

/* Every launch in the shim's path, counted on the thread's own slot: what
 * the guard weighs the applied configurations' gain against at exit.
 * Which sample this launch is: SAMPLE_PATH (its path timed), SAMPLE_BUSY
 * (its stream asked whether the device is behind, half a period later, so
 * that the query is in no timed path), or neither. */
enum { SAMPLE_NONE, SAMPLE_PATH, SAMPLE_BUSY };

static int count(void)
{
    static _Thread_local struct gt_tally_slot *mine;
    if (!mine && !(mine = gt_tally_join(&gt.run.launches)))
        return SAMPLE_NONE;
    gt_tally_add(mine);
    unsigned long phase = atomic_load_explicit(&mine->n, memory_order_relaxed) & (GT_PATHCOST_EVERY - 1);
    return phase == 0 ? SAMPLE_PATH : phase == GT_PATHCOST_EVERY / 2 ? SAMPLE_BUSY : SAMPLE_NONE;
}

/* In the modes that run sessions every launch waits while another thread
 * runs one. */
static CUresult through(const struct gt_call *c, unsigned flags)
{
    if (!gt_session_mode())
        return watched(c, flags);
    gt_session_enter();
    CUresult r = watched(c, flags);
    gt_session_leave();
    return r;
}

/* A sampled launch: the path's time less the driver's launch in it, which
 * the application pays without the shim too (base/pathcost.c). */
static CUresult timed(const struct gt_call *c, unsigned flags)
{
    uint64_t in_driver = 0;
    struct gt_call t = *c;
    t.in_driver = &in_driver;
    gt_pathcost_begin();
    uint64_t t0 = gt_clock_ns();
    CUresult r = through(&t, flags);
    gt_pathcost_add(&gt.run.path, gt_clock_ns() - t0, in_driver);
    return r;
}

static CUresult launch(const struct gt_call *c, unsigned flags)
{
    if (gt.mode == GT_MODE_OFF || gt_apply_idle())
        return gt_call_launch(c, c->f, &c->g);
    int sample = count();
    if (sample == SAMPLE_PATH)
        return timed(c, flags);
    if (sample == SAMPLE_BUSY && gt.run.guard)
        gt_busy_probe(c);
    return through(c, flags);
}

static CUresult launch_plain(PFN_cuLaunchKernel_v4000 real, enum gt_entry e, CUfunction f, unsigned gx, unsigned gy,
                             unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem, CUstream s,
                             void **params, void **extra)
{
    struct gt_call c = {.entry = e, .real.plain = real, .f = f, .g = {{gx, gy, gz}, {bx, by, bz}, smem}, .s = s,
                        .params = params, .extra = extra};
    return launch(&c, 0);
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned smem, CUstream s, void **params, void **extra)
{
    GT_REQUIRE_DRIVER();
    return launch_plain(gt.drv.cuLaunchKernel, GT_ENTRY_LAUNCH, f, gx, gy, gz, bx, by, bz, smem, s, params, extra);
}

CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned smem, CUstream s, void **params, void **extra)
{
    GT_REQUIRE_DRIVER();
    return launch_plain(gt.drv.cuLaunchKernel_ptsz, GT_ENTRY_LAUNCH_PTSZ, f, gx, gy, gz, bx, by, bz, smem, s, params,
                        extra);
}

static int is_cooperative(const CUlaunchConfig *c)
{
    for (unsigned i = 0; i < c->numAttrs; i++)
        if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && c->attrs[i].value.cooperative)
            return 1;
    return 0;
}

static CUresult launch_ex(PFN_cuLaunchKernelEx_v11060 real, enum gt_entry e, const CUlaunchConfig *cfg,
                          CUfunction f, void **params, void **extra)
{
    struct gt_call c = {.entry = e, .real.ex = real, .f = f, .s = cfg->hStream, .params = params, .extra = extra,
                        .config = cfg,
                        .g = {{cfg->gridDimX, cfg->gridDimY, cfg->gridDimZ},
                              {cfg->blockDimX, cfg->blockDimY, cfg->blockDimZ}, cfg->sharedMemBytes}};
    return launch(&c, is_cooperative(cfg) ? GT_LAUNCH_COOPERATIVE : 0);
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *cfg, CUfunction f, void **params, void **extra)
{
    GT_REQUIRE_DRIVER();
    return launch_ex(gt.drv.cuLaunchKernelEx, GT_ENTRY_EX, cfg, f, params, extra);
}

CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *cfg, CUfunction f, void **params, void **extra)
{
    GT_REQUIRE_DRIVER();
    return launch_ex(gt.drv.cuLaunchKernelEx_ptsz, GT_ENTRY_EX_PTSZ, cfg, f, params, extra);
}

static CUresult launch_coop(PFN_cuLaunchCooperativeKernel_v9000 real, enum gt_entry e, CUfunction f, unsigned gx,
                            unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem,
                            CUstream s, void **params)
{
    struct gt_call c = {.entry = e, .real.coop = real, .f = f, .g = {{gx, gy, gz}, {bx, by, bz}, smem}, .s = s,
                        .params = params};
    return launch(&c, GT_LAUNCH_COOPERATIVE);
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                   unsigned by, unsigned bz, unsigned smem, CUstream s, void **params)
{
    GT_REQUIRE_DRIVER();
    return launch_coop(gt.drv.cuLaunchCooperativeKernel, GT_ENTRY_COOP, f, gx, gy, gz, bx, by, bz, smem, s, params);
}

CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                        unsigned by, unsigned bz, unsigned smem, CUstream s, void **params)
{
    GT_REQUIRE_DRIVER();
    return launch_coop(gt.drv.cuLaunchCooperativeKernel_ptsz, GT_ENTRY_COOP_PTSZ, f, gx, gy, gz, bx, by, bz, smem,
                       s, params);
}
