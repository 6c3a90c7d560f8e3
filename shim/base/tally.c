/* tally.c: a count that many threads add to, each on its own slot.
 *
 * For counting on a hot path, such as every kernel launch: one shared
 * atomic would bounce its cache line between the threads that launch
 * (a framework's forward and backward threads), at about the cost of what
 * is counted.  Each thread adds to a slot of its own, made at its first
 * count and linked into the tally, and a reader sums the slots.  A slot
 * outlives its thread, so that its count stays in the sum; a process has
 * as many as threads that ever counted. */
#include "tally.h"
#include "alloc.h"

struct gt_tally_slot *gt_tally_join(struct gt_tally *t)
{
    struct gt_tally_slot *s = gt_calloc(1, sizeof *s);
    if (!s)
        return NULL;
    pthread_mutex_lock(&t->lock);
    s->next = t->slots;
    t->slots = s;
    pthread_mutex_unlock(&t->lock);
    return s;
}

unsigned long gt_tally_sum(struct gt_tally *t)
{
    unsigned long n = 0;
    pthread_mutex_lock(&t->lock);
    for (struct gt_tally_slot *s = t->slots; s; s = s->next)
        n += atomic_load_explicit(&s->n, memory_order_relaxed);
    pthread_mutex_unlock(&t->lock);
    return n;
}
