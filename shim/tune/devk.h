/* devk.h: the shim's own kernels, loaded once per context (see devk.c). */
#ifndef GT_DEVK_H
#define GT_DEVK_H

#include "driver.h"

enum gt_devk_fn {
    /* in the order of enum gt_compare */
    GT_DEVK_COMPARE_BITS, GT_DEVK_COMPARE_F32, GT_DEVK_COMPARE_F64, GT_DEVK_COMPARE_F16, GT_DEVK_COMPARE_BF16,
    GT_DEVK_COMPARE_POISON,
    GT_DEVK_ARM,
    GT_DEVK_N
};

struct gt_devk {
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn[GT_DEVK_N];
    CUdeviceptr result; /* two 64-bit words the comparisons write */
    struct gt_devk *next;
};

struct gt_devk *gt_devk_get(char *err, size_t errlen);

#endif
