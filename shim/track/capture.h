/* capture.h: which streams are being captured into graphs (see capture.c). */
#ifndef GT_CAPTURE_H
#define GT_CAPTURE_H

#include "driver.h"
#include <stdatomic.h>

struct gt_capture {
    atomic_int active; /* captures begun and not yet ended, process-wide */
};

void gt_capture_init(struct gt_capture *cap);
int gt_capture_is_on(CUstream stream, int per_thread);

#endif
