/* snapshot.h: what a launch may write, saved and restored around trials (see snapshot.c). */
#ifndef GT_SNAPSHOT_H
#define GT_SNAPSHOT_H

#include "driver.h"

#include <stddef.h>

struct gt_buffer {
    CUdeviceptr base;
    size_t size;
    CUdeviceptr save; /* the state before the launch */
    CUdeviceptr ref;  /* the reference output */
    int indirect;     /* holds a module variable or memory a pointer in memory leads to: never poisoned */
    int poisoned;     /* trials start from it filled with GT_SNAP_POISON, not from its saved state */
};

struct gt_snapshot {
    struct gt_buffer *v;
    int n, cap;
    size_t bytes;
    int on_host;       /* copies live in pinned host memory, mapped for the GPU */
    void *host;        /* that memory */
    CUdeviceptr dev;   /* or this device memory */
};

/* Where the first difference of a comparison is. */
struct gt_diff {
    int buffer;                /* -1: none */
    unsigned long long index;  /* element within it */
    unsigned long long count;  /* elements that differ in it */
};

/* POISON: bitwise, except that bytes of the output still holding GT_SNAP_POISON pass. */
enum gt_compare { GT_COMPARE_BITS, GT_COMPARE_F32, GT_COMPARE_F64, GT_COMPARE_F16, GT_COMPARE_BF16, GT_COMPARE_POISON };

int gt_snapshot_add(struct gt_snapshot *s, CUdeviceptr base, size_t size, int indirect);
int gt_snapshot_alloc(struct gt_snapshot *s, char *err, size_t errlen);
CUresult gt_snapshot_copy(const struct gt_snapshot *s, int what, CUstream stream);
int gt_snapshot_compare(const struct gt_snapshot *s, enum gt_compare how, double abs_tol, double rel_tol,
                        CUstream stream, struct gt_diff *d, char *err, size_t errlen);
int gt_snapshot_changed(const struct gt_snapshot *s, enum gt_compare how, double abs_tol, double rel_tol,
                        CUstream stream, struct gt_diff *d, char *err, size_t errlen);
int gt_snapshot_compare_poisoned(const struct gt_snapshot *s, enum gt_compare how, double abs_tol, double rel_tol,
                                 CUstream stream, struct gt_diff *d, char *err, size_t errlen);
void gt_snapshot_free(struct gt_snapshot *s);

/* What gt_snapshot_copy copies. */
#define GT_SNAP_SAVE 0    /* the buffers into their saved state */
#define GT_SNAP_RESTORE 1 /* the saved state back into the buffers */
#define GT_SNAP_KEEP_REF 2 /* the buffers into the reference */
#define GT_SNAP_TRIAL 3   /* as RESTORE, but poisoned buffers filled with GT_SNAP_POISON: where trials start */

/* What poisoned buffers are filled with: a NaN in every float type. */
#define GT_SNAP_POISON 0xff

#endif
