/* estimate.c: the inputs of static Pareto pruning for one variant.
 *
 * Resources come from the driver for the variant as loaded: registers per
 * thread, and resident blocks per SM from the occupancy calculator at the
 * variant's block size and dynamic shared memory.  Instructions and
 * blocking regions per thread come from its PTX, run abstractly for thread
 * 0 of block 0 with the launch's real arguments and geometry (ptxcost.c),
 * so that loop trip counts that depend on parameters come out exact.  PTX
 * counts stand in for machine instructions, as in the method's original
 * form: ptxas's unrolling and scheduling are not seen. */
#include "estimate.h"
#include "alloc.h"
#include "ptxcost.h"
#include "state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARAMS 1024
#define MAX_STEPS 200000000L

/* The launch's arguments, one pointer each, whichever way it passed them. */
static int arg_pointers(const struct gt_kernel *k, const struct gt_call *c, const void **args, unsigned *n)
{
    int np = atomic_load(&k->nparams);
    if (np < 0 || np > MAX_PARAMS)
        return -1;
    for (int i = 0; i < np; i++)
        if (!(args[i] = gt_call_arg(c, k, i)))
            return -1;
    *n = (unsigned)np;
    return 0;
}

int gt_estimate(CUfunction fn, const struct gt_geom *g, const struct gt_jit_job *built, const struct gt_kernel *k,
                const struct gt_call *c, struct gt_estimate *e, char *why, size_t len)
{
    const char *ptx = built->input == GT_JIT_PTX ? built->text : built->ptx;
    unsigned threads = g->block[0] * g->block[1] * g->block[2];
    int regs = 0, blocks = 0;
    CUresult r = gt.drv.cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
    if (r == CUDA_SUCCESS)
        r = gt.drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, (int)threads, g->smem);
    if (r != CUDA_SUCCESS) {
        snprintf(why, len, "its resources are unknown: %s", gt_cu_error(r));
        return -1;
    }
    if (!ptx) {
        snprintf(why, len, "its PTX is not at hand");
        return -1;
    }
    const void **args = gt_malloc(MAX_PARAMS * sizeof *args);
    struct gt_ptxcost_launch l = {.args = args, .max_steps = MAX_STEPS};
    struct gt_ptxcost cost;
    int rc = -1;
    if (!args)
        snprintf(why, len, "out of memory");
    else if (arg_pointers(k, c, args, &l.nargs) != 0)
        snprintf(why, len, "its arguments are unknown");
    else {
        for (int i = 0; i < 3; i++)
            l.block[i] = g->block[i], l.grid[i] = g->grid[i];
        rc = gt_ptxcost(ptx, strlen(ptx), built->lowered ? built->lowered : k->name, &l, &cost, why, len);
    }
    free(args);
    if (rc != 0)
        return -1;
    *e = (struct gt_estimate){.instr = cost.instr, .regions = cost.regions,
                              .threads = (double)threads * g->grid[0] * g->grid[1] * g->grid[2],
                              .block_threads = threads, .blocks_per_sm = blocks, .regs = regs};
    return 0;
}
