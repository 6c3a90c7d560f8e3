/* pool.h: worker threads for CPU work done ahead of the GPU (see pool.c). */
#ifndef GT_POOL_H
#define GT_POOL_H

#include <pthread.h>

struct gt_task {
    void (*fn)(void *arg);
    void *arg;
    int done;              /* set by the pool, read under its lock */
    struct gt_task *next;
};

struct gt_pool {
    pthread_mutex_t lock;
    pthread_cond_t work;   /* a task was queued, or the pool stops */
    pthread_cond_t done;   /* a task finished */
    struct gt_task *head, *tail;
    int stopping;
    int nthreads;
    pthread_t *threads;
};

int gt_pool_jobs(int jobs);
int gt_pool_start(struct gt_pool *p, int nthreads);
void gt_pool_submit(struct gt_pool *p, struct gt_task *t);
void gt_pool_wait(struct gt_pool *p, struct gt_task *t);
int gt_pool_done(struct gt_pool *p, struct gt_task *t);
struct gt_task *gt_pool_wait_any(struct gt_pool *p, struct gt_task *const *tasks, int n);
void gt_pool_stop(struct gt_pool *p);

#endif
