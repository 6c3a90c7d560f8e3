/* hook_graph.c: kernel nodes the application adds to graphs explicitly.
 *
 * A node added or set anew (cuGraphAddKernelNode, cuGraphKernelNodeSetParams,
 * cuGraphExecKernelNodeSetParams) goes to the driver with the settled
 * configuration of its signature where a node can hold one (apply.c:
 * gt_apply_node), else as the application gave it.  What the application
 * reads back of a node it set is what the driver holds. */
#include "apply.h"
#include "state.h"

/* The parameters to hand the driver: the application's, or `mine`. */
static const CUDA_KERNEL_NODE_PARAMS *node_params(const CUDA_KERNEL_NODE_PARAMS *p, CUDA_KERNEL_NODE_PARAMS *mine)
{
    return p && gt.mode != GT_MODE_OFF && gt_apply_node(p, mine) ? mine : p;
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

CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec exec, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS *p)
{
    GT_REQUIRE_DRIVER();
    CUDA_KERNEL_NODE_PARAMS mine;
    return gt.drv.cuGraphExecKernelNodeSetParams_v2(exec, node, node_params(p, &mine));
}
