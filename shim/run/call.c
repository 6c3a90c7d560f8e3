/* call.c: one launch as the application made it.
 *
 * A launch reaches the shim through one of six entry points, each with its
 * own way of passing the geometry, the stream and the arguments.  A gt_call
 * keeps the launch as it came, so that the shim can launch the original or
 * any variant the same way (other function, other geometry), and read its
 * arguments whichever way they were passed. */
#include "call.h"
#include "clock.h"

/* Launches f as the application launched, through the same entry point,
 * with geometry g. */
static CUresult call_launch(const struct gt_call *c, CUfunction f, const struct gt_geom *g)
{
    switch (c->entry) {
    case GT_ENTRY_EX:
    case GT_ENTRY_EX_PTSZ: {
        CUlaunchConfig cfg = *c->config;
        cfg.gridDimX = g->grid[0], cfg.gridDimY = g->grid[1], cfg.gridDimZ = g->grid[2];
        cfg.blockDimX = g->block[0], cfg.blockDimY = g->block[1], cfg.blockDimZ = g->block[2];
        cfg.sharedMemBytes = g->smem;
        cfg.hStream = c->s;
        return c->real.ex(&cfg, f, c->params, c->extra);
    }
    case GT_ENTRY_COOP:
    case GT_ENTRY_COOP_PTSZ:
        return c->real.coop(f, g->grid[0], g->grid[1], g->grid[2], g->block[0], g->block[1], g->block[2], g->smem,
                            c->s, c->params);
    default:
        return c->real.plain(f, g->grid[0], g->grid[1], g->grid[2], g->block[0], g->block[1], g->block[2], g->smem,
                             c->s, c->params, c->extra);
    }
}

/* A launch of the sampled ones (intercept/hook_launch.c) has the time it
 * spent in the driver counted apart from the shim's own. */
CUresult gt_call_launch(const struct gt_call *c, CUfunction f, const struct gt_geom *g)
{
    if (!c->in_driver)
        return call_launch(c, f, g);
    uint64_t t = gt_clock_ns();
    CUresult r = call_launch(c, f, g);
    *c->in_driver += gt_clock_ns() - t;
    return r;
}

int gt_call_per_thread(const struct gt_call *c)
{
    return c->entry == GT_ENTRY_LAUNCH_PTSZ || c->entry == GT_ENTRY_EX_PTSZ || c->entry == GT_ENTRY_COOP_PTSZ;
}

/* Argument i of the launch (whose kernel's parameter layout is known),
 * whichever way the launch passed it; NULL when it passed none. */
const unsigned char *gt_call_arg(const struct gt_call *c, const struct gt_kernel *k, int i)
{
    if (c->params)
        return c->params[i];
    for (void **e = c->extra; e && *e != CU_LAUNCH_PARAM_END; e += 2)
        if (*e == CU_LAUNCH_PARAM_BUFFER_POINTER)
            return (const unsigned char *)e[1] + k->params[i].offset;
    return NULL;
}
