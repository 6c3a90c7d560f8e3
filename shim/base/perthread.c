/* perthread.c: a zeroed block of memory per thread, made at the thread's
 * first call and freed when it ends.
 *
 * For per-thread caches too large for every thread's TLS: a framework's
 * process runs dozens of threads, few of which launch kernels, and each
 * thread's TLS is allocated and zeroed when it starts, whether it uses it or
 * not.  The block hangs off a thread-specific key, which frees it at the
 * thread's end; the thread's own pointer to it sits in a small
 * thread-local, one slot per kind of block, so that a call on a launch's
 * path reads no more than that slot: a key's lookup touches cache lines of
 * its own, which a framework's work between two launches evicts.
 * Without memory for a block, or without a key or a slot (the process has
 * used them all), the call returns NULL and the caller works without its
 * cache. */
#include "perthread.h"
#include "alloc.h"

#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>

#define SLOTS 4 /* kinds of block: the shim has two */

static pthread_mutex_t keys_lock = PTHREAD_MUTEX_INITIALIZER;
static int slots_taken;
static _Thread_local void *mine[SLOTS];

/* Before each block, which slot points at it: the key's destructor, run on
 * the thread that ends, clears that slot before the block is freed, so that
 * a launch from a later destructor of the same thread makes a new one. */
struct header {
    alignas(max_align_t) int slot;
};

static void forget(void *b)
{
    struct header *h = (struct header *)b - 1;
    mine[h->slot] = NULL;
    free(h);
}

/* Whether the key is there, made at the first call of any thread; a key
 * the process could not have is not asked for again, so that the calls
 * after it take no lock either. */
static int has_key(struct gt_perthread *pt)
{
    if (atomic_load_explicit(&pt->keyed, memory_order_acquire))
        return 1;
    if (atomic_load_explicit(&pt->tried, memory_order_acquire))
        return atomic_load_explicit(&pt->keyed, memory_order_acquire);
    pthread_mutex_lock(&keys_lock);
    if (!atomic_load_explicit(&pt->tried, memory_order_relaxed)) {
        if (slots_taken < SLOTS && pthread_key_create(&pt->key, forget) == 0) {
            pt->slot = slots_taken++;
            atomic_store_explicit(&pt->keyed, 1, memory_order_release);
        }
        atomic_store_explicit(&pt->tried, 1, memory_order_release);
    }
    pthread_mutex_unlock(&keys_lock);
    return atomic_load_explicit(&pt->keyed, memory_order_acquire);
}

/* The thread's first call for pt's block (or one after the thread's key
 * destructors ran): made and hung off the key. */
static void *make(struct gt_perthread *pt)
{
    struct header *h = gt_calloc(1, sizeof *h + pt->size);
    if (!h)
        return NULL;
    h->slot = pt->slot;
    if (pthread_setspecific(pt->key, h + 1) != 0) {
        free(h);
        return NULL;
    }
    return mine[pt->slot] = h + 1;
}

void *gt_perthread_get(struct gt_perthread *pt)
{
    if (!has_key(pt))
        return NULL;
    return mine[pt->slot] ? mine[pt->slot] : make(pt);
}
