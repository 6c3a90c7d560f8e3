/* snapshot.c: what a launch may write, saved and restored around trials.
 *
 * A trial runs a candidate on the application's own buffers, so before the
 * first one the shim saves every buffer the launch can reach, restores it
 * before each candidate and once more before the launch that counts, and
 * keeps the original's output as the reference each candidate must match.
 * The copies take spare device memory when there is plenty (a margin is
 * always left for the application, whose own allocations must never fail
 * for a snapshot), else pinned host memory mapped for the GPU, else the
 * launch is not tuned.  Comparisons run on the GPU (devk.c).
 *
 * Where a launch's output already holds what it computes, buffers the
 * kernel only writes may be poisoned (poison.c): trials then start from
 * them filled with GT_SNAP_POISON while their saved state stays as it was,
 * for the application. */
#include "snapshot.h"
#include "alloc.h"
#include "devk.h"
#include "state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Device memory a snapshot leaves free: an eighth of the device, at least 1 GiB. */
#define MARGIN(total) ((total) / 8 > ((size_t)1 << 30) ? (total) / 8 : ((size_t)1 << 30))

#define ALIGN(x) (((x) + 255) & ~(size_t)255)

/* Adds [base, base+size), merging it with buffers it overlaps; indirect:
 * see struct gt_buffer. */
int gt_snapshot_add(struct gt_snapshot *s, CUdeviceptr base, size_t size, int indirect)
{
    for (int i = 0; i < s->n; i++) {
        struct gt_buffer *b = &s->v[i];
        if (base < b->base + b->size && b->base < base + size) {
            CUdeviceptr lo = base < b->base ? base : b->base;
            CUdeviceptr hi = base + size > b->base + b->size ? base + size : b->base + b->size;
            s->bytes += (hi - lo) - b->size;
            b->base = lo;
            b->size = hi - lo;
            b->indirect |= indirect;
            return 0;
        }
    }
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 8;
        struct gt_buffer *v = gt_realloc(s->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = (struct gt_buffer){.base = base, .size = size, .indirect = indirect};
    s->bytes += size;
    return 0;
}

/* Room for a saved copy and a reference of every buffer. */
int gt_snapshot_alloc(struct gt_snapshot *s, char *err, size_t errlen)
{
    size_t need = 0, free_b = 0, total = 0;
    for (int i = 0; i < s->n; i++)
        need += 2 * ALIGN(s->v[i].size);
    if (need == 0)
        return 0;
    CUresult r = CUDA_ERROR_OUT_OF_MEMORY;
    if (gt.drv.cuMemGetInfo_v2(&free_b, &total) == CUDA_SUCCESS && free_b > need + MARGIN(total))
        r = gt.drv.cuMemAlloc_v2(&s->dev, need);
    if (r != CUDA_SUCCESS) {
        s->dev = 0;
        r = gt.drv.cuMemHostAlloc(&s->host, need, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
        if (r == CUDA_SUCCESS && gt.drv.cuMemHostGetDevicePointer_v2(&s->dev, s->host, 0) != CUDA_SUCCESS) {
            gt.drv.cuMemFreeHost(s->host);
            s->host = NULL;
            r = CUDA_ERROR_OUT_OF_MEMORY;
        }
        s->on_host = r == CUDA_SUCCESS;
    }
    if (r != CUDA_SUCCESS) {
        snprintf(err, errlen, "a snapshot of %.1f MiB fits neither in spare device memory (%.1f MiB free) nor in "
                 "pinned host memory", need / 1048576.0, free_b / 1048576.0);
        return -1;
    }
    CUdeviceptr at = s->dev;
    for (int i = 0; i < s->n; i++) {
        s->v[i].save = at;
        s->v[i].ref = at + ALIGN(s->v[i].size);
        at += 2 * ALIGN(s->v[i].size);
    }
    return 0;
}

CUresult gt_snapshot_copy(const struct gt_snapshot *s, int what, CUstream stream)
{
    CUresult r = CUDA_SUCCESS;
    for (int i = 0; i < s->n && r == CUDA_SUCCESS; i++) {
        const struct gt_buffer *b = &s->v[i];
        int back = what == GT_SNAP_RESTORE || what == GT_SNAP_TRIAL;
        CUdeviceptr dst = what == GT_SNAP_SAVE ? b->save : back ? b->base : b->ref;
        CUdeviceptr src = back ? b->save : b->base;
        if (what == GT_SNAP_TRIAL && b->poisoned)
            r = gt.drv.cuMemsetD8Async(b->base, GT_SNAP_POISON, b->size, stream);
        else
            r = gt.drv.cuMemcpyDtoDAsync_v2(dst, src, b->size, stream);
    }
    return r;
}

static const size_t elem_size[] = {8, 4, 8, 2, 2, 8};

/* Whether the last bytes, too few for an element, differ as `how` counts. */
static int tail_differs(const unsigned char *x, const unsigned char *y, size_t n, enum gt_compare how)
{
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i] && !(how == GT_COMPARE_POISON && x[i] == GT_SNAP_POISON))
            return 1;
    return 0;
}

/* Compares `size` bytes at got with the reference at ref; 0 with the result
 * in out: the first element that differs (~0 when none) and how many do. */
static CUresult compare_one(struct gt_devk *d, CUdeviceptr got, CUdeviceptr ref, size_t size, enum gt_compare how,
                            double abs_tol, double rel_tol, CUstream stream, unsigned long long out[2])
{
    size_t es = elem_size[how];
    unsigned long long n = size / es;
    unsigned long long init[2] = {~0ull, 0};
    CUresult r = gt.drv.cuMemsetD8_v2(d->result, 0xff, sizeof(unsigned long long));
    if (r == CUDA_SUCCESS)
        r = gt.drv.cuMemsetD8_v2(d->result + 8, 0, sizeof(unsigned long long));
    CUdeviceptr first = d->result, count = d->result + 8;
    void *bits_args[] = {&got, &ref, &n, &first, &count};
    void *tol_args[] = {&got, &ref, &n, &abs_tol, &rel_tol, &first, &count};
    unsigned grid = (unsigned)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096);
    if (r == CUDA_SUCCESS && n)
        r = gt.drv.cuLaunchKernel(d->fn[GT_DEVK_COMPARE_BITS + how], grid, 1, 1, 256, 1, 1, 0, stream,
                                  how == GT_COMPARE_BITS || how == GT_COMPARE_POISON ? bits_args : tol_args, NULL);
    if (r == CUDA_SUCCESS)
        r = gt.drv.cuStreamSynchronize(stream);
    if (r == CUDA_SUCCESS)
        r = gt.drv.cuMemcpyDtoH_v2(init, d->result, sizeof init);
    /* The tail that is no whole element is compared byte by byte. */
    size_t tail = size - n * es;
    unsigned char x[8], y[8];
    if (r == CUDA_SUCCESS && tail && (r = gt.drv.cuMemcpyDtoH_v2(x, got + n * es, tail)) == CUDA_SUCCESS &&
        (r = gt.drv.cuMemcpyDtoH_v2(y, ref + n * es, tail)) == CUDA_SUCCESS && tail_differs(x, y, tail, how)) {
        init[0] = init[0] == ~0ull ? n : init[0];
        init[1]++;
    }
    out[0] = init[0];
    out[1] = init[1];
    return r;
}

/* What a comparison compares with the reference. */
enum { OUTPUT, SAVED, OUTPUT_OR_POISON };

/* Every buffer with its reference, until one differs (the caller has
 * synchronized the work that wrote them).  Returns 0 with d->buffer == -1
 * when all match; 0 with the first difference otherwise; -1 if comparing
 * failed. */
static int compare_all(const struct gt_snapshot *s, int what, enum gt_compare how, double abs_tol, double rel_tol,
                       CUstream stream, struct gt_diff *d, char *err, size_t errlen)
{
    d->buffer = -1;
    d->index = d->count = 0;
    struct gt_devk *k = s->n ? gt_devk_get(err, errlen) : NULL;
    if (s->n && !k)
        return -1;
    for (int i = 0; i < s->n && d->buffer < 0; i++) {
        const struct gt_buffer *b = &s->v[i];
        unsigned long long out[2];
        CUresult r = compare_one(k, what == SAVED ? b->save : b->base, b->ref, b->size,
                                 what == OUTPUT_OR_POISON && b->poisoned ? GT_COMPARE_POISON : how, abs_tol, rel_tol,
                                 stream, out);
        if (r != CUDA_SUCCESS) {
            snprintf(err, errlen, "comparing outputs failed: %s", gt_cu_error(r));
            return -1;
        }
        if (out[1]) {
            d->buffer = i;
            d->index = out[0];
            d->count = out[1];
        }
    }
    return 0;
}

/* The buffers as a run left them, against the reference. */
int gt_snapshot_compare(const struct gt_snapshot *s, enum gt_compare how, double abs_tol, double rel_tol,
                        CUstream stream, struct gt_diff *d, char *err, size_t errlen)
{
    return compare_all(s, OUTPUT, how, abs_tol, rel_tol, stream, d, err, errlen);
}

/* The saved state against the reference: d->buffer == -1 when running the
 * launch changed nothing that `how` tells apart. */
int gt_snapshot_changed(const struct gt_snapshot *s, enum gt_compare how, double abs_tol, double rel_tol,
                        CUstream stream, struct gt_diff *d, char *err, size_t errlen)
{
    return compare_all(s, SAVED, how, abs_tol, rel_tol, stream, d, err, errlen);
}

/* As gt_snapshot_compare, but in poisoned buffers bytes that still hold
 * the poison pass: a run from the poisoned state against the reference of
 * a run from the saved state, where both wrote the same. */
int gt_snapshot_compare_poisoned(const struct gt_snapshot *s, enum gt_compare how, double abs_tol, double rel_tol,
                                 CUstream stream, struct gt_diff *d, char *err, size_t errlen)
{
    return compare_all(s, OUTPUT_OR_POISON, how, abs_tol, rel_tol, stream, d, err, errlen);
}

void gt_snapshot_free(struct gt_snapshot *s)
{
    if (s->on_host && s->host)
        gt.drv.cuMemFreeHost(s->host);
    else if (s->dev)
        gt.drv.cuMemFree_v2(s->dev);
    free(s->v);
    memset(s, 0, sizeof *s);
}
