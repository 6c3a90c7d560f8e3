/* graphs.h: kernels that run in CUDA graphs (see graphs.c). */
#ifndef GT_GRAPHS_H
#define GT_GRAPHS_H

#include "driver.h"

/* After the application instantiated `graph` as `exec` with `flags` (any mode but off). */
void gt_graphs_instantiated(CUgraphExec exec, CUgraph graph, unsigned long long flags);
/* The application's launch of exec: it runs, with the steps of graphs.c
 * that are due.  Returns the launch's result. */
CUresult gt_graphs_launch(CUgraphExec exec, CUstream s, int per_thread);
/* The launch of exec as the application asked, none of those steps. */
CUresult gt_graphs_replay(CUgraphExec exec, CUstream s, int per_thread);
/* At exit: the graphs whose replays were not judged, said. */
void gt_graphs_exit(void);
/* The graphs whose replays are being judged read what their replays left
 * done, without waiting, and are judged if that brings a verdict
 * (gt_graphs_collect); or, their context being torn down, stop being
 * judged (gt_graphs_detach). */
void gt_graphs_collect(void);
void gt_graphs_detach(void);
/* Before the application destroys exec. */
void gt_graphs_destroyed(CUgraphExec exec);
/* After the application changed exec itself (an update, a node's parameters
 * or its being enabled): its kernels are tuned and judged no further. */
void gt_graphs_changed(CUgraphExec exec);

#endif
