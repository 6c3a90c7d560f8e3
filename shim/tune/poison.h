/* poison.h: a reference that a candidate skipping its work cannot match (see poison.c). */
#ifndef GT_POISON_H
#define GT_POISON_H

#include "plan.h"
#include "snapshot.h"
#include "timing.h"

/* What a session lends the check: its launch, its snapshot (saved, the
 * reference taken) and how it runs the original from where trials start. */
struct gt_poison_run {
    const struct gt_plan *p;
    const struct gt_kernel *k;
    const struct gt_call *c;   /* the application's launch */
    const char *signature;
    struct gt_snapshot *snap;
    CUstream stream;
    gt_trial_fn before, launch; /* one run of the original: restore, then launch */
    void *arg;
    enum gt_compare compare;   /* how candidates are compared */
    double abs_tol, rel_tol;
};

/* The outcome: candidates can be checked; only configurations that do not
 * rebuild the kernel may be tried (said at info); the launch is not worth
 * tuning (why says so); running or comparing failed (why says so). */
enum gt_poison_verdict { GT_POISON_CHECKED, GT_POISON_LAUNCH_ONLY, GT_POISON_UNTUNED, GT_POISON_FAILED };

enum gt_poison_verdict gt_poison_reference(const struct gt_poison_run *run, char *why, size_t len);

#endif
