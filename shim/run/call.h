/* call.h: one launch as the application made it (see call.c). */
#ifndef GT_CALL_H
#define GT_CALL_H

#include "driver.h"
#include "registry.h"

/* One launch as the application made it, through whichever entry point. */
struct gt_call {
    enum gt_entry entry;
    union {
        PFN_cuLaunchKernel_v4000 plain;
        PFN_cuLaunchKernelEx_v11060 ex;
        PFN_cuLaunchCooperativeKernel_v9000 coop;
    } real;
    CUfunction f;
    struct gt_geom g;
    CUstream s;
    void **params, **extra;
    const CUlaunchConfig *config; /* cuLaunchKernelEx's */
    uint64_t *in_driver;          /* where set, the ns of its launches in the driver are added here */
};

CUresult gt_call_launch(const struct gt_call *c, CUfunction f, const struct gt_geom *g);
int gt_call_per_thread(const struct gt_call *c);
const unsigned char *gt_call_arg(const struct gt_call *c, const struct gt_kernel *k, int i);

#endif
