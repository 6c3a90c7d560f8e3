/* timing.c: how long a trial's kernel ran.
 *
 * CUPTI's kernel activity records time the kernel alone, on the GPU; CUDA
 * events add several microseconds of launch overhead to small kernels.  Of
 * CUPTI's two kinds the concurrent one (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
 * reads what a kernel costs among its neighbours: on an H100 (CUDA 13.0)
 * within 0.1 us of its share of a dense graph replay, where the serialized
 * kind added about 1.8 us to every kernel, 90% of a 2 us one, which hid real
 * gains on small kernels and showed noise as gains (bench/timing_kinds).
 * Trials run one at a time on the session's stream either way.  So CUPTI
 * when the shim can have it: only one subscriber may exist in a process, and
 * when the application or a profiler holds it the shim times with events
 * and says so once.  CUPTI is opened on the first session (of CUDA 12 or 13,
 * as compile/cudalibs.c finds it), enabled only while a session runs, and
 * let go after.  Its kernel records are read only up to the name: kind,
 * start, end and name lie where they do in every CUpti_ActivityKernel
 * version from 5 to 10, which covers what CUPTI of CUDA 12 and 13 delivers. */
#include "timing.h"
#include "alloc.h"
#include "cudalibs.h"
#include "elfsym.h"
#include "median.h"
#include "state.h"

#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    pthread_once_t once;
    int usable;
    __typeof__(&cuptiSubscribe) subscribe;
    __typeof__(&cuptiUnsubscribe) unsubscribe;
    __typeof__(&cuptiActivityRegisterCallbacks) register_callbacks;
    __typeof__(&cuptiActivityEnable) enable;
    __typeof__(&cuptiActivityDisable) disable;
    __typeof__(&cuptiActivityFlushAll) flush;
    __typeof__(&cuptiActivityGetNextRecord) next;
} cu = {.once = PTHREAD_ONCE_INIT};

#define BUFFER_SIZE (1 << 20)

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = gt_aligned_alloc(8, BUFFER_SIZE);
    *size = *buffer ? BUFFER_SIZE : 0;
    *max_records = 0;
}

static void CUPTIAPI completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)ctx, (void)stream, (void)size;
    CUpti_Activity *rec = NULL;
    pthread_mutex_lock(&gt.tune.records.lock);
    while (cu.next(buffer, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind != CUPTI_ACTIVITY_KIND_KERNEL && rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            continue;
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        if (!gt.tune.records.kernel || !k->name || strcmp(k->name, gt.tune.records.kernel) != 0)
            continue;
        if (gt.tune.records.n == gt.tune.records.cap) {
            int cap = gt.tune.records.cap ? gt.tune.records.cap * 2 : 64;
            double *v = gt_realloc(gt.tune.records.us, (size_t)cap * sizeof *v);
            if (!v)
                break;
            gt.tune.records.us = v;
            gt.tune.records.cap = cap;
        }
        gt.tune.records.us[gt.tune.records.n++] = (double)(k->end - k->start) / 1e3;
    }
    pthread_mutex_unlock(&gt.tune.records.lock);
    free(buffer);
}

/* CUPTI of CUDA 12 or 13, no newer than the driver (cudalibs.c), said
 * once: which one at debug, none at info. */
static void load(void)
{
    struct gt_cudalib lib;
    char why[512];
    if (gt_cudalib_open("libcupti", 0, gt.drv.cuda / 1000, &lib, why, sizeof why) != 0) {
        gt_info("CUPTI is not available (%s); trials are timed with CUDA events", why);
        return;
    }
    void *h = lib.handle;
    const char *missing = NULL;
#define SYM(field, name) ((cu.field = (__typeof__(cu.field))gt_elfsym_dlsym(h, name)) != NULL || (missing = name, 0))
    cu.usable = SYM(subscribe, "cuptiSubscribe") && SYM(unsubscribe, "cuptiUnsubscribe") &&
                SYM(register_callbacks, "cuptiActivityRegisterCallbacks") && SYM(enable, "cuptiActivityEnable") &&
                SYM(disable, "cuptiActivityDisable") && SYM(flush, "cuptiActivityFlushAll") &&
                SYM(next, "cuptiActivityGetNextRecord");
#undef SYM
    if (cu.usable)
        gt_debug("CUPTI %d: %s%s", lib.major, lib.path, lib.loaded ? " (the application's own)" : "");
    else
        gt_info("CUPTI %s lacks %s; trials are timed with CUDA events", lib.path, missing);
}

static void CUPTIAPI ignore(void *user, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *data)
{
    (void)user, (void)d, (void)id, (void)data;
}

/* Starts timing a session's trials of `kernel`; falls back to events. */
int gt_timer_begin(struct gt_timer *t, const char *kernel)
{
    static int said;
    memset(t, 0, sizeof *t);
    t->kernel = kernel;
    pthread_once(&cu.once, load);
    CUpti_SubscriberHandle sub;
    if (cu.usable && cu.subscribe(&sub, ignore, NULL) == CUPTI_SUCCESS) {
        if (cu.register_callbacks(requested, completed) == CUPTI_SUCCESS &&
            cu.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == CUPTI_SUCCESS) {
            t->cupti = 1;
            t->subscriber = sub;
            gt.tune.records.kernel = kernel;
            return 0;
        }
        cu.unsubscribe(sub);
    }
    if (cu.usable && !said++)
        gt_info("CUPTI is held by the application or a profiler; trials are timed with CUDA events");
    CUresult r = gt.drv.cuEventCreate(&t->ev[0], CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS)
        r = gt.drv.cuEventCreate(&t->ev[1], CU_EVENT_DEFAULT);
    return r == CUDA_SUCCESS ? 0 : -1;
}

static CUresult events_rep(CUevent ev[2], gt_trial_fn launch, void *arg, CUstream stream, double *us)
{
    float ms = 0;
    CUresult r = gt.drv.cuEventRecord(ev[0], stream);
    if (r == CUDA_SUCCESS)
        r = launch(arg, stream);
    if (r == CUDA_SUCCESS)
        r = gt.drv.cuEventRecord(ev[1], stream);
    if (r == CUDA_SUCCESS)
        r = gt.drv.cuEventSynchronize(ev[1]);
    if (r == CUDA_SUCCESS)
        r = gt.drv.cuEventElapsedTime_v2(&ms, ev[0], ev[1]);
    *us = ms * 1e3;
    return r;
}

static int cupti_measure(struct gt_timer *t, gt_trial_fn before, gt_trial_fn launch, void *arg, CUstream stream,
                         int reps, double *us, CUresult *failed);

/* Times each repetition between two events; a repetition that reads no
 * positive time is left out.  Returns how many were measured. */
static int events_measure(CUevent ev[2], gt_trial_fn before, gt_trial_fn launch, void *arg, CUstream stream,
                          int reps, double *us, CUresult *failed)
{
    int n = 0;
    for (int i = 0; i < reps; i++) {
        double t = 0;
        if ((before && (*failed = before(arg, stream)) != CUDA_SUCCESS) ||
            (*failed = events_rep(ev, launch, arg, stream, &t)) != CUDA_SUCCESS)
            return 0;
        if (t > 0)
            us[n++] = t;
    }
    return n;
}

/* The median time of `reps` runs of fn on `stream`, each between two events
 * of its own: what the shim's own copies around a variant's launch cost.
 * Returns -1 if it cannot be timed. */
double gt_timer_events(gt_trial_fn fn, void *arg, CUstream stream, int reps)
{
    CUevent ev[2] = {NULL, NULL};
    double us[16];
    CUresult r = CUDA_SUCCESS;
    int n = 0;
    reps = reps < 16 ? reps : 16;
    if (gt.drv.cuEventCreate(&ev[0], CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
        gt.drv.cuEventCreate(&ev[1], CU_EVENT_DEFAULT) == CUDA_SUCCESS)
        n = events_measure(ev, NULL, fn, arg, stream, reps, us, &r);
    for (int i = 0; i < 2; i++)
        if (ev[i])
            gt.drv.cuEventDestroy_v2(ev[i]);
    return n > 0 ? gt_median(us, n) : -1;
}

/* Runs `reps` repetitions (before, then launch, each) and fills us[] with
 * the kernel's time in each, every one positive.  Returns how many were
 * measured; a failing call stops it and is left in *failed.  When CUPTI
 * does not deliver a positive record of every repetition, the repetitions
 * run again timed with events, and that is said once. */
int gt_timer_measure(struct gt_timer *t, gt_trial_fn before, gt_trial_fn launch, void *arg, CUstream stream, int reps,
                     double *us, CUresult *failed)
{
    *failed = CUDA_SUCCESS;
    if (!t->cupti)
        return events_measure(t->ev, before, launch, arg, stream, reps, us, failed);
    int n = cupti_measure(t, before, launch, arg, stream, reps, us, failed);
    if (n == reps || *failed != CUDA_SUCCESS)
        return n;
    if (!t->said_missing++) {
        if (t->records != reps)
            gt_debug("kernel %s: CUPTI gave %d records of %d launches; timing with events instead", t->kernel,
                     t->records, reps);
        else
            gt_debug("kernel %s: CUPTI gave %d records of %d launches, only %d of a positive time; timing with "
                     "events instead", t->kernel, t->records, reps, n);
    }
    if (!t->ev[0] && (gt.drv.cuEventCreate(&t->ev[0], CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
                      gt.drv.cuEventCreate(&t->ev[1], CU_EVENT_DEFAULT) != CUDA_SUCCESS))
        return 0;
    return events_measure(t->ev, before, launch, arg, stream, reps, us, failed);
}

/* Runs the repetitions and reads CUPTI's records of the kernel; returns
 * how many positive times it got, none unless one record came per launch. */
static int cupti_measure(struct gt_timer *t, gt_trial_fn before, gt_trial_fn launch, void *arg, CUstream stream,
                         int reps, double *us, CUresult *failed)
{
    /* Records of launches before this measurement must not count in it. */
    gt.drv.cuStreamSynchronize(stream);
    cu.flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&gt.tune.records.lock);
    gt.tune.records.n = 0;
    pthread_mutex_unlock(&gt.tune.records.lock);
    for (int i = 0; i < reps && *failed == CUDA_SUCCESS; i++)
        if ((*failed = before(arg, stream)) == CUDA_SUCCESS)
            *failed = launch(arg, stream);
    CUresult r = gt.drv.cuStreamSynchronize(stream);
    if (*failed == CUDA_SUCCESS)
        *failed = r;
    cu.flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&gt.tune.records.lock);
    int n = 0;
    t->records = gt.tune.records.n;
    for (int i = 0; i < gt.tune.records.n && gt.tune.records.n == reps; i++)
        if (gt.tune.records.us[i] > 0)
            us[n++] = gt.tune.records.us[i];
    pthread_mutex_unlock(&gt.tune.records.lock);
    return *failed == CUDA_SUCCESS ? n : 0;
}

void gt_timer_end(struct gt_timer *t)
{
    if (t->cupti) {
        cu.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        cu.flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        cu.unsubscribe((CUpti_SubscriberHandle)t->subscriber);
        gt.tune.records.kernel = NULL;
    }
    for (int i = 0; i < 2; i++)
        if (t->ev[i])
            gt.drv.cuEventDestroy_v2(t->ev[i]);
    memset(t, 0, sizeof *t);
}

