/* poison.c: a reference that a candidate skipping its work cannot match.
 *
 * Candidates are checked against what the original computed from the saved
 * state.  When the application repeats a launch, its outputs already hold
 * that result before it runs, and a candidate that writes nothing (a macro
 * that makes the kernel skip its work, a trial cut short unnoticed)
 * matches.  After the reference run the session asks here:
 *
 *   - if some buffer's reference differs from its saved state (as the
 *     session's comparison tells them apart), a candidate that skips that
 *     work differs too: nothing more is needed;
 *   - else the buffers the kernel only writes are poisoned: those that
 *     launch arguments point into only through parameters the kernel never
 *     reads through (ptxreads.c, on the image's PTX), that hold no module
 *     variable and that no pointer in memory leads to.  Trials start from
 *     them filled with GT_SNAP_POISON (snapshot.c), and the original run
 *     once from there becomes the reference, once it is shown to compute
 *     what it computed from the saved state: the same in every other
 *     buffer, and in the poisoned ones wherever it did not leave the poison
 *     (else the analysis missed a read; that check is bitwise in the
 *     poisoned buffers whatever the session's comparison, so an output
 *     that varies from run to run fails it).  The saved state itself is
 *     never touched: the application's launch runs from it;
 *   - else (no PTX, nothing only written, or that check failed) only
 *     configurations that do not rebuild the kernel are tried, for those
 *     run the application's own code and cannot skip its work; with none
 *     in the space, the launch is not tuned.
 *
 * The cost: one comparison pass over the buffers, and where it finds
 * nothing changed, one more run of the original. */
#include "poison.h"
#include "alloc.h"
#include "imageptx.h"
#include "ptxreads.h"
#include "state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPEATED "its outputs already hold what it computes (the application repeats this launch)"

/* Per parameter, whether the kernel may read through it; 0, or -1 with why. */
static int param_reads(const struct gt_poison_run *run, unsigned np, unsigned char *reads, char *why, size_t len)
{
    struct gt_image_ptx *ptx;
    char err[256];
    if (gt_image_ptx_defining(run->k->image, run->p->arch.sm, run->k->name, &ptx, err, sizeof err) != 0) {
        snprintf(why, len, "its PTX is not at hand: %s", err);
        return -1;
    }
    int r = gt_ptxreads(ptx->text, ptx->size, run->k->name, np, reads, err, sizeof err);
    if (r != 0)
        snprintf(why, len, "its PTX cannot be read: %s", err);
    gt_image_ptx_free(ptx, 1);
    return r;
}

enum { WRITTEN = 1, READ = 2 };

/* The buffer a pointer points into, -1 if none.  One just past a buffer's
 * end counts (the kernel may index back) unless it is where another buffer
 * starts: the allocator often places buffers end to end, and the start of
 * one is then the end of the one before. */
static int pointee(const struct gt_snapshot *snap, uint64_t v)
{
    int end = -1;
    for (int b = 0; b < snap->n; b++) {
        if (v >= snap->v[b].base && v - snap->v[b].base < snap->v[b].size)
            return b;
        if (v >= snap->v[b].base && v - snap->v[b].base == snap->v[b].size)
            end = b;
    }
    return end;
}

/* Per buffer, how the launch's argument words that point into it are used
 * (WRITTEN | READ, 0: none does); -1 when an argument is not at hand. */
static int pointed(const struct gt_poison_run *run, unsigned np, const unsigned char *reads, unsigned char *by)
{
    const struct gt_snapshot *snap = run->snap;
    for (unsigned i = 0; i < np; i++) {
        const unsigned char *arg = gt_call_arg(run->c, run->k, (int)i);
        if (!arg)
            return -1;
        /* Every 4 bytes: a pointer in a packed struct need not be aligned. */
        for (uint32_t off = 0; off + 8 <= run->k->params[i].size; off += 4) {
            uint64_t v;
            memcpy(&v, arg + off, 8);
            int b = pointee(snap, v);
            if (b >= 0)
                by[b] |= reads[i] ? READ : WRITTEN;
        }
    }
    return 0;
}

/* Marks the buffers the kernel only writes poisoned: how many, 0 with why
 * when there are none. */
static int poison(const struct gt_poison_run *run, char *why, size_t len)
{
    struct gt_snapshot *snap = run->snap;
    int np = atomic_load(&run->k->nparams), n = 0, known = -1;
    if (np < 0) {
        snprintf(why, len, "its parameters are unknown");
        return 0;
    }
    unsigned char *reads = gt_calloc((size_t)np + 1, 1), *by = gt_calloc((size_t)snap->n + 1, 1);
    if (!reads || !by)
        snprintf(why, len, "out of memory");
    else if ((known = param_reads(run, (unsigned)np, reads, why, len)) == 0 &&
             (known = pointed(run, (unsigned)np, reads, by)) != 0)
        snprintf(why, len, "its arguments are not at hand");
    for (int b = 0; known == 0 && b < snap->n; b++) {
        snap->v[b].poisoned = by[b] == WRITTEN && !snap->v[b].indirect;
        n += snap->v[b].poisoned;
    }
    if (known == 0 && n == 0)
        snprintf(why, len, "none of its buffers is only written");
    free(reads);
    free(by);
    return n;
}

static void lift(struct gt_snapshot *snap)
{
    for (int b = 0; b < snap->n; b++)
        snap->v[b].poisoned = 0;
}

/* Runs the original from the poisoned state and, if it computes what it
 * computed from the saved state, keeps that as the reference.  1: it did;
 * 0: it did not (why), the poison lifted; -1: running or comparing failed. */
static int poisoned_reference(const struct gt_poison_run *run, char *why, size_t len)
{
    struct gt_diff d;
    CUresult r = run->before(run->arg, run->stream);
    if (r == CUDA_SUCCESS)
        r = run->launch(run->arg, run->stream);
    if (r == CUDA_SUCCESS)
        r = gt.drv.cuStreamSynchronize(run->stream);
    if (r != CUDA_SUCCESS) {
        snprintf(why, len, "the original launch fails from the poisoned state: %s", gt_cu_error(r));
        return -1;
    }
    if (gt_snapshot_compare_poisoned(run->snap, run->compare, run->abs_tol, run->rel_tol, run->stream, &d, why,
                                     len) != 0)
        return -1;
    if (d.buffer >= 0) {
        snprintf(why, len, "a run with the buffers it only writes poisoned computed another result (buffer %d, "
                 "%llu elements)", d.buffer, d.count);
        lift(run->snap);
        return 0;
    }
    if ((r = gt_snapshot_copy(run->snap, GT_SNAP_KEEP_REF, run->stream)) != CUDA_SUCCESS ||
        (r = gt.drv.cuStreamSynchronize(run->stream)) != CUDA_SUCCESS) {
        snprintf(why, len, "keeping the reference failed: %s", gt_cu_error(r));
        return -1;
    }
    return 1;
}

/* Whether some configuration keeps the kernel as built (gt_plan_knobs
 * decides) and differs from the original: one of launch-time knobs only. */
static int launch_knobs(const struct gt_plan *p)
{
    const struct gt_space *sp = p->space;
    uint32_t *cfg = gt_calloc(sp->ndims + 1, sizeof *cfg);
    int found = 0;
    for (size_t d = 0; cfg && d < sp->ndims && !found; d++) {
        for (size_t v = 0; v < sp->dims[d].n && !found; v++) {
            struct gt_knobs k;
            int rebuild;
            gt_space_default(sp, cfg);
            cfg[d] = (uint32_t)v;
            gt_plan_knobs(p, cfg, &k, &rebuild);
            found = v != sp->dims[d].def && !rebuild;
        }
    }
    free(cfg);
    return found;
}

/* Describes what is poisoned, at debug level. */
static void describe(const struct gt_poison_run *run, int n)
{
    size_t bytes = 0;
    for (int b = 0; b < run->snap->n; b++)
        bytes += run->snap->v[b].poisoned ? run->snap->v[b].size : 0;
    gt_debug("kernel %s: launch %s: %s; trials start from the %d buffer%s it only writes (%.1f MiB) filled with "
             "0x%02x bytes, so that a candidate that skips its work computes another result",
             run->p->shown, run->signature, REPEATED, n, n == 1 ? "" : "s", bytes / 1048576.0, GT_SNAP_POISON);
}

enum gt_poison_verdict gt_poison_reference(const struct gt_poison_run *run, char *why, size_t len)
{
    struct gt_diff d;
    char cause[512] = "";
    if (gt_snapshot_changed(run->snap, run->compare, run->abs_tol, run->rel_tol, run->stream, &d, why, len) != 0)
        return GT_POISON_FAILED;
    if (d.buffer >= 0)
        return GT_POISON_CHECKED;
    int n = poison(run, cause, sizeof cause);
    int rc = n > 0 ? poisoned_reference(run, cause, sizeof cause) : 0;
    if (rc < 0) {
        lift(run->snap);
        snprintf(why, len, "%s", cause);
        return GT_POISON_FAILED;
    }
    if (rc > 0) {
        describe(run, n);
        return GT_POISON_CHECKED;
    }
    if (!launch_knobs(run->p)) {
        snprintf(why, len, REPEATED " and %s, so a candidate that skipped its work would pass, and every "
                 "configuration of its space rebuilds it", cause);
        return GT_POISON_UNTUNED;
    }
    gt_info("kernel %s: launch %s: " REPEATED " and %s, so a candidate that skipped its work would pass; only "
            "launch-time knobs are tried", run->p->shown, run->signature, cause);
    return GT_POISON_LAUNCH_ONLY;
}
