/* test_memtrack: allocation ranges, point lookups, frees, concurrency. */
#include "memtrack.h"
#include "tap.h"

#include <pthread.h>
#include <stdatomic.h>

static struct gt_memtrack mt;
static atomic_long wrong;

/* Each thread owns a disjoint window and checks every range it holds is
 * found with its own base and size, while the other threads churn theirs. */
static void *churn(void *arg)
{
    uint64_t window = (uint64_t)(uintptr_t)arg << 32;
    for (int round = 0; round < 200; round++) {
        for (uint64_t i = 0; i < 64; i++)
            gt_mem_add(&mt, window + i * 4096, 1000 + i, GT_MEM_ASYNC);
        for (uint64_t i = 0; i < 64; i++) {
            struct gt_mem_range r;
            if (gt_mem_find(&mt, window + i * 4096 + i, &r) != 0 || r.base != window + i * 4096 || r.size != 1000 + i)
                atomic_fetch_add(&wrong, 1);
        }
        for (uint64_t i = 0; i < 64; i++)
            gt_mem_remove(&mt, window + i * 4096, 1);
    }
    return NULL;
}

int main(void)
{
    struct gt_mem_range r;
    gt_mem_init(&mt);
    ok(gt_mem_find(&mt, 0x1000, &r) != 0, "nothing tracked, nothing found");
    gt_mem_add(&mt, 0x10000, 0x1000, GT_MEM_DEVICE);
    gt_mem_add(&mt, 0x20000, 0x800, GT_MEM_MANAGED);
    ok(gt_mem_find(&mt, 0x10000, &r) == 0 && r.base == 0x10000 && r.size == 0x1000, "base finds its range");
    ok(gt_mem_find(&mt, 0x10fff, &r) == 0 && r.base == 0x10000, "last byte finds its range");
    ok(gt_mem_find(&mt, 0x11000, &r) != 0, "one past the end is outside");
    ok(gt_mem_find(&mt, 0x20400, &r) == 0 && r.kind == GT_MEM_MANAGED, "kind is kept");
    is_str(gt_mem_kind_name(r.kind), "managed", "kind names");
    is_int(mt.count, 2, "two ranges");
    is_int(mt.bytes, 0x1800, "bytes counted");
    gt_mem_add(&mt, 0x10800, 0x1000, GT_MEM_POOL);
    is_int(mt.count, 2, "a new range replaces the stale one it overlaps");
    ok(gt_mem_find(&mt, 0x10100, &r) != 0, "the stale range is gone");
    ok(gt_mem_find(&mt, 0x11000, &r) == 0 && r.base == 0x10800 && r.kind == GT_MEM_POOL, "the new one is found");
    is_int(gt_mem_remove(&mt, 0x20000, 1), 1, "free by base");
    is_int(gt_mem_remove(&mt, 0x20000, 1), 0, "double free removes nothing");
    gt_mem_add(&mt, 0x100000, 0x1000, GT_MEM_MAPPED);
    gt_mem_add(&mt, 0x101000, 0x1000, GT_MEM_MAPPED);
    gt_mem_add(&mt, 0x102000, 0x1000, GT_MEM_MAPPED);
    is_int(gt_mem_remove(&mt, 0x100000, 0x2000), 2, "an unmap removes the mappings it covers");
    ok(gt_mem_find(&mt, 0x102000, &r) == 0, "and keeps the rest");
    is_int(mt.peak_bytes, 0x3000 + 0x1000, "peak bytes");
    gt_mem_add(&mt, 0x500000, 0, GT_MEM_DEVICE);
    ok(gt_mem_find(&mt, 0x500000, &r) != 0, "empty allocations are not tracked");

    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, churn, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    is_int(atomic_load(&wrong), 0, "lookups under concurrent allocation and free stay exact");
    is_int(mt.count, 2, "every churned range freed");
    gt_mem_destroy(&mt);
    return done_testing();
}
