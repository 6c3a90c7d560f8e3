/* hook_graph.c: kernel nodes the application adds to graphs explicitly,
 * the graphs it instantiates, launches, changes and destroys.
 *
 * A node added or set anew (cuGraphAddKernelNode, cuGraphKernelNodeSetParams,
 * cuGraphExecKernelNodeSetParams) goes to the driver with the settled
 * configuration of its signature where a node can hold one (apply.c:
 * gt_apply_node), else as the application gave it.  What the application
 * reads back of a node it set is what the driver holds.  Suspending the
 * shim (gputune_suspend) governs graphs' launches, not what graphs hold: a
 * node added or a graph instantiated while suspended gets the same as
 * otherwise. */
#include "apply.h"
#include "graphs.h"
#include "session.h"
#include "state.h"
#include "suspend.h"

/* The parameters to hand the driver: the application's, or `mine`. */
static const CUDA_KERNEL_NODE_PARAMS *node_params(const CUDA_KERNEL_NODE_PARAMS *p, CUDA_KERNEL_NODE_PARAMS *mine)
{
    return p && gt.mode != GT_MODE_OFF && gt_apply_node(p, mine, GT_NODE_AS_IS, NULL) ? mine : p;
}

CUresult cuGraphAddKernelNode_v2(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps, size_t ndeps,
                                 const CUDA_KERNEL_NODE_PARAMS *p)
{
    GT_REQUIRE_DRIVER();
    CUDA_KERNEL_NODE_PARAMS mine;
    return gt.drv.cuGraphAddKernelNode_v2(node, graph, deps, ndeps, node_params(p, &mine));
}

CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS *p)
{
    GT_REQUIRE_DRIVER();
    CUDA_KERNEL_NODE_PARAMS mine;
    return gt.drv.cuGraphKernelNodeSetParams_v2(node, node_params(p, &mine));
}

/* An executable graph the application changed: the shim's own copies of it
 * are stale from now on (launch/graphs.c). */
static CUresult changed(CUresult r, CUgraphExec exec)
{
    if (r == CUDA_SUCCESS && gt.mode != GT_MODE_OFF)
        gt_graphs_changed(exec);
    return r;
}

CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec exec, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS *p)
{
    GT_REQUIRE_DRIVER();
    CUDA_KERNEL_NODE_PARAMS mine;
    return changed(gt.drv.cuGraphExecKernelNodeSetParams_v2(exec, node, node_params(p, &mine)), exec);
}

/* ---- graphs instantiated: settled configurations into them, their
 * kernels tuned (tune mode) and their variants judged on the replays
 * (launch/graphs.c) ---- */

static CUresult instantiated(CUresult r, CUgraphExec *exec, CUgraph graph, unsigned long long flags)
{
    if (r == CUDA_SUCCESS && gt.mode != GT_MODE_OFF)
        gt_graphs_instantiated(*exec, graph, flags);
    return r;
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph, unsigned long long flags)
{
    GT_REQUIRE_DRIVER();
    return instantiated(gt.drv.cuGraphInstantiateWithFlags(exec, graph, flags), exec, graph, flags);
}

CUresult cuGraphInstantiateWithParams(CUgraphExec *exec, CUgraph graph, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    GT_REQUIRE_DRIVER();
    return instantiated(gt.drv.cuGraphInstantiateWithParams(exec, graph, p), exec, graph, p ? p->flags : 0);
}

CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *exec, CUgraph graph, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    GT_REQUIRE_DRIVER();
    return instantiated(gt.drv.cuGraphInstantiateWithParams_ptsz(exec, graph, p), exec, graph, p ? p->flags : 0);
}

/* A launch while the shim is suspended (gputune_suspend) replays what the
 * executable graph holds, neither tuned nor judged nor counted. */
static CUresult watched(CUgraphExec exec, CUstream s, int per_thread)
{
    return gt_suspended() ? gt_graphs_replay(exec, s, per_thread) : gt_graphs_launch(exec, s, per_thread);
}

/* As a kernel launch does, a graph's launch waits while another thread's
 * session runs (the modes with sessions); in any mode it may be one whose
 * replays are being judged (launch/graphs.c). */
static CUresult graph_launch(CUgraphExec exec, CUstream s, int per_thread)
{
    if (gt.mode == GT_MODE_OFF)
        return gt_graphs_replay(exec, s, per_thread);
    if (!gt_session_mode())
        return watched(exec, s, per_thread);
    gt_session_enter();
    CUresult r = watched(exec, s, per_thread);
    gt_session_leave();
    return r;
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream s)
{
    GT_REQUIRE_DRIVER();
    return graph_launch(exec, s, 0);
}

CUresult cuGraphLaunch_ptsz(CUgraphExec exec, CUstream s)
{
    GT_REQUIRE_DRIVER();
    return graph_launch(exec, s, 1);
}

CUresult cuGraphExecDestroy(CUgraphExec exec)
{
    GT_REQUIRE_DRIVER();
    if (gt.mode != GT_MODE_OFF)
        gt_graphs_destroyed(exec);
    return gt.drv.cuGraphExecDestroy(exec);
}

/* ---- the application's own changes to an executable graph ---- */

CUresult cuGraphExecUpdate_v2(CUgraphExec exec, CUgraph graph, CUgraphExecUpdateResultInfo *info)
{
    GT_REQUIRE_DRIVER();
    return changed(gt.drv.cuGraphExecUpdate_v2(exec, graph, info), exec);
}

CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec exec, CUgraphNode node, const CUDA_MEMCPY3D *p, CUcontext ctx)
{
    GT_REQUIRE_DRIVER();
    return changed(gt.drv.cuGraphExecMemcpyNodeSetParams(exec, node, p, ctx), exec);
}

CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec exec, CUgraphNode node, const CUDA_MEMSET_NODE_PARAMS *p,
                                        CUcontext ctx)
{
    GT_REQUIRE_DRIVER();
    return changed(gt.drv.cuGraphExecMemsetNodeSetParams(exec, node, p, ctx), exec);
}

CUresult cuGraphExecHostNodeSetParams(CUgraphExec exec, CUgraphNode node, const CUDA_HOST_NODE_PARAMS *p)
{
    GT_REQUIRE_DRIVER();
    return changed(gt.drv.cuGraphExecHostNodeSetParams(exec, node, p), exec);
}

CUresult cuGraphExecChildGraphNodeSetParams(CUgraphExec exec, CUgraphNode node, CUgraph child)
{
    GT_REQUIRE_DRIVER();
    return changed(gt.drv.cuGraphExecChildGraphNodeSetParams(exec, node, child), exec);
}

CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec exec, CUgraphNode node, CUevent event)
{
    GT_REQUIRE_DRIVER();
    return changed(gt.drv.cuGraphExecEventRecordNodeSetEvent(exec, node, event), exec);
}

CUresult cuGraphExecEventWaitNodeSetEvent(CUgraphExec exec, CUgraphNode node, CUevent event)
{
    GT_REQUIRE_DRIVER();
    return changed(gt.drv.cuGraphExecEventWaitNodeSetEvent(exec, node, event), exec);
}

CUresult cuGraphNodeSetEnabled(CUgraphExec exec, CUgraphNode node, unsigned enabled)
{
    GT_REQUIRE_DRIVER();
    return changed(gt.drv.cuGraphNodeSetEnabled(exec, node, enabled), exec);
}

CUresult cuGraphExecNodeSetParams(CUgraphExec exec, CUgraphNode node, CUgraphNodeParams *p)
{
    GT_REQUIRE_DRIVER();
    return changed(gt.drv.cuGraphExecNodeSetParams(exec, node, p), exec);
}

CUresult cuGraphExecExternalSemaphoresSignalNodeSetParams(CUgraphExec exec, CUgraphNode node,
                                                          const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *p)
{
    GT_REQUIRE_DRIVER();
    return changed(gt.drv.cuGraphExecExternalSemaphoresSignalNodeSetParams(exec, node, p), exec);
}

CUresult cuGraphExecExternalSemaphoresWaitNodeSetParams(CUgraphExec exec, CUgraphNode node,
                                                        const CUDA_EXT_SEM_WAIT_NODE_PARAMS *p)
{
    GT_REQUIRE_DRIVER();
    return changed(gt.drv.cuGraphExecExternalSemaphoresWaitNodeSetParams(exec, node, p), exec);
}

CUresult cuGraphExecBatchMemOpNodeSetParams(CUgraphExec exec, CUgraphNode node, const CUDA_BATCH_MEM_OP_NODE_PARAMS *p)
{
    GT_REQUIRE_DRIVER();
    return changed(gt.drv.cuGraphExecBatchMemOpNodeSetParams(exec, node, p), exec);
}
