/* test_map: the lock-free handle map under single and concurrent use. */
#include "map.h"
#include "tap.h"

#include <pthread.h>

#define N 20000

static struct gt_map m;
static atomic_int stop;
static atomic_long bad_reads;

static void *value_of(uintptr_t k)
{
    return (void *)(k * 3);
}

/* Keys 1..N/2 are stable while writers churn the others: a reader must
 * always find them with their value. */
static void *reader(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop))
        for (uintptr_t k = 16; k <= N / 2 * 16; k += 16)
            if (gt_map_get(&m, k) != value_of(k))
                atomic_fetch_add(&bad_reads, 1);
    return NULL;
}

static void *writer(void *arg)
{
    uintptr_t base = (uintptr_t)arg;
    for (int round = 0; round < 20; round++)
        for (uintptr_t k = base; k < base + N / 2 * 16; k += 16) {
            gt_map_put(&m, k, value_of(k));
            if (round % 2)
                gt_map_del(&m, k);
        }
    return NULL;
}

int main(void)
{
    gt_map_init(&m);
    ok(gt_map_get(&m, 42) == NULL, "empty map finds nothing");
    for (uintptr_t k = 16; k <= N * 16; k += 16)
        gt_map_put(&m, k, value_of(k));
    is_int(gt_map_count(&m), N, "all keys inserted across several growths");
    int found = 0;
    for (uintptr_t k = 16; k <= N * 16; k += 16)
        found += gt_map_get(&m, k) == value_of(k);
    is_int(found, N, "every key maps to its value");
    ok(gt_map_get(&m, 8) == NULL, "a missing key is missing");
    gt_map_put(&m, 16, (void *)7);
    ok(gt_map_get(&m, 16) == (void *)7, "put replaces a value");
    ok(gt_map_del(&m, 16) == (void *)7, "del returns the old value");
    ok(gt_map_get(&m, 16) == NULL, "a deleted key is gone");
    for (uintptr_t k = N / 2 * 16 + 16; k <= N * 16; k += 16)
        gt_map_del(&m, k);
    gt_map_put(&m, 16, value_of(16));
    is_int(gt_map_count(&m), N / 2, "deleting leaves the rest");
    found = 0;
    for (uintptr_t k = 16; k <= N / 2 * 16; k += 16)
        found += gt_map_get(&m, k) == value_of(k);
    is_int(found, N / 2, "keys past tombstones are still found");

    pthread_t r[4], w[2];
    for (int i = 0; i < 4; i++)
        pthread_create(&r[i], NULL, reader, NULL);
    pthread_create(&w[0], NULL, writer, (void *)(uintptr_t)(N * 16 + 16));
    pthread_create(&w[1], NULL, writer, (void *)(uintptr_t)(2 * N * 16 + 16));
    pthread_join(w[0], NULL);
    pthread_join(w[1], NULL);
    atomic_store(&stop, 1);
    for (int i = 0; i < 4; i++)
        pthread_join(r[i], NULL);
    is_int(atomic_load(&bad_reads), 0, "lock-free readers never miss a stable key while writers grow and churn");
    is_int(gt_map_count(&m), N / 2, "churned keys all deleted again");
    gt_map_destroy(&m);
    return done_testing();
}
