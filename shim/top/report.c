/* report.c: what the shim tells the user at exit.
 *
 * At `info`, one table: every kernel the application launched, with how
 * often, in how many distinct launch geometries, where its code came from
 * and whether PTX (needed for most tuning) was there.  At `debug`, a line
 * per kernel with the details tests and bug reports need: handle kinds,
 * entry points, parameter layout, captured and cooperative launches. */
#include "alloc.h"
#include "apply.h"
#include "graphs.h"
#include "budget.h"
#include "cachewrite.h"
#include "demangle.h"
#include "state.h"
#include "interpose.h"
#include "report.h"
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long total_launches(struct gt_kernel *k)
{
    return gt_reg_launches(k, -1, -1);
}

static int by_launches(const void *a, const void *b)
{
    struct gt_kernel *x = *(struct gt_kernel *const *)a, *y = *(struct gt_kernel *const *)b;
    unsigned long nx = total_launches(x), ny = total_launches(y);
    if (nx != ny)
        return nx < ny ? 1 : -1;
    return strcmp(x->name, y->name);
}

static void describe_ptx(const struct gt_image *img, char *out, size_t cap)
{
    if (!img || !img->bytes)
        snprintf(out, cap, "unknown");
    else if (img->ptx_arch)
        snprintf(out, cap, "compute_%d%s", img->ptx_arch, img->sibling_ptx ? "+triton" : "");
    else
        snprintf(out, cap, "none");
}

static void describe_origin(const struct gt_image *img, char *out, size_t cap)
{
    if (!img)
        snprintf(out, cap, "unknown");
    else
        snprintf(out, cap, "%s:%s", gt_origin_name(img->origin), gt_format_name(img->format));
}

static void detail(struct gt_kernel *k, const char *shown)
{
    char buf[2048];
    size_t n = 0;
    n += (size_t)snprintf(buf + n, sizeof buf - n, "kernel %s: via CUfunction=%lu CUkernel=%lu;", shown,
                          gt_reg_launches(k, -1, GT_HANDLE_FUNCTION), gt_reg_launches(k, -1, GT_HANDLE_KERNEL));
    for (int e = 0; e < GT_NENTRIES && n < sizeof buf; e++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, " %s=%lu", gt_reg_entry_name(e), gt_reg_launches(k, e, -1));
    pthread_mutex_lock(&k->lock);
    int np = atomic_load(&k->nparams);
    if (n < sizeof buf)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "; captured=%lu cooperative=%lu applied=%lu nodes=%lu; params=%d",
                              atomic_load(&k->captured), atomic_load(&k->cooperative), atomic_load(&k->applied),
                              atomic_load(&k->nodes), np < 0 ? 0 : np);
    for (int i = 0; i < np && n < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%u:%u", i ? "," : " [", k->params[i].offset,
                              k->params[i].size);
    if (np > 0 && n < sizeof buf)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "]");
    for (size_t i = 0; i < k->ngeoms && i < 8 && n < sizeof buf; i++) {
        const struct gt_geom *g = &k->geoms[i];
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s(%u,%u,%u)x(%u,%u,%u)+%u", i ? " " : "; geometries ",
                              g->grid[0], g->grid[1], g->grid[2], g->block[0], g->block[1], g->block[2], g->smem);
    }
    pthread_mutex_unlock(&k->lock);
    gt_debug("%s", buf);
}

/* How many launched kernels tune mode can rebuild from source, from PTX,
 * or not at all. */
static void code_summary(struct gt_kernel **ks, size_t n)
{
    size_t source = 0, ptx = 0, sass = 0;
    for (size_t i = 0; i < n; i++) {
        const struct gt_image *img = ks[i]->image;
        source += img && img->nvrtc;
        ptx += img && !img->nvrtc && img->ptx_arch;
        sass += !img || (!img->nvrtc && !img->ptx_arch);
    }
    gt_info("kernels launched: %zu with source (NVRTC), %zu with PTX, %zu SASS only (or unknown)", source, ptx, sass);
}

static void table(struct gt_kernel **ks, size_t n)
{
    gt_info("  %10s  %10s  %-16s  %-10s  %s", "launches", "geometries", "origin", "ptx", "kernel");
    for (size_t i = 0; i < n; i++) {
        struct gt_kernel *k = ks[i];
        char origin[64], ptx[32];
        describe_origin(k->image, origin, sizeof origin);
        describe_ptx(k->image, ptx, sizeof ptx);
        char *shown = gt_demangle(k->name);
        pthread_mutex_lock(&k->lock);
        size_t ngeoms = k->ngeoms;
        pthread_mutex_unlock(&k->lock);
        gt_info("  %10lu  %10zu  %-16s  %-10s  %s", total_launches(k), ngeoms, origin, ptx, shown ? shown : k->name);
        if (gt_log_enabled(GT_LOG_DEBUG))
            detail(k, shown ? shown : k->name);
        free(shown);
    }
}

void gt_report_exit(void)
{
    if (gt.mode == GT_MODE_OFF || atomic_load(&gt.drv.status) <= 0)
        return;
    gt_session_report();
    gt_budget_exit();
    gt_apply_exit();
    gt_graphs_exit();
    if (gt.run.cache_path[0])
        gt_cachewrite_exit(gt.run.cache_path, gt.run.binary);
    if (!gt_log_enabled(GT_LOG_INFO))
        return;
    pthread_mutex_lock(&gt.track.reg.lock);
    size_t n = 0, launched = 0;
    struct gt_kernel **ks = gt_malloc((gt.track.reg.nkernels + 1) * sizeof *ks);
    for (struct gt_kernel *k = gt.track.reg.kernels; ks && k; k = k->next, n++)
        ks[n] = k;
    size_t nimages = gt.track.reg.nimages;
    pthread_mutex_unlock(&gt.track.reg.lock);
    if (!ks)
        return;
    qsort(ks, n, sizeof *ks, by_launches);
    while (launched < n && total_launches(ks[launched]) > 0)
        launched++;
    gt_info("mode %s: %zu kernels launched, %zu more looked up but not launched, from %zu images",
            gt_mode_name(gt.mode), launched, n - launched, nimages);
    table(ks, gt_log_enabled(GT_LOG_DEBUG) ? n : launched);
    code_summary(ks, launched);
    gt_info("memory: %zu allocations tracked at exit, peak %.1f MiB", gt.track.mem.count,
            (double)gt.track.mem.peak_bytes / (1 << 20));
    gt_interpose_report();
    free(ks);
}
