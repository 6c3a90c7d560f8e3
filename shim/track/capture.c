/* capture.c: which streams are being captured into graphs.
 *
 * A launch into a capturing stream is recorded into a graph, not run, so the
 * shim must never tune it.  Asking the driver at every launch would cost
 * every application; instead the capture hooks (intercept/hook_capture.c)
 * count captures in progress here, and only while that count is non-zero
 * does a launch ask the driver about its own stream.  Graph launches and
 * graph construction pass through the shim untouched. */
#include "capture.h"
#include "state.h"

/* Whether the driver says `stream` is capturing now. */
int gt_capture_stream(CUstream stream, int per_thread)
{
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    CUresult r = per_thread ? gt.drv.cuStreamIsCapturing_ptsz(stream, &st)
                            : gt.drv.cuStreamIsCapturing(stream, &st);
    return r == CUDA_SUCCESS && st != CU_STREAM_CAPTURE_STATUS_NONE;
}

int gt_capture_is_on(CUstream stream, int per_thread)
{
    if (atomic_load_explicit(&gt.track.captures, memory_order_relaxed) == 0)
        return 0;
    return gt_capture_stream(stream, per_thread);
}

void gt_capture_began(void)
{
    atomic_fetch_add(&gt.track.captures, 1);
}

void gt_capture_ended(void)
{
    if (atomic_fetch_sub(&gt.track.captures, 1) <= 0)
        atomic_store(&gt.track.captures, 0);
}

