/* pool.c: worker threads for CPU work done ahead of the GPU.
 *
 * Compiling variants is CPU work and needs no GPU, so it runs on a few
 * threads while trials run on the GPU one at a time.  Tasks are caller-owned
 * structs: the caller submits them, waits for one or any of them, and frees
 * them afterwards.  Workers never touch CUDA.  A thread that builds from
 * source keeps a compiler process of its own for NVRTC (rtcworker.c), ended
 * when the thread is.  GPUTUNE_JOBS sets how many threads a pool gets; without
 * it, the processors this process may use. */
#include "pool.h"
#include "alloc.h"

#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

int gt_pool_jobs(int jobs)
{
    if (jobs > 0)
        return jobs;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static void *worker(void *arg)
{
    struct gt_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->head && !p->stopping)
            pthread_cond_wait(&p->work, &p->lock);
        if (!p->head)
            break;
        struct gt_task *t = p->head;
        p->head = t->next;
        if (!p->head)
            p->tail = NULL;
        pthread_mutex_unlock(&p->lock);
        t->fn(t->arg);
        pthread_mutex_lock(&p->lock);
        t->done = 1;
        pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Returns the number of threads started; with none, tasks run in
 * gt_pool_submit's caller. */
int gt_pool_start(struct gt_pool *p, int nthreads)
{
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->head = p->tail = NULL;
    p->stopping = 0;
    p->nthreads = 0;
    p->threads = gt_calloc((size_t)(nthreads > 0 ? nthreads : 1), sizeof *p->threads);
    for (int i = 0; p->threads && i < nthreads; i++) {
        if (pthread_create(&p->threads[i], NULL, worker, p) != 0)
            break;
        p->nthreads++;
    }
    return p->nthreads;
}

void gt_pool_submit(struct gt_pool *p, struct gt_task *t)
{
    t->done = 0;
    t->next = NULL;
    if (p->nthreads == 0) {
        t->fn(t->arg);
        t->done = 1;
        return;
    }
    pthread_mutex_lock(&p->lock);
    if (p->tail)
        p->tail->next = t;
    else
        p->head = t;
    p->tail = t;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->lock);
}

void gt_pool_wait(struct gt_pool *p, struct gt_task *t)
{
    pthread_mutex_lock(&p->lock);
    while (!t->done)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

/* Whether t has finished, without waiting. */
int gt_pool_done(struct gt_pool *p, struct gt_task *t)
{
    pthread_mutex_lock(&p->lock);
    int done = t->done;
    pthread_mutex_unlock(&p->lock);
    return done;
}

/* The first of `tasks` found finished (NULL entries are skipped), waiting
 * until one is; NULL if all entries are NULL. */
struct gt_task *gt_pool_wait_any(struct gt_pool *p, struct gt_task *const *tasks, int n)
{
    struct gt_task *found = NULL;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        int pending = 0;
        for (int i = 0; i < n && !found; i++) {
            if (tasks[i] && tasks[i]->done)
                found = tasks[i];
            pending |= tasks[i] != NULL;
        }
        if (found || !pending)
            break;
        pthread_cond_wait(&p->done, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return found;
}

void gt_pool_stop(struct gt_pool *p)
{
    pthread_mutex_lock(&p->lock);
    p->stopping = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    free(p->threads);
    p->threads = NULL;
    p->nthreads = 0;
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
}
