/* map.c: pointer-keyed hash map with lock-free lookups.
 *
 * Every kernel launch looks its handle up here, from any application thread,
 * so lookups take no lock: open addressing with linear probing over slots
 * whose key and value are atomics.  Writers (module loads and unloads, rare)
 * hold a mutex.  A writer publishes a value before its key, so a reader that
 * sees the key sees the value; deletion clears the value, then turns the key
 * into a tombstone.  Growing builds a new table and publishes it; the old one
 * is kept until the map is destroyed because a reader may still be in it.
 * Keys 0 and UINTPTR_MAX are reserved (CUDA handles are never either). */
#include "map.h"
#include "alloc.h"

#include <stdlib.h>

#define EMPTY ((uintptr_t)0)
#define TOMB UINTPTR_MAX

struct gt_map_slot {
    _Atomic uintptr_t key;
    void *_Atomic value;
};

struct gt_map_table {
    size_t mask;  /* capacity - 1, capacity a power of two */
    size_t used;  /* live keys and tombstones */
    size_t live;
    struct gt_map_table *retired_next;
    struct gt_map_slot slots[];
};

static size_t hash(uintptr_t key)
{
    uint64_t x = (uint64_t)key;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static struct gt_map_table *table_new(size_t capacity)
{
    struct gt_map_table *t = gt_calloc(1, sizeof *t + capacity * sizeof t->slots[0]);
    if (t)
        t->mask = capacity - 1;
    return t;
}

void gt_map_init(struct gt_map *m)
{
    atomic_init(&m->table, NULL);
    pthread_mutex_init(&m->lock, NULL);
    m->retired = NULL;
}

void gt_map_destroy(struct gt_map *m)
{
    free(atomic_load(&m->table));
    while (m->retired) {
        struct gt_map_table *next = m->retired->retired_next;
        free(m->retired);
        m->retired = next;
    }
    atomic_store(&m->table, NULL);
    pthread_mutex_destroy(&m->lock);
}

static struct gt_map_slot *find(struct gt_map_table *t, uintptr_t key)
{
    for (size_t i = hash(key) & t->mask, n = 0; n <= t->mask; i = (i + 1) & t->mask, n++) {
        uintptr_t k = atomic_load_explicit(&t->slots[i].key, memory_order_acquire);
        if (k == key)
            return &t->slots[i];
        if (k == EMPTY)
            return NULL;
    }
    return NULL;
}

void *gt_map_get(struct gt_map *m, uintptr_t key)
{
    struct gt_map_table *t = atomic_load_explicit(&m->table, memory_order_acquire);
    struct gt_map_slot *s = t ? find(t, key) : NULL;
    return s ? atomic_load_explicit(&s->value, memory_order_acquire) : NULL;
}

static void insert(struct gt_map_table *t, uintptr_t key, void *value)
{
    size_t i = hash(key) & t->mask;
    for (;;) {
        uintptr_t k = atomic_load_explicit(&t->slots[i].key, memory_order_relaxed);
        if (k == EMPTY || k == TOMB)
            break;
        i = (i + 1) & t->mask;
    }
    if (atomic_load_explicit(&t->slots[i].key, memory_order_relaxed) == EMPTY)
        t->used++;
    t->live++;
    atomic_store_explicit(&t->slots[i].value, value, memory_order_release);
    atomic_store_explicit(&t->slots[i].key, key, memory_order_release);
}

/* Makes room for one more key: a bigger table, or a clean one of the same
 * size when tombstones fill it.  Caller holds the lock. */
static int reserve(struct gt_map *m)
{
    struct gt_map_table *t = atomic_load_explicit(&m->table, memory_order_relaxed);
    if (t && (t->used + 1) * 4 < (t->mask + 1) * 3)
        return 0;
    size_t cap = t ? t->mask + 1 : 64;
    while ((t ? t->live + 1 : 1) * 2 > cap)
        cap *= 2;
    struct gt_map_table *n = table_new(cap);
    if (!n)
        return -1;
    for (size_t i = 0; t && i <= t->mask; i++) {
        uintptr_t k = atomic_load_explicit(&t->slots[i].key, memory_order_relaxed);
        if (k != EMPTY && k != TOMB)
            insert(n, k, atomic_load_explicit(&t->slots[i].value, memory_order_relaxed));
    }
    atomic_store_explicit(&m->table, n, memory_order_release);
    if (t) {
        t->retired_next = m->retired;
        m->retired = t;
    }
    return 0;
}

int gt_map_put(struct gt_map *m, uintptr_t key, void *value)
{
    int rc = 0;
    pthread_mutex_lock(&m->lock);
    struct gt_map_table *t = atomic_load_explicit(&m->table, memory_order_relaxed);
    struct gt_map_slot *s = t ? find(t, key) : NULL;
    if (s) {
        atomic_store_explicit(&s->value, value, memory_order_release);
    } else if (reserve(m) == 0) {
        insert(atomic_load_explicit(&m->table, memory_order_relaxed), key, value);
    } else {
        rc = -1;
    }
    pthread_mutex_unlock(&m->lock);
    return rc;
}

void *gt_map_del(struct gt_map *m, uintptr_t key)
{
    void *old = NULL;
    pthread_mutex_lock(&m->lock);
    struct gt_map_table *t = atomic_load_explicit(&m->table, memory_order_relaxed);
    struct gt_map_slot *s = t ? find(t, key) : NULL;
    if (s) {
        old = atomic_exchange_explicit(&s->value, NULL, memory_order_acq_rel);
        atomic_store_explicit(&s->key, TOMB, memory_order_release);
        t->live--;
    }
    pthread_mutex_unlock(&m->lock);
    return old;
}

size_t gt_map_count(struct gt_map *m)
{
    pthread_mutex_lock(&m->lock);
    struct gt_map_table *t = atomic_load_explicit(&m->table, memory_order_relaxed);
    size_t n = t ? t->live : 0;
    pthread_mutex_unlock(&m->lock);
    return n;
}
