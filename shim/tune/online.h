/* online.h: tuning the knobs that cannot change results on the application's own launches (see online.c). */
#ifndef GT_ONLINE_H
#define GT_ONLINE_H

#include "driver.h"

#include <stdint.h>

struct gt_plan;
struct gt_handle;
struct gt_call;

/* Runs a launch of a signature not tuned yet in online mode: one of its
 * candidates, timed.  Returns 1 with the launch's result in *r when it ran
 * the launch, 0 when the caller must launch the original; *waiting: the
 * signature's trial waits for builds, whose end moves the plan's version,
 * and until then its launches run the original. */
int gt_online_launch(struct gt_plan *p, struct gt_handle *hd, const struct gt_call *c, uint64_t sig,
                     const char *signature, CUresult *r, int *waiting);

/* How a graph that holds a signature's kernel in a node runs one of its
 * turns (launch/graphs.c): hold makes the node hold fn from the next
 * replay on (NULL: the node's own function), returning 0 or -1; replay
 * replays the graph once, with start and end (unless NULL) recorded around
 * that node alone where the graph can, else around the whole replay, the
 * same way for every turn of the node. */
struct gt_online_graph {
    int (*hold)(void *arg, CUfunction fn);
    CUresult (*replay)(void *arg, CUevent start, CUevent end);
    void *arg;
};

/* A replay of a graph with a kernel node of a signature not tuned yet in
 * online mode: one of its candidates in that node, the node timed.
 * Returns 1 with the replay's result in *r when it replayed the graph, 0
 * when the caller must replay it as it is, -1 when the signature is not
 * tuned online, or no longer.  With gr NULL it only makes the signature's
 * trial, its builds started, and replays nothing: a graph's nodes take
 * turns one after another, and their builds run meanwhile. */
int gt_online_node(struct gt_plan *p, struct gt_handle *hd, const struct gt_call *c, uint64_t sig,
                   const char *signature, const struct gt_online_graph *gr, CUresult *r);

/* Leaves plan p alone from now on where online mode is done with it (see online.c). */
void gt_online_settle(struct gt_plan *p);

/* At exit and before a context goes: decides the trials whose launches are all done (see online.c). */
void gt_online_collect(void);
/* At exit, at info: how many signatures were decided, and when the last. */
void gt_online_report(void);

/* Ends every trial still on before a context goes (see online.c). */
void gt_online_detach(void);

#endif
