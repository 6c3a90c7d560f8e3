/* tally.h: a count that many threads add to, each on its own slot (see tally.c). */
#ifndef GT_TALLY_H
#define GT_TALLY_H

#include <pthread.h>
#include <stdatomic.h>

struct gt_tally_slot {
    atomic_ulong n;               /* written by its thread alone */
    struct gt_tally_slot *next;
};

struct gt_tally {
    pthread_mutex_t lock;         /* over slots, taken once a thread */
    struct gt_tally_slot *slots;
};

#define GT_TALLY_INIT {.lock = PTHREAD_MUTEX_INITIALIZER}

/* A new slot in `t` for the calling thread to keep in its TLS; NULL without memory. */
struct gt_tally_slot *gt_tally_join(struct gt_tally *t);

/* Adds one; only the slot's thread calls it, so that no write is shared. */
static inline void gt_tally_add(struct gt_tally_slot *s)
{
    atomic_store_explicit(&s->n, atomic_load_explicit(&s->n, memory_order_relaxed) + 1, memory_order_relaxed);
}

/* Every slot's count, those of threads that have ended too. */
unsigned long gt_tally_sum(struct gt_tally *t);

#endif
