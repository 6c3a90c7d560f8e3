/* timing.h: how long a trial's kernel ran (see timing.c). */
#ifndef GT_TIMING_H
#define GT_TIMING_H

#include "driver.h"

struct gt_timer {
    int cupti;              /* 1: CUPTI kernel records; 0: CUDA events */
    void *subscriber;
    CUevent ev[2];
    const char *kernel;     /* the name whose records count */
    int records;            /* CUPTI's records of the last measurement */
    int said_missing;       /* CUPTI's records were found wanting (said once) */
};

/* Runs one repetition of a trial on `stream` (restoring its inputs first). */
typedef CUresult (*gt_trial_fn)(void *arg, CUstream stream);

int gt_timer_begin(struct gt_timer *t, const char *kernel);
int gt_timer_measure(struct gt_timer *t, gt_trial_fn before, gt_trial_fn launch, void *arg, CUstream stream, int reps,
                     double *us, CUresult *failed);
double gt_timer_events(gt_trial_fn fn, void *arg, CUstream stream, int reps);
void gt_timer_end(struct gt_timer *t);

#endif
