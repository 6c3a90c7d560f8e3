/* hook_capture.c: the application capturing streams into graphs.
 *
 * Each capture that begins or ends is counted in capture.c, so that a
 * launch asks the driver whether its stream is capturing only while some
 * stream is. */
#include "capture.h"
#include "state.h"

static CUresult began(CUresult r)
{
    if (r == CUDA_SUCCESS)
        gt_capture_began();
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
    int was = gt_capture_stream(s, per_thread);
    CUresult r = per_thread ? gt.drv.cuStreamEndCapture_ptsz(s, g) : gt.drv.cuStreamEndCapture(s, g);
    if (was && !gt_capture_stream(s, per_thread))
        gt_capture_ended();
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
