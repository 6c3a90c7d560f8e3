/* memtrack.c: the application's device-visible allocations.
 *
 * A launch's pointer arguments must be traced back to whole allocations
 * (base and size) so that a trial can snapshot what the kernel may write.
 * Ranges are kept disjoint in a balanced tree (glibc's tsearch) under a
 * reader-writer lock: allocation and free hooks write, lookups read, from
 * any thread.  Two ranges compare equal when they overlap, which is what
 * makes a point lookup find its containing range.  A new range that
 * overlaps old ones replaces them: the old ones were freed by a path the
 * shim does not see. */
#include "memtrack.h"
#include "alloc.h"

#include <search.h>
#include <stdlib.h>

static const char *const kind_names[GT_MEM_NKINDS] = {
    "device", "pitch", "async", "pool", "managed", "host", "registered", "mapped",
};

const char *gt_mem_kind_name(enum gt_mem_kind kind)
{
    return kind < GT_MEM_NKINDS ? kind_names[kind] : "?";
}

static int overlap_order(const void *a, const void *b)
{
    const struct gt_mem_range *x = a, *y = b;
    if (x->base + x->size <= y->base)
        return -1;
    if (y->base + y->size <= x->base)
        return 1;
    return 0;
}

void gt_mem_init(struct gt_memtrack *mt)
{
    pthread_rwlock_init(&mt->lock, NULL);
    mt->root = NULL;
    mt->count = mt->bytes = mt->peak_bytes = 0;
}

void gt_mem_destroy(struct gt_memtrack *mt)
{
    tdestroy(mt->root, free);
    mt->root = NULL;
    pthread_rwlock_destroy(&mt->lock);
}

/* Removes every range overlapping [base, base+size).  Caller holds the lock. */
static size_t remove_locked(struct gt_memtrack *mt, uint64_t base, size_t size)
{
    struct gt_mem_range key = {.base = base, .size = size ? size : 1};
    size_t n = 0;
    void *node;
    while ((node = tfind(&key, &mt->root, overlap_order)) != NULL) {
        struct gt_mem_range *r = *(struct gt_mem_range **)node;
        tdelete(r, &mt->root, overlap_order);
        mt->count--;
        mt->bytes -= r->size;
        free(r);
        n++;
    }
    return n;
}

int gt_mem_add(struct gt_memtrack *mt, uint64_t base, size_t size, enum gt_mem_kind kind)
{
    if (size == 0)
        return 0;
    struct gt_mem_range *r = gt_malloc(sizeof *r);
    if (!r)
        return -1;
    *r = (struct gt_mem_range){base, size, kind};
    int rc = 0;
    pthread_rwlock_wrlock(&mt->lock);
    remove_locked(mt, base, size);
    if (tsearch(r, &mt->root, overlap_order)) {
        mt->count++;
        mt->bytes += size;
        if (mt->bytes > mt->peak_bytes)
            mt->peak_bytes = mt->bytes;
    } else {
        free(r);
        rc = -1;
    }
    pthread_rwlock_unlock(&mt->lock);
    return rc;
}

size_t gt_mem_remove(struct gt_memtrack *mt, uint64_t base, size_t size)
{
    pthread_rwlock_wrlock(&mt->lock);
    size_t n = remove_locked(mt, base, size);
    pthread_rwlock_unlock(&mt->lock);
    return n;
}

int gt_mem_find(struct gt_memtrack *mt, uint64_t ptr, struct gt_mem_range *out)
{
    struct gt_mem_range key = {.base = ptr, .size = 1};
    pthread_rwlock_rdlock(&mt->lock);
    void *node = tfind(&key, &mt->root, overlap_order);
    if (node)
        *out = **(struct gt_mem_range **)node;
    pthread_rwlock_unlock(&mt->lock);
    return node ? 0 : -1;
}
