/* plot.h: a tuned signature's convergence as an SVG picture (see plot.c). */
#ifndef GT_PLOT_H
#define GT_PLOT_H

#include "strategy.h"

#include <stddef.h>
#include <stdint.h>

/* A session's trials, in order. */
struct gt_plot {
    struct gt_plot_trial {
        double us;                   /* its time; how long it ran when cut short; < 0: none */
        enum gt_trial_status status;
    } *v;
    size_t n, cap;
};

/* What names a picture: the title, and key (of kernel, image and signature)
 * keeping apart files whose titles would make the same name. */
struct gt_plot_title {
    const char *kernel, *signature;
    uint64_t key;
    double baseline_us;              /* the original's time */
};

void gt_plot_add(struct gt_plot *pl, enum gt_trial_status st, double us);
void gt_plot_free(struct gt_plot *pl);
int gt_plot_save(const char *dir, const struct gt_plot_title *t, const struct gt_plot *pl, char *path, size_t cap,
                 char *err, size_t errlen);

#endif
