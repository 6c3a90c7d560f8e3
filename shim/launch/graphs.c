/* graphs.c: kernels that run in CUDA graphs: their configurations, and their checks on the replays.
 *
 * A graph's replay runs what the graph holds and never passes the launch
 * hooks.  At every instantiation (any mode but off), each kernel node gets
 * its signature's settled configuration, its variant loaded now if need be
 * (settle).  In tune mode a kernel launched only inside graphs is tuned
 * here, and in any mode a variant tuned on direct launches but not judged
 * yet (a framework launches a kernel a few times, then captures it) is
 * judged here, per executable graph:
 *   1. at instantiation, if a kernel node's signature may still be tuned
 *      or its variant is still to be judged, the graph is cloned: the
 *      application may destroy its own graph right after (as PyTorch
 *      does), and an executable graph is updated only from a graph of the
 *      same shape (cuGraphExecUpdate);
 *   2. its first launch runs as it is, so every buffer the nodes read holds
 *      what a replay leaves there;
 *   3. at its second launch each node still to be tuned gets a session of
 *      its own, outside the graph, as a direct launch of the same call would
 *      (apply.c: gt_apply_tune_node; its buffers are at fixed addresses, the
 *      session saves and restores them and launches nothing of the
 *      application's); a copy of the clone with the settled configurations
 *      becomes what the executable graph holds, and what a node can hold of
 *      the winners not judged yet, new or not (a variant, or launch-time
 *      knobs as a copy of the original image), goes into the clone;
 *      (in online mode no session runs: the nodes' candidates take turns on
 *      the replays first, below, then this step goes on without sessions);
 *   4. the launches after alternate between the two clones, each replay
 *      timed with events around it, and the guard (run/guard.c) judges the
 *      replays as it judges a kernel's launches: the winners stay only if
 *      the application's replays are faster with them; winners dropped
 *      together are then judged one at a time (next_single).  The verdict
 *      becomes each winner's and goes to the cache file at exit, so that
 *      run mode puts a kept one into graphs from then on (plan.c:
 *      gt_plan_node_function, gt_plan_run_captured).
 * The clones run as executable graphs of the shim's own, instantiated from
 * them and launched in the application's stead (present, launch): an
 * executable graph updated in place to other functions and back runs the
 * kernels after those nodes slower for as long as it lives (0.2-0.4 us
 * each on an H200, bench/results/frameworks.md), and online mode's turns
 * and the guard's alternation would leave that in the application's.  When
 * step 4 ends (done) the application's executable graph is updated once,
 * to what the replays ran last, and launched from then on; a launch on
 * another stream than the one before waits for it, as the driver orders
 * the launches of one executable graph (the `after` event).
 * Nothing here runs while a stream captures, and nothing synchronizes but
 * the sessions. */
#include "graphs.h"
#include "alloc.h"
#include "apply.h"
#include "guard.h"
#include "state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum step { WAITING, ONLINE, CHECKING, DONE };
enum { BUILT, TUNED, TRIAL, CLONES }; /* the clones, and the shim's executable graphs of them */

struct gt_graph {
    CUgraphExec exec;        /* the application's */
    unsigned long long flags; /* its instantiation's flags, the shim's own instantiated with them too */
    CUgraph built, tuned;    /* clones: with the settled configurations, and with the winners too */
    CUgraphExec own[CLONES]; /* the shim's executable graphs of the built, tuned and trial clones */
    unsigned long launches;
    enum step step;
    int showing;             /* the replays launch own[showing] (BUILT, TUNED or TRIAL), or the application's
                                (-1); once done, the clone the application's holds (BUILT or TUNED) */
    CUevent after;           /* recorded after each launch until done and one launch more, */
    CUstream last;           /* on this stream, */
    int last_per_thread;     /* through this API */
    atomic_int busy;         /* a thread is at work on it */
    atomic_int changed;      /* the application changed its executable graph itself (gt_graphs_changed) */
    struct gt_guard guard;   /* over whole replays: the tuned clone against the built one */
    struct gt_node *chosen;  /* the nodes given a winner */
    int nchosen;
    int single;              /* the winner judged alone now, the others' together dropped; -1: all together */
    struct won {             /* each winner: */
        CUgraphNode node;    /*   its node in the tuned clone */
        CUDA_KERNEL_NODE_PARAMS with, without; /* its function and geometry with the winner, and as built */
        int kept;            /*   kept, judged alone */
    } *won;
    /* online mode: a clone whose node `at` holds each turn's function */
    CUgraph trial;
    CUgraphNode *nodes;              /* its kernel nodes, */
    CUDA_KERNEL_NODE_PARAMS *base;   /* their functions and geometries with the settled configurations */
    size_t nnodes, at;
    CUfunction held;                 /* what node `at` holds in the executable graph (NULL: its base) */
    CUgraphNode marks[2];            /* event-record nodes before and after node `at`, */
    size_t marked;                   /* around node marked - 1 (0: none), */
    CUevent idle;                    /* recording this between turns */
    struct gt_graph *next;
};

/* The kernel nodes of g, in a new array of *n; NULL when none or on failure. */
static CUgraphNode *kernel_nodes(CUgraph g, size_t *n)
{
    size_t all = 0, k = 0;
    if (gt.drv.cuGraphGetNodes(g, NULL, &all) != CUDA_SUCCESS || all == 0)
        return NULL;
    CUgraphNode *v = gt_calloc(all, sizeof *v);
    if (!v || gt.drv.cuGraphGetNodes(g, v, &all) != CUDA_SUCCESS) {
        free(v);
        return NULL;
    }
    for (size_t i = 0; i < all; i++) {
        CUgraphNodeType t;
        if (gt.drv.cuGraphNodeGetType(v[i], &t) == CUDA_SUCCESS && t == CU_GRAPH_NODE_TYPE_KERNEL)
            v[k++] = v[i];
    }
    *n = k;
    if (!k) {
        free(v);
        v = NULL;
    }
    return v;
}

/* A kernel node's parameters as it holds them now, with the function,
 * context and geometry of `like`: the argument pointers a node's
 * parameters give stay valid only until the node is set again, so a copy
 * kept across settings holds only the rest. */
static int node_like(CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS *like, CUDA_KERNEL_NODE_PARAMS *q)
{
    if (gt.drv.cuGraphKernelNodeGetParams_v2(node, q) != CUDA_SUCCESS)
        return -1;
    void **args = q->kernelParams, **extra = q->extra;
    *q = *like;
    q->kernelParams = args;
    q->extra = extra;
    return 0;
}

/* The node set to `like`, its arguments as they are. */
static int set_like(CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS *like)
{
    CUDA_KERNEL_NODE_PARAMS q;
    return node_like(node, like, &q) == 0 && gt.drv.cuGraphKernelNodeSetParams_v2(node, &q) == CUDA_SUCCESS ? 0 : -1;
}

/* The shim's executable graph of clone i goes (its launches still in flight end first: the driver frees
 * it when they are done). */
static void forget(struct gt_graph *x, int i)
{
    if (x->own[i])
        gt.drv.cuGraphExecDestroy(x->own[i]);
    x->own[i] = NULL;
}

static void forget_all(struct gt_graph *x)
{
    for (int i = 0; i < CLONES; i++)
        forget(x, i);
}

static void drop_event(CUevent *e)
{
    if (*e)
        gt.drv.cuEventDestroy_v2(*e);
    *e = NULL;
}

/* The shim's executable graphs and events go: at the end, or before their
 * context does. */
static void let_go(struct gt_graph *x)
{
    forget_all(x);
    drop_event(&x->after);
    drop_event(&x->idle);
}

static void graph_free(struct gt_graph *x)
{
    let_go(x);
    if (x->built)
        gt.drv.cuGraphDestroy(x->built);
    if (x->tuned)
        gt.drv.cuGraphDestroy(x->tuned);
    if (x->trial)
        gt.drv.cuGraphDestroy(x->trial);
    free(x->nodes);
    free(x->base);
    gt_guard_free(&x->guard);
    free(x->chosen);
    free(x->won);
    free(x);
}

/* Each kernel node of g gets its settled configuration in exec, loaded
 * now (a graph made of captured launches holds only variants loaded
 * before, and one made only for graphs has none), unless a stream
 * captures.  Returns whether a node may still be tuned, or has a variant
 * to be judged on the replays. */
static int settle(CUgraphExec exec, CUgraph g)
{
    size_t n = 0;
    CUgraphNode *v = kernel_nodes(g, &n);
    int capturing = atomic_load(&gt.track.captures) != 0, open = 0;
    CUDA_KERNEL_NODE_PARAMS p, q;
    for (size_t i = 0; i < n; i++) {
        if (gt.drv.cuGraphKernelNodeGetParams_v2(v[i], &p) != CUDA_SUCCESS)
            continue;
        if (!capturing && gt_apply_node(&p, &q, GT_NODE_SETTLED, NULL) && q.func != p.func)
            gt.drv.cuGraphExecKernelNodeSetParams_v2(exec, v[i], &q);
        open |= gt_apply_node_open(&p);
    }
    free(v);
    return open;
}

void gt_graphs_instantiated(CUgraphExec exec, CUgraph graph, unsigned long long flags)
{
    /* a graph launched from the device never passes the launch hooks */
    if (!settle(exec, graph) || (flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH))
        return;
    struct gt_graph *x = gt_calloc(1, sizeof *x);
    if (!x)
        return;
    x->exec = exec;
    x->flags = flags & ~(unsigned long long)CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD; /* it names no stream here */
    x->showing = x->single = -1;
    gt_guard_init(&x->guard);
    CUresult r = gt.drv.cuGraphClone(&x->tuned, graph);
    if (r != CUDA_SUCCESS) {
        gt_debug("a graph's kernels are not tuned: it cannot be cloned (%s)", gt_cu_error(r));
        graph_free(x);
        return;
    }
    pthread_mutex_lock(&gt.launch.graphs_lock);
    x->next = gt.launch.graphs;
    gt.launch.graphs = x;
    atomic_fetch_add(&gt.launch.ngraphs, 1);
    pthread_mutex_unlock(&gt.launch.graphs_lock);
}

/* The record of exec, or NULL; the caller holds graphs_lock. */
static struct gt_graph *find(CUgraphExec exec)
{
    struct gt_graph *x = gt.launch.graphs;
    while (x && x->exec != exec)
        x = x->next;
    return x;
}

/* Whether the shim still works on x's replays, or orders them (the launch
 * after done). */
static int active(const struct gt_graph *x)
{
    return x->step != DONE || x->after;
}

static int checking(const struct gt_graph *x)
{
    return x->step == CHECKING;
}

/* The record of exec, claimed by this thread unless it is done (*mine);
 * NULL when there is none or another thread has it. */
static struct gt_graph *claim(CUgraphExec exec, int *mine)
{
    *mine = 0;
    if (!atomic_load(&gt.launch.ngraphs))
        return NULL;
    pthread_mutex_lock(&gt.launch.graphs_lock);
    struct gt_graph *x = find(exec);
    int expect = 0;
    if (x && active(x) && !(*mine = atomic_compare_exchange_strong(&x->busy, &expect, 1)))
        x = NULL;
    pthread_mutex_unlock(&gt.launch.graphs_lock);
    return x;
}

static CUgraph clone_of(const struct gt_graph *x, int i)
{
    return i == TRIAL ? x->trial : i == TUNED ? x->tuned : x->built;
}

static const char *clone_what(int i)
{
    return i == TRIAL ? "trial" : i == TUNED ? "tuned" : "original";
}

/* The executable graph e made to hold clone i. */
static int update_to(CUgraphExec e, const struct gt_graph *x, int i)
{
    CUgraphExecUpdateResultInfo info;
    CUresult r = gt.drv.cuGraphExecUpdate_v2(e, clone_of(x, i), &info);
    if (r != CUDA_SUCCESS)
        gt_debug("a graph cannot be updated to its %s kernels (%s, result %d)", clone_what(i), gt_cu_error(r),
                 (int)info.result);
    return r == CUDA_SUCCESS ? 0 : -1;
}

/* The replays launch clone i from now on, as the shim's executable graph of it: instantiated now where
 * there is none (the clone changed since: forget), the trial clone's updated in place (it changes at
 * every turn, and every candidate's turns run in it alike).  On failure the application's, as made. */
static int present(struct gt_graph *x, int i)
{
    if (x->showing == i && i != TRIAL)
        return 0;
    if (x->own[i] && i == TRIAL && update_to(x->own[i], x, i) != 0)
        forget(x, i);
    if (!x->own[i]) {
        CUDA_GRAPH_INSTANTIATE_PARAMS ip = {.flags = x->flags};
        CUresult r = gt.drv.cuGraphInstantiateWithParams(&x->own[i], clone_of(x, i), &ip);
        if (r != CUDA_SUCCESS) {
            gt_debug("a graph's %s kernels cannot be instantiated (%s)", clone_what(i), gt_cu_error(r));
            x->own[i] = NULL;
            x->showing = -1; /* the application's, which done() leaves with the kernels it was made with */
            return -1;
        }
    }
    x->showing = i;
    return 0;
}

static int show(struct gt_graph *x, int tuned)
{
    return present(x, tuned ? TUNED : BUILT);
}

/* Step 4 ends: the application's executable graph is updated, once, to the clone the replays launched
 * last (the built one unless the tuned one), and launched from then on. */
static enum step done(struct gt_graph *x)
{
    int i = x->showing == TUNED ? TUNED : BUILT;
    if (i == TUNED && update_to(x->exec, x, TUNED) != 0)
        i = BUILT;
    if (i == BUILT && x->built)
        update_to(x->exec, x, BUILT);
    x->showing = i;
    forget_all(x);
    return DONE;
}

struct ranked {
    double us; /* a launch's time on direct launches; 0: unknown */
    size_t i;  /* its place in the graph */
};

static int slowest_first(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->us != y->us)
        return x->us < y->us ? 1 : -1;
    return (x->i > y->i) - (x->i < y->i);
}

/* The order of the nodes' sessions: where the process's budget timed their
 * kernels on direct launches, the slowest launch first (tune/budget.c), the
 * rest in the graph's order.  NULL: the graph's order. */
static struct ranked *session_order(CUgraphNode *v, size_t n)
{
    struct ranked *o = gt.env.budget > 0 && n ? gt_calloc(n, sizeof *o) : NULL;
    CUDA_KERNEL_NODE_PARAMS p;
    for (size_t i = 0; o && i < n; i++)
        o[i] = (struct ranked){gt.drv.cuGraphKernelNodeGetParams_v2(v[i], &p) == CUDA_SUCCESS ?
                                   gt_apply_node_us(&p) : 0, i};
    if (o)
        qsort(o, n, sizeof *o, slowest_first);
    return o;
}

/* Step 3: every untuned node's session; then the clone's nodes get what
 * is settled, a copy of it becomes the built clone (what the executable
 * graph holds from now on), and the clone's nodes get the winners under
 * check.  Returns how many nodes have one. */
static int tune_nodes(struct gt_graph *x, CUstream s, int per_thread)
{
    size_t n = 0;
    CUgraphNode *v = kernel_nodes(x->tuned, &n);
    struct ranked *order = session_order(v, n);
    CUDA_KERNEL_NODE_PARAMS p, q;
    for (size_t k = 0; k < n; k++) {
        size_t i = order ? order[k].i : k;
        if (gt.drv.cuGraphKernelNodeGetParams_v2(v[i], &p) != CUDA_SUCCESS)
            continue;
        gt_apply_tune_node(&p, s, per_thread);
        if (gt_apply_node(&p, &q, GT_NODE_SETTLED_COPY, NULL))
            gt.drv.cuGraphKernelNodeSetParams_v2(v[i], &q);
    }
    free(order);
    CUresult r = n ? gt.drv.cuGraphClone(&x->built, x->tuned) : CUDA_ERROR_INVALID_VALUE;
    x->chosen = r == CUDA_SUCCESS ? gt_calloc(n, sizeof *x->chosen) : NULL;
    x->won = x->chosen ? gt_calloc(n, sizeof *x->won) : NULL;
    for (size_t i = 0; x->won && i < n; i++) {
        struct gt_node *c = &x->chosen[x->nchosen];
        if (gt.drv.cuGraphKernelNodeGetParams_v2(v[i], &p) == CUDA_SUCCESS &&
            gt_apply_node(&p, &q, GT_NODE_CHECKED, c) && q.func != p.func &&
            gt.drv.cuGraphKernelNodeSetParams_v2(v[i], &q) == CUDA_SUCCESS)
            x->won[x->nchosen++] = (struct won){.node = v[i], .with = q, .without = p};
    }
    free(v);
    return x->built ? x->nchosen : 0;
}

CUresult gt_graphs_replay(CUgraphExec exec, CUstream s, int per_thread)
{
    return (per_thread ? gt.drv.cuGraphLaunch_ptsz : gt.drv.cuGraphLaunch)(exec, s);
}

/* The replay the application asked for, of what the replays launch now
 * (present); on another stream than the launch before, after it. */
static CUresult launch(struct gt_graph *x, CUstream s, int per_thread)
{
    CUgraphExec e = x->step != DONE && x->showing >= 0 && x->own[x->showing] ? x->own[x->showing] : x->exec;
    if (x->after && (s != x->last || per_thread != x->last_per_thread))
        (per_thread ? gt.drv.cuStreamWaitEvent_ptsz : gt.drv.cuStreamWaitEvent)(s, x->after, 0);
    CUresult r = gt_graphs_replay(e, s, per_thread);
    if (x->step == DONE) {
        drop_event(&x->after); /* the application's from now on, which the driver orders itself */
        return r;
    }
    if (!x->after && gt.drv.cuEventCreate(&x->after, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
        x->after = NULL;
    if (x->after && gt_event_record(x->after, s, per_thread) != CUDA_SUCCESS)
        drop_event(&x->after);
    x->last = s;
    x->last_per_thread = per_thread;
    return r;
}

/* The winners the guard judges now: [*from, return). */
static int judging(const struct gt_graph *x, int *from)
{
    *from = x->single < 0 ? 0 : x->single;
    return x->single < 0 ? x->nchosen : x->single + 1;
}

#define WHAT_MAX (GT_PLAN_SIGNATURE_MAX + 2048) /* kernel names: a C++ template's may be long */

/* What the guard judges now, as messages name it. */
static const char *judged_what(const struct gt_graph *x, char *buf, size_t len)
{
    int from, to = judging(x, &from);
    if (x->single < 0)
        snprintf(buf, len, "a graph with %d tuned kernel node%s (%s first)", to - from, to - from == 1 ? "" : "s",
                 x->chosen[from].p->shown);
    else
        snprintf(buf, len, "a graph's kernel node of %s, launch %s, judged alone", x->chosen[from].p->shown,
                 x->chosen[from].signature);
    return buf;
}

/* The guard's verdict, given to every winner it judged, and said. */
static void adopt(struct gt_graph *x)
{
    int kept = x->guard.verdict == GT_GUARD_KEPT, from, to = judging(x, &from);
    for (int i = from; i < to; i++) {
        struct gt_node *c = &x->chosen[i];
        gt_guard_adopt(&c->ch->guard, &x->guard, to - from);
        atomic_fetch_add(&c->ch->launches, (unsigned long)(x->guard.n[0] + x->guard.n[1]));
        x->won[i].kept = kept;
    }
    char what[WHAT_MAX];
    gt_info("%s: its replays take %.2f us against %.2f us with the original kernels (%d and %d timed), %.2fx; %s",
            judged_what(x, what, sizeof what), x->guard.med[1], x->guard.med[0], x->guard.n[1], x->guard.n[0],
            1 / x->guard.ratio,
            kept ? "kept" : x->single < 0 ? "the original kernels run from now on" : "its original stays");
}

/* The tuned clone with the winners that `with` says, the others as built;
 * the executable graph is updated to it at the next show. */
static int hold_winners(struct gt_graph *x, int (*with)(const struct gt_graph *x, int i))
{
    for (int i = 0; i < x->nchosen; i++)
        if (set_like(x->won[i].node, with(x, i) ? &x->won[i].with : &x->won[i].without) != 0)
            return -1;
    forget(x, TUNED);
    x->showing = -1;
    return 0;
}

static int the_single(const struct gt_graph *x, int i) { return i == x->single; }
static int kept_alone(const struct gt_graph *x, int i) { return x->won[i].kept; }

/* A graph whose winners, judged together, were dropped has them judged one
 * at a time on the replays that follow, the tuned clone holding that one
 * alone: one winner that slows the replays would otherwise take the others
 * with it.  Once each is judged the executable graph holds those kept.
 * Returns 0 when a winner's check is on, -1 when none is left. */
static int next_single(struct gt_graph *x)
{
    if (x->single < 0 && (x->nchosen < 2 || x->guard.verdict != GT_GUARD_DROPPED))
        return -1;
    x->single++;
    if (x->single < x->nchosen && hold_winners(x, the_single) == 0) {
        gt_guard_free(&x->guard);
        gt_guard_init(&x->guard);
        return 0;
    }
    int any = 0;
    for (int i = 0; i < x->nchosen; i++)
        any |= x->won[i].kept;
    if (!any || hold_winners(x, kept_alone) != 0 || show(x, 1) != 0)
        show(x, 0);
    return -1;
}

/* The verdict reached on a replay: the executable graph holds what it says from now on. */
static void judged(struct gt_graph *x)
{
    if (show(x, x->guard.verdict == GT_GUARD_KEPT) == 0)
        adopt(x);
}

/* Step 4: one replay under the guard. */
static CUresult checked(struct gt_graph *x, CUstream s, int per_thread)
{
    struct gt_guard_slot *slot = NULL;
    int timed = gt_guard_take(&x->guard, &slot);
    if (timed && show(x, slot->variant) != 0) {
        gt_guard_settle(&x->guard, 1);
        x->showing = BUILT;
        x->step = done(x);
        return launch(x, s, per_thread);
    }
    if (timed)
        gt_guard_mark(slot, 0, s, per_thread);
    CUresult r = launch(x, s, per_thread);
    if (timed)
        gt_guard_mark(slot, 1, s, per_thread);
    if (gt_guard_settle(&x->guard, timed)) {
        judged(x);
        if (next_single(x) != 0)
            x->step = done(x);
    } else if (x->guard.broken) {
        x->showing = BUILT;
        x->step = done(x);
    }
    return r;
}

/* The nodes given a winner run it in every replay from now on. */
static void count_tuned(struct gt_graph *x)
{
    for (int i = 0; x->showing == TUNED && !atomic_load(&x->changed) && i < x->nchosen; i++) {
        struct gt_node *c = &x->chosen[i];
        if (x->single >= 0 && !x->won[i].kept)
            continue;
        atomic_fetch_add_explicit(&c->ch->launches, 1, memory_order_relaxed);
        gt_reg_note_launch(c->hd, &c->g, GT_ENTRY_LAUNCH, GT_LAUNCH_APPLIED);
    }
}

/* Step 3 done: the replays check the winners from now on, or there are none. */
static enum step to_check(struct gt_graph *x, CUstream s, int per_thread)
{
    if (!tune_nodes(x, s, per_thread)) {
        x->showing = BUILT;
        return done(x);
    }
    gt_apply_watch_exit();
    return CHECKING;
}

/* ---- online mode: the nodes' candidates take turns on the replays ----
 *
 * In online mode step 3 is no session: the kernel nodes whose signatures
 * are still to be tuned take turns, one node at a time, in a third clone
 * (the trial clone, with the settled configurations): at each replay the
 * node holds the function of its next candidate (online.c picks it), the
 * shim's executable graph of the clone is updated to it, and the node is
 * timed by two event-record nodes around it (mark), or where it cannot be
 * marked the whole replay by events on the application's stream.  Nothing
 * synchronizes.  When every such node is decided, step 3 goes on as in tune
 * mode, the winners judged on the replays (step 4). */

struct turn {
    struct gt_graph *x;
    CUstream s;
    int per_thread;
};

/* The marks go, and with them the shim's executable graph of the trial
 * clone, whose topology they were part of. */
static void unmark(struct gt_graph *x)
{
    for (int i = 0; i < 2; i++)
        if (x->marks[i])
            gt.drv.cuGraphDestroyNode(x->marks[i]);
    x->marks[0] = x->marks[1] = NULL;
    forget(x, TRIAL);
    if (x->showing == TRIAL)
        x->showing = -1;
}

#define MARK_DEPS 64

/* NULL where r is success, else why: the call and its error. */
static const char *driver_failed(const char *call, CUresult r, char *why, size_t len)
{
    if (r == CUDA_SUCCESS)
        return NULL;
    snprintf(why, len, "%s: %s", call, gt_cu_error(r));
    return why;
}

/* Node `at` of the trial clone between two event-record nodes, the first
 * after the node's dependencies and before it, the second after it, which
 * each turn's events take (replay): a candidate's time is the node's, not
 * the whole replay's, in which a node's 0.1-0.3 us differences drown (a
 * PyTorch graph's replay takes about 100 us, bench/results/frameworks.md).
 * Returns NULL, or why the node cannot be marked in why: an edge with data
 * (a programmatic launch's, whose node overlaps the one before: it has no
 * time of its own), or the driver failing. */
static const char *marks_add(struct gt_graph *x, char *why, size_t len)
{
    CUgraphNode node = x->nodes[x->at], deps[MARK_DEPS];
    CUgraphEdgeData edges[MARK_DEPS];
    size_t n = 0;
    const char *e;
    if ((!x->idle && (e = driver_failed("cuEventCreate", gt.drv.cuEventCreate(&x->idle, CU_EVENT_DEFAULT), why, len))) ||
        (e = driver_failed("cuGraphNodeGetDependencies", gt.drv.cuGraphNodeGetDependencies_v2(node, NULL, NULL, &n),
                           why, len)))
        return e;
    if (n > MARK_DEPS) {
        snprintf(why, len, "%zu nodes before it, more than %d", n, MARK_DEPS);
        return why;
    }
    /* A first node has none to read, and the driver refuses arrays with a
     * count of 0 (driver 580: CUDA_ERROR_INVALID_VALUE). */
    if (n && (e = driver_failed("cuGraphNodeGetDependencies",
                                gt.drv.cuGraphNodeGetDependencies_v2(node, deps, edges, &n), why, len)))
        return e;
    for (size_t i = 0; i < n; i++)
        if (edges[i].type != CU_GRAPH_DEPENDENCY_TYPE_DEFAULT || edges[i].from_port || edges[i].to_port) {
            snprintf(why, len, "an edge into it carries data (type %u), as a programmatic launch's does",
                     (unsigned)edges[i].type);
            return why;
        }
    if ((e = driver_failed("cuGraphAddEventRecordNode",
                           gt.drv.cuGraphAddEventRecordNode(&x->marks[0], x->trial, deps, n, x->idle), why, len)) ||
        (e = driver_failed("cuGraphAddDependencies",
                           gt.drv.cuGraphAddDependencies_v2(x->trial, &x->marks[0], &node, NULL, 1), why, len)))
        return e;
    return driver_failed("cuGraphAddEventRecordNode",
                         gt.drv.cuGraphAddEventRecordNode(&x->marks[1], x->trial, &node, 1, x->idle), why, len);
}

/* The kernel node `at` holds, as messages name it. */
static const char *node_kernel(const struct gt_graph *x)
{
    const CUDA_KERNEL_NODE_PARAMS *q = &x->base[x->at];
    struct gt_handle *hd = gt_reg_lookup(q->kern ? (void *)q->kern : (void *)q->func);
    return hd ? hd->kernel->name : "(unknown)";
}

/* The marks moved to node `at`, once for each node, before its first turn;
 * a node that cannot be marked has every turn time the whole replay. */
static void mark(struct gt_graph *x)
{
    char why[160];
    unmark(x);
    x->marked = x->at + 1;
    if (marks_add(x, why, sizeof why)) {
        gt_debug("kernel %s: its node in a graph cannot be timed alone (%s); its online turns time the whole replay",
                 node_kernel(x), why);
        unmark(x);
    }
}

/* Online turns are over (every node decided, or the application changed
 * its executable graph): the trial clone goes, with its marks and their
 * idle event, so that nothing of the shim's outlives the turns but what a
 * context's end lets go (gt_graphs_detach). */
static void end_trial(struct gt_graph *x)
{
    unmark(x);
    if (x->trial)
        gt.drv.cuGraphDestroy(x->trial);
    x->trial = NULL;
    drop_event(&x->idle);
}

/* The marks record start and end at the next replay (idle, NULL: between
 * turns). */
static int marks_record(struct gt_graph *x, CUevent start, CUevent end)
{
    CUgraphExec e = x->own[TRIAL];
    return gt.drv.cuGraphExecEventRecordNodeSetEvent(e, x->marks[0], start ? start : x->idle) == CUDA_SUCCESS &&
                   gt.drv.cuGraphExecEventRecordNodeSetEvent(e, x->marks[1], end ? end : x->idle) == CUDA_SUCCESS
               ? 0
               : -1;
}

/* The executable graph holds the trial clone with node `at` holding fn
 * (NULL: its base) from the next replay on, node `at` marked. */
static int hold(void *arg, CUfunction fn)
{
    struct gt_graph *x = ((struct turn *)arg)->x;
    if (x->marked != x->at + 1)
        mark(x);
    if (x->showing == TRIAL && fn == x->held)
        return 0;
    CUDA_KERNEL_NODE_PARAMS q = x->base[x->at];
    if (fn) {
        q.func = fn;
        q.kern = NULL;
        q.ctx = NULL;
    }
    x->showing = -1;
    if (set_like(x->nodes[x->at], &q) != 0)
        return -1;
    x->held = fn;
    return present(x, TRIAL);
}

/* A turn's replay: start and end recorded by the marks, or around the whole
 * replay where the node has none.  A mark that cannot take its event
 * leaves the turn's events unrecorded, which ends the trial (online.c). */
static CUresult replay(void *arg, CUevent start, CUevent end)
{
    struct turn *t = arg;
    struct gt_graph *x = t->x;
    int marked = x->marks[0] && x->showing == TRIAL && x->own[TRIAL];
    if (!marked || !start) {
        gt_event_record(start, t->s, t->per_thread);
        CUresult r = launch(x, t->s, t->per_thread);
        gt_event_record(end, t->s, t->per_thread);
        return r;
    }
    marks_record(x, start, end);
    CUresult r = launch(x, t->s, t->per_thread);
    /* A turn's events are released once read: no later replay may record
     * them.  Where they cannot be taken back, the executable graph goes,
     * made again from the clone, whose marks record the idle event. */
    if (marks_record(x, NULL, NULL) != 0) {
        forget(x, TRIAL);
        x->showing = -1;
    }
    return r;
}

/* The trial clone and its kernel nodes, the settled configurations in
 * them, and the trials of the nodes' signatures, their builds started.
 * Returns 0, or -1 when it cannot be made. */
static int start_online(struct gt_graph *x, CUstream s, int per_thread)
{
    CUresult r;
    CUDA_KERNEL_NODE_PARAMS q;
    if (gt.drv.cuGraphClone(&x->trial, x->tuned) != CUDA_SUCCESS || !(x->nodes = kernel_nodes(x->trial, &x->nnodes)))
        return -1;
    if (!(x->base = gt_calloc(x->nnodes, sizeof *x->base)))
        return -1;
    for (size_t i = 0; i < x->nnodes; i++) {
        if (gt.drv.cuGraphKernelNodeGetParams_v2(x->nodes[i], &x->base[i]) != CUDA_SUCCESS)
            return -1;
        if (gt_apply_node(&x->base[i], &q, GT_NODE_SETTLED_COPY, NULL) &&
            gt.drv.cuGraphKernelNodeSetParams_v2(x->nodes[i], &q) == CUDA_SUCCESS)
            x->base[i] = q;
    }
    for (size_t i = 0; i < x->nnodes; i++)
        if (node_like(x->nodes[i], &x->base[i], &q) == 0)
            gt_apply_online_node(&q, s, per_thread, NULL, &r);
    gt_apply_watch_exit(); /* the last turns are read at exit */
    return 0;
}

/* One replay in step 3 of online mode: a turn of the first node still to
 * be decided, or the replay as it is while none is to run.  Once every
 * node is decided, the trial clone goes and step 4 starts. */
static CUresult online_turn(struct gt_graph *x, CUstream s, int per_thread)
{
    struct turn t = {x, s, per_thread};
    struct gt_online_graph gr = {.hold = hold, .replay = replay, .arg = &t};
    CUresult r;
    CUDA_KERNEL_NODE_PARAMS q;
    for (; x->at < x->nnodes; x->at++, x->showing = -1, x->held = NULL) {
        int st = node_like(x->nodes[x->at], &x->base[x->at], &q) == 0 ?
                     gt_apply_online_node(&q, s, per_thread, &gr, &r) : -1;
        if (st >= 0)
            return st ? r : launch(x, s, per_thread);
    }
    end_trial(x);
    x->showing = -1;
    x->step = to_check(x, s, per_thread);
    return x->step == CHECKING ? checked(x, s, per_thread) : launch(x, s, per_thread);
}

/* The application changed its executable graph while the shim's own ran in
 * its stead: those are stale, so they go, and the application's runs as it
 * is from now on, nothing judged. */
static void given_up(struct gt_graph *x)
{
    gt_info("a graph's executable graph was changed by the application while its kernels were %s; they run as "
            "it has them", x->step == CHECKING ? "judged on its replays" : "tuned");
    x->showing = BUILT;
    end_trial(x);
    forget_all(x);
    x->step = DONE;
}

CUresult gt_graphs_launch(CUgraphExec exec, CUstream s, int per_thread)
{
    int mine;
    struct gt_graph *x = claim(exec, &mine);
    if (x && mine && x->step != DONE && atomic_load(&x->changed))
        given_up(x);
    if (x && mine)
        x->launches++;
    int quiet = x && mine && !atomic_load(&gt.track.captures);
    if (quiet && x->step == WAITING && x->launches >= 2)
        x->step = gt.mode == GT_MODE_ONLINE && start_online(x, s, per_thread) == 0 ? ONLINE : to_check(x, s, per_thread);
    CUresult r = quiet && x->step == ONLINE     ? online_turn(x, s, per_thread)
                 : quiet && x->step == CHECKING ? checked(x, s, per_thread)
                 : quiet                        ? launch(x, s, per_thread)
                                                : gt_graphs_replay(exec, s, per_thread);
    if (x && x->step == DONE && r == CUDA_SUCCESS)
        count_tuned(x);
    if (mine)
        atomic_store(&x->busy, 0);
    return r;
}

/* A graph destroyed, or left at exit, before its replays were judged. */
static void unjudged(const struct gt_graph *x)
{
    char what[WHAT_MAX];
    if (x->step == CHECKING && x->nchosen)
        gt_info("%s: not judged after %lu launches (%d and %d replays timed, too few); %s",
                judged_what(x, what, sizeof what), x->launches, x->guard.n[1], x->guard.n[0],
                x->single < 0 ? "its winners go into no graph unchecked" : "it goes into no graph unchecked");
}

void gt_graphs_exit(void)
{
    pthread_mutex_lock(&gt.launch.graphs_lock);
    for (struct gt_graph *x = gt.launch.graphs; x; x = x->next)
        unjudged(x);
    pthread_mutex_unlock(&gt.launch.graphs_lock);
}

/* Each graph `which` names that no thread is at work on: fn(x). */
static void each(int (*which)(const struct gt_graph *x), void (*fn)(struct gt_graph *x))
{
    pthread_mutex_lock(&gt.launch.graphs_lock);
    for (struct gt_graph *x = gt.launch.graphs; x; x = x->next) {
        int expect = 0;
        if (which(x) && atomic_compare_exchange_strong(&x->busy, &expect, 1)) {
            fn(x);
            atomic_store(&x->busy, 0);
        }
    }
    pthread_mutex_unlock(&gt.launch.graphs_lock);
}

/* At exit, or before the context goes: no replay follows, so the
 * executable graph is left as it is. */
static void collect(struct gt_graph *x)
{
    if (gt_guard_settle(&x->guard, 0)) {
        adopt(x);
        x->step = DONE;
    }
}

/* Whatever step it is at, its context's objects go with the context: the
 * shim's executable graphs and events go first, its guard stops, its
 * turns and checks end, and the application's executable graph runs as it
 * has it. */
static void detach(struct gt_graph *x)
{
    gt_guard_detach(&x->guard);
    let_go(x);
    x->step = DONE;
}

void gt_graphs_collect(void)
{
    each(checking, collect);
}

void gt_graphs_detach(void)
{
    each(active, detach);
}

void gt_graphs_changed(CUgraphExec exec)
{
    if (!atomic_load(&gt.launch.ngraphs))
        return;
    pthread_mutex_lock(&gt.launch.graphs_lock);
    struct gt_graph *x = find(exec);
    if (x)
        atomic_store(&x->changed, 1);
    pthread_mutex_unlock(&gt.launch.graphs_lock);
}

void gt_graphs_destroyed(CUgraphExec exec)
{
    if (!atomic_load(&gt.launch.ngraphs))
        return;
    pthread_mutex_lock(&gt.launch.graphs_lock);
    struct gt_graph **at = &gt.launch.graphs;
    while (*at && (*at)->exec != exec)
        at = &(*at)->next;
    struct gt_graph *x = *at;
    if (x) {
        *at = x->next;
        atomic_fetch_sub(&gt.launch.ngraphs, 1);
    }
    pthread_mutex_unlock(&gt.launch.graphs_lock);
    if (x) {
        if (x->step == CHECKING) /* what its last replays left done: the application may have waited for them */
            collect(x);
        unjudged(x);
        graph_free(x);
    }
}
