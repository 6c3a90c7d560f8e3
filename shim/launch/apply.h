/* apply.h: configurations applied at launch (see apply.c). */
#ifndef GT_APPLY_H
#define GT_APPLY_H

#include "call.h"
#include "registry.h"

#include "online.h"
#include "plan.h"

/* A kernel node of a graph, seen as a launch (apply.c: node_call). */
struct gt_node {
    struct gt_handle *hd;
    struct gt_plan *p;
    struct gt_call c;
    uint64_t sig;
    char signature[GT_PLAN_SIGNATURE_MAX];
    struct gt_choice *ch; /* what gt_apply_node gave it */
    struct gt_geom g;     /* its geometry there */
};

/* 1 when run mode has nothing to apply in this process: no GPUTUNE_FORCE, no
 * cache entry that runs anything but the original, and a log below info.
 * The first call reads the settings and the cache. */
int gt_apply_idle(void);
int gt_apply_launch(struct gt_handle *hd, const struct gt_call *c, CUresult *r);
int gt_apply_node(const CUDA_KERNEL_NODE_PARAMS *in, CUDA_KERNEL_NODE_PARAMS *out, enum gt_node_use use,
                  struct gt_node *n);
/* Whether the replays of a kernel node's graph have something to settle:
 * its signature would get a session (tune mode), or its configuration is
 * a variant its guard has not judged yet (tuned on direct launches, as
 * frameworks launch a kernel a few times before they capture it). */
int gt_apply_node_open(const CUDA_KERNEL_NODE_PARAMS *in);
/* Tunes a kernel node's signature now, outside its graph, if it has not
 * been and the process's budget is not spent (tune/budget.c): a session
 * on stream s that launches nothing of the application's.  Returns 1 when
 * one ran. */
int gt_apply_tune_node(const CUDA_KERNEL_NODE_PARAMS *in, CUstream s, int per_thread);
/* Microseconds a launch of the node's kernel took on direct launches, as
 * the budget timed them (tune/budget.c); 0: unknown. */
double gt_apply_node_us(const CUDA_KERNEL_NODE_PARAMS *in);
/* A replay of a kernel node's graph in online mode, with a turn of its
 * signature's trial in the node (online.c: gt_online_node, which says what
 * it returns); -1 when its signature is not tuned online. */
int gt_apply_online_node(const CUDA_KERNEL_NODE_PARAMS *in, CUstream s, int per_thread,
                         const struct gt_online_graph *gr, CUresult *r);
void gt_apply_exit(void);
/* The guards still judging read what their launches left done, without
 * waiting, and give the verdicts that brings (gt_apply_collect); at the
 * first launch a guard times, gt_apply_watch_exit has that done once more at
 * exit, before the CUDA runtime's own exit handlers.  Before a context is
 * torn down, gt_apply_detach collects, then stops every guard still
 * judging: their events go with the context. */
void gt_apply_collect(void);
void gt_apply_watch_exit(void);
void gt_apply_detach(void);

#endif
