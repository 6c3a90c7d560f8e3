/* capture.c: which streams are being captured into graphs.
 *
 * A launch into a capturing stream is recorded into a graph, not run, so the
 * shim must never tune it.  Asking the driver at every launch would cost
 * every application; instead the capture hooks count captures in progress,
 * and only while that count is non-zero does a launch ask the driver about
 * its own stream.  Graph launches and graph construction pass through the
 * shim untouched. */
#include "state.h"

void gt_capture_init(struct gt_capture *cap)
{
    atomic_init(&cap->active, 0);
}

static int is_capturing(CUstream stream, int per_thread)
{
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    CUresult r = per_thread ? gt.drv.cuStreamIsCapturing_ptsz(stream, &st)
                            : gt.drv.cuStreamIsCapturing(stream, &st);
    return r == CUDA_SUCCESS && st != CU_STREAM_CAPTURE_STATUS_NONE;
}

int gt_capture_is_on(CUstream stream, int per_thread)
{
    if (atomic_load_explicit(&gt.cap.active, memory_order_relaxed) == 0)
        return 0;
    return is_capturing(stream, per_thread);
}

static CUresult began(CUresult r)
{
    if (r == CUDA_SUCCESS)
        atomic_fetch_add(&gt.cap.active, 1);
    return r;
}

CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode)
{
    GT_REQUIRE_DRIVER();
    return began(gt.drv.cuStreamBeginCapture_v2(s, mode));
}

CUresult cuStreamBeginCapture_v2_ptsz(CUstream s, CUstreamCaptureMode mode)
{
    GT_REQUIRE_DRIVER();
    return began(gt.drv.cuStreamBeginCapture_v2_ptsz(s, mode));
}

CUresult cuStreamBeginCaptureToGraph(CUstream s, CUgraph g, const CUgraphNode *deps,
                                     const CUgraphEdgeData *data, size_t n, CUstreamCaptureMode mode)
{
    GT_REQUIRE_DRIVER();
    return began(gt.drv.cuStreamBeginCaptureToGraph(s, g, deps, data, n, mode));
}

CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream s, CUgraph g, const CUgraphNode *deps,
                                          const CUgraphEdgeData *data, size_t n, CUstreamCaptureMode mode)
{
    GT_REQUIRE_DRIVER();
    return began(gt.drv.cuStreamBeginCaptureToGraph_ptsz(s, g, deps, data, n, mode));
}

/* A capture ends whatever EndCapture returns, unless the stream was not
 * capturing at all: ask the driver before and after. */
static CUresult end_capture(CUstream s, CUgraph *g, int per_thread)
{
    GT_REQUIRE_DRIVER();
    int was = is_capturing(s, per_thread);
    CUresult r = per_thread ? gt.drv.cuStreamEndCapture_ptsz(s, g) : gt.drv.cuStreamEndCapture(s, g);
    if (was && !is_capturing(s, per_thread) && atomic_fetch_sub(&gt.cap.active, 1) <= 0)
        atomic_store(&gt.cap.active, 0);
    return r;
}

CUresult cuStreamEndCapture(CUstream s, CUgraph *g)
{
    return end_capture(s, g, 0);
}

CUresult cuStreamEndCapture_ptsz(CUstream s, CUgraph *g)
{
    return end_capture(s, g, 1);
}
