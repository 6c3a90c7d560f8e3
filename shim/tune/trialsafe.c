/* trialsafe.c: whether trials may repeat a kernel.
 *
 * A tuning session runs a kernel many times where the application launched
 * it once.  A kernel that prints, asserts or uses the device heap would do
 * that again at every run (sidefx.c finds which do), so tune mode leaves it
 * alone unless its policy says side_effects = allow.  Run mode and
 * GPUTUNE_FORCE run one variant per launch, as often as the application
 * does: this holds for trials only. */
#include "trialsafe.h"
#include "log.h"
#include "sidefx.h"

/* 1 when tune mode may tune the plan's kernel; says once why not. */
int gt_trialsafe(const struct gt_plan *p)
{
    const struct gt_settings *st = gt_plan_settings(p);
    if (st && st->side_effects == GT_SIDE_EFFECTS_ALLOW)
        return 1;
    const struct gt_image *img = p->k->image;
    size_t size = 0;
    const unsigned char *code = img ? gt_image_code(img, &size) : NULL;
    unsigned found = 0;
    char why[256] = "the shim does not hold its code";
    if (!code || gt_sidefx(code, size, p->k->name, p->arch.sm, &found, why, sizeof why) != 0) {
        gt_info("kernel %s: cannot tell whether it prints, asserts or allocates (%s); tuning it as any other",
                p->shown, why);
        return 1;
    }
    if (!found)
        return 1;
    char what[256];
    gt_sidefx_describe(found, what, sizeof what);
    gt_info("kernel %s: not tuned: it calls %s, which every trial would repeat; side_effects = allow in its policy "
            "tunes it anyway", p->shown, what);
    return 0;
}
