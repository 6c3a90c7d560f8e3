/* capture.h: which streams are being captured into graphs (see capture.c). */
#ifndef GT_CAPTURE_H
#define GT_CAPTURE_H

#include "driver.h"

int gt_capture_is_on(CUstream stream, int per_thread);
int gt_capture_stream(CUstream stream, int per_thread);
void gt_capture_began(void);
void gt_capture_ended(void);

#endif
