/* perthread.h: a zeroed block of memory per thread, made at the thread's
 * first call and freed when it ends (see perthread.c). */
#ifndef GT_PERTHREAD_H
#define GT_PERTHREAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

struct gt_perthread {
    size_t size;        /* of each thread's block */
    int slot;           /* of the thread's pointer to it, set before keyed */
    atomic_int keyed;   /* key made */
    atomic_int tried;   /* key asked for, set after keyed: a failure is not asked again */
    pthread_key_t key;
};

#define GT_PERTHREAD_INIT(bytes) {.size = (bytes)}

void *gt_perthread_get(struct gt_perthread *pt);

#endif
