/* perthread.c: a zeroed block of memory per thread, made at the thread's
 * first call and freed when it ends.
 *
 * For per-thread caches too large for every thread's TLS: a framework's
 * process runs dozens of threads, few of which launch kernels, and each
 * thread's TLS is allocated and zeroed when it starts, whether it uses it or
 * not.  A thread-specific key costs a lookup of a few nanoseconds a call.
 * Without memory for a block, or without a key (the process has used them
 * all), the call returns NULL and the caller works without its cache. */
#include "perthread.h"
#include "alloc.h"

#include <stdlib.h>

static pthread_mutex_t keys_lock = PTHREAD_MUTEX_INITIALIZER;

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
        if (pthread_key_create(&pt->key, free) == 0)
            atomic_store_explicit(&pt->keyed, 1, memory_order_release);
        atomic_store_explicit(&pt->tried, 1, memory_order_release);
    }
    pthread_mutex_unlock(&keys_lock);
    return atomic_load_explicit(&pt->keyed, memory_order_acquire);
}

void *gt_perthread_get(struct gt_perthread *pt)
{
    if (!has_key(pt))
        return NULL;
    void *b = pthread_getspecific(pt->key);
    if (b || !(b = gt_calloc(1, pt->size)))
        return b;
    if (pthread_setspecific(pt->key, b) != 0) {
        free(b);
        return NULL;
    }
    return b;
}
