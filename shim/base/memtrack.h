/* memtrack.h: the application's device-visible allocations (see memtrack.c). */
#ifndef GT_MEMTRACK_H
#define GT_MEMTRACK_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

enum gt_mem_kind {
    GT_MEM_DEVICE,     /* cuMemAlloc */
    GT_MEM_PITCH,      /* cuMemAllocPitch */
    GT_MEM_ASYNC,      /* cuMemAllocAsync: the stream-ordered default pool */
    GT_MEM_POOL,       /* cuMemAllocFromPoolAsync */
    GT_MEM_MANAGED,    /* cuMemAllocManaged */
    GT_MEM_HOST,       /* cuMemAllocHost, cuMemHostAlloc: pinned, device-mapped */
    GT_MEM_REGISTERED, /* cuMemHostRegister */
    GT_MEM_MAPPED,     /* cuMemMap: a virtual-memory-management mapping */
    GT_MEM_NKINDS
};

struct gt_mem_range {
    uint64_t base;
    size_t size;
    enum gt_mem_kind kind;
};

struct gt_memtrack {
    pthread_rwlock_t lock;
    void *root;     /* tsearch() tree of disjoint ranges */
    size_t count;
    size_t bytes;
    size_t peak_bytes;
};

void gt_mem_init(struct gt_memtrack *mt);
void gt_mem_destroy(struct gt_memtrack *mt);
int gt_mem_add(struct gt_memtrack *mt, uint64_t base, size_t size, enum gt_mem_kind kind);
size_t gt_mem_remove(struct gt_memtrack *mt, uint64_t base, size_t size);
int gt_mem_find(struct gt_memtrack *mt, uint64_t ptr, struct gt_mem_range *out);
const char *gt_mem_kind_name(enum gt_mem_kind kind);

#endif
