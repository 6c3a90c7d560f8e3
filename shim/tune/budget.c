/* budget.c: what tune mode spends, and on which signatures first.
 *
 * GPUTUNE_BUDGET bounds the seconds all sessions of a process take
 * together; once they are spent nothing more is tuned, and what was not
 * tuned is left to a later run (nothing is written for it).  Under a
 * budget, signatures are tuned hottest first: after one untimed launch,
 * the next METER_TIMED launches of each signature not tuned yet are timed
 * on the GPU (two events on the application's stream, read later without
 * waiting), and its share of GPU time is their median times its launches
 * so far.  A launch then starts its signature's session only when no
 * other untuned signature launched in the same epoch (since the last
 * session ended, at most EPOCH_SECONDS) has a larger share, so that a hot
 * signature is not kept waiting by one that ran once and never again.
 * A graph's kernel nodes are tuned at the graph's second launch
 * (launch/graphs.c): their launches run inside the replays, where nothing
 * meters them, so the nodes whose kernels were timed on direct launches
 * before (a framework's warm-up before its capture) go first, the slowest
 * launch first, then the rest in the graph's order.  They count among the
 * signatures seen and tuned, and none starts once the budget is spent.
 * Without a budget every signature is tuned at its first launch.  Either
 * way a progress line at info says, at most once a second, how far tuning
 * has come. */
#include "budget.h"
#include "alloc.h"
#include "call.h"
#include "clock.h"
#include "median.h"
#include "plan.h"
#include "state.h"

#include <stdio.h>
#include <stdlib.h>

#define METER_TIMED 3
#define EPOCH_SECONDS 1.0
#define SAY_EVERY 1.0

#define B (gt.tune.budget) /* this module's part of the state */

/* One signature's use of the GPU before it is tuned. */
struct gt_meter {
    struct gt_meter *next;  /* in B.all */
    const struct gt_plan *p;
    uint64_t sig;
    unsigned long launches;
    CUevent ev[METER_TIMED][2];
    int issued;             /* timed launches */
    int read;               /* of them, read back */
    double us[METER_TIMED];
    unsigned epoch;         /* the last one it was launched in */
    int tuned, broken;      /* broken: its time is unknown, and taken as 0 */
    int node;               /* tuned as a graph's kernel node: its time is not measured */
};

/* Its meter, or NULL: none yet, or its key holds another signature's
 * (*taken: the key holds a meter, its own or another's). */
static struct gt_meter *find_meter(const struct gt_plan *p, uint64_t sig, int *taken)
{
    struct gt_meter *m = gt_map_get(&B.meters, gt_plan_key(p, sig));
    *taken = m != NULL;
    return m && m->p == p && m->sig == sig ? m : NULL;
}

/* Its meter, made at its first launch; NULL where it cannot have one. */
static struct gt_meter *meter_of(const struct gt_plan *p, uint64_t sig)
{
    int taken;
    struct gt_meter *m = find_meter(p, sig, &taken);
    if (m || taken)
        return m;
    if (!(m = gt_calloc(1, sizeof *m)))
        return NULL;
    *m = (struct gt_meter){.next = B.all, .p = p, .sig = sig};
    if (gt_map_put(&B.meters, gt_plan_key(p, sig), m) != 0) {
        free(m);
        return NULL;
    }
    B.all = m;
    B.nmeters++;
    return m;
}

static void release(struct gt_meter *m)
{
    for (int i = 0; i < m->issued; i++)
        for (int e = 0; e < 2; e++)
            if (m->ev[i][e]) {
                gt.drv.cuEventDestroy_v2(m->ev[i][e]);
                m->ev[i][e] = NULL;
            }
}

/* Reads the timed launches that finished, in order, without waiting. */
static void read_meter(struct gt_meter *m)
{
    while (m->read < m->issued && !m->broken) {
        float ms = 0;
        CUresult q = gt.drv.cuEventQuery(m->ev[m->read][1]);
        if (q == CUDA_ERROR_NOT_READY)
            return;
        if (q != CUDA_SUCCESS || gt.drv.cuEventElapsedTime_v2(&ms, m->ev[m->read][0], m->ev[m->read][1]) !=
                                     CUDA_SUCCESS || ms <= 0)
            m->broken = 1;
        else
            m->us[m->read++] = ms * 1e3;
    }
    if (m->read == METER_TIMED || m->broken)
        release(m);
}

static int measured(const struct gt_meter *m)
{
    return m->read == METER_TIMED || m->broken;
}

/* Its timed launches issued, their times not read yet: the GPU runs
 * behind the application's launches, which could keep every signature
 * waiting to its last launch.  Waits for them, as the session that may
 * follow would wait for the context anyway.  0 once they are read. */
static int wait_meter(struct gt_meter *m)
{
    if (gt.drv.cuEventSynchronize(m->ev[METER_TIMED - 1][1]) != CUDA_SUCCESS)
        m->broken = 1;
    read_meter(m);
    return measured(m) ? 0 : -1;
}

/* Microseconds one launch takes, as far as its timed launches tell; 0:
 * unknown. */
static double per_launch(const struct gt_meter *m)
{
    if (m->broken || !m->read)
        return 0;
    double t[METER_TIMED];
    for (int i = 0; i < m->read; i++)
        t[i] = m->us[i];
    return gt_median(t, m->read);
}

/* Microseconds of GPU time it has taken so far. */
static double share(const struct gt_meter *m)
{
    return per_launch(m) * (double)m->launches;
}

/* Launches c with events around it, as the meter's next timed launch. */
static CUresult timed_launch(struct gt_meter *m, const struct gt_call *c)
{
    CUevent *ev = m->ev[m->issued];
    int per_thread = gt_call_per_thread(c);
    if (gt.drv.cuEventCreate(&ev[0], CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
        gt.drv.cuEventCreate(&ev[1], CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
        m->broken = 1;
        return gt_call_launch(c, c->f, &c->g);
    }
    gt_event_record(ev[0], c->s, per_thread);
    CUresult r = gt_call_launch(c, c->f, &c->g);
    gt_event_record(ev[1], c->s, per_thread);
    m->issued++;
    if (r != CUDA_SUCCESS) /* the application's own error; its time means nothing */
        m->broken = 1;
    return r;
}

/* No untuned signature launched in this epoch has taken more GPU time. */
static int hottest(const struct gt_meter *m)
{
    double mine = share(m);
    for (struct gt_meter *o = B.all; o; o = o->next) {
        if (o == m || o->tuned || o->epoch != B.epoch)
            continue;
        read_meter(o);
        if (measured(o) && share(o) > mine)
            return 0;
    }
    return 1;
}

static int spent(void)
{
    if (B.spent < gt.env.budget)
        return 0;
    if (!B.spent_said++)
        gt_info("tuning: the budget of %g s is spent after %d sessions; nothing more is tuned in this run, and "
                "what was not is left to a later one", gt.env.budget, B.sessions);
    return 1;
}

enum gt_budget_turn gt_budget_turn(struct gt_plan *p, const struct gt_call *c, uint64_t sig, CUresult *r)
{
    if (gt.env.budget <= 0)
        return GT_BUDGET_TUNE;
    enum gt_budget_turn turn = GT_BUDGET_TUNE;
    pthread_mutex_lock(&B.lock);
    double t = gt_clock_seconds();
    if (t - B.epoch_start > EPOCH_SECONDS) {
        B.epoch++;
        B.epoch_start = t;
    }
    struct gt_meter *m = NULL;
    if (spent()) {
        turn = GT_BUDGET_SPENT;
    } else if (!(m = meter_of(p, sig))) {
        turn = GT_BUDGET_TUNE; /* out of memory (the session says so), or another signature's key */
    } else if (m->tuned) {
        turn = GT_BUDGET_WAIT;
    } else {
        m->launches++;
        m->epoch = B.epoch;
        read_meter(m);
        if (m->launches == 1) {
            turn = GT_BUDGET_WAIT; /* its first launch loads what it needs: not timed */
        } else if (m->issued < METER_TIMED && !m->broken) {
            *r = timed_launch(m, c);
            turn = GT_BUDGET_RAN;
        } else if (!measured(m) && !m->broken && wait_meter(m) != 0) {
            turn = GT_BUDGET_WAIT;
        } else if (!hottest(m)) {
            turn = GT_BUDGET_WAIT;
        }
        m->tuned = turn == GT_BUDGET_TUNE;
    }
    pthread_mutex_unlock(&B.lock);
    return turn;
}

enum gt_budget_turn gt_budget_node(const struct gt_plan *p, uint64_t sig)
{
    if (gt.env.budget <= 0)
        return GT_BUDGET_TUNE;
    pthread_mutex_lock(&B.lock);
    enum gt_budget_turn turn = spent() ? GT_BUDGET_SPENT : GT_BUDGET_TUNE;
    struct gt_meter *m = turn == GT_BUDGET_TUNE ? meter_of(p, sig) : NULL;
    if (m)
        m->tuned = m->node = 1;
    pthread_mutex_unlock(&B.lock);
    return turn;
}

double gt_budget_launch_us(const struct gt_plan *p, uint64_t sig)
{
    if (gt.env.budget <= 0)
        return 0;
    int taken;
    pthread_mutex_lock(&B.lock);
    struct gt_meter *m = find_meter(p, sig, &taken);
    if (m)
        read_meter(m);
    double us = m ? per_launch(m) : 0;
    pthread_mutex_unlock(&B.lock);
    return us;
}

/* Before a context goes, with the events of its launches: each meter keeps
 * the times read so far, lets go of the rest unread, and times as many
 * launches again, in whichever context they come. */
void gt_budget_detach(void)
{
    pthread_mutex_lock(&B.lock);
    for (struct gt_meter *m = B.all; m; m = m->next) {
        read_meter(m);
        release(m);
        m->issued = m->read;
    }
    pthread_mutex_unlock(&B.lock);
}

double gt_budget_allows(double wanted)
{
    if (gt.env.budget <= 0)
        return wanted;
    pthread_mutex_lock(&B.lock);
    double left = gt.env.budget - B.spent;
    pthread_mutex_unlock(&B.lock);
    return left < wanted ? left : wanted;
}

/* "12 of 140 signatures seen (86% of the GPU time measured)"; where some
 * were tuned as graph nodes, "(3 in graphs; 86% of the GPU time measured
 * on direct launches)"; the count of sessions when nothing is metered. */
static void coverage(char *out, size_t cap)
{
    double all = 0, tuned = 0;
    int ntuned = 0, nodes = 0;
    for (struct gt_meter *m = B.all; m; m = m->next) {
        double s = share(m);
        all += s;
        tuned += m->tuned ? s : 0;
        ntuned += m->tuned;
        nodes += m->node;
    }
    char measured[96];
    if (!nodes)
        snprintf(measured, sizeof measured, "%.0f%% of the GPU time measured", all > 0 ? 100 * tuned / all : 0);
    else if (all > 0)
        snprintf(measured, sizeof measured, "%d in graphs; %.0f%% of the GPU time measured on direct launches",
                 nodes, 100 * tuned / all);
    else
        snprintf(measured, sizeof measured, "%d in graphs", nodes);
    if (B.nmeters)
        snprintf(out, cap, "%d of %d signatures seen (%s)", ntuned, B.nmeters, measured);
    else
        snprintf(out, cap, "%d signature%s", B.sessions, B.sessions == 1 ? "" : "s");
}

static void progress(void)
{
    char done[128], of[64] = "";
    coverage(done, sizeof done);
    if (gt.env.budget > 0)
        snprintf(of, sizeof of, " of %g s", gt.env.budget);
    char best[48] = "";
    if (B.best > 0)
        snprintf(best, sizeof best, ", best so far %.2fx", B.best);
    gt_info("tuning: %s tuned, %.1f s%s spent%s", done, B.spent, of, best);
}

void gt_budget_spend(double seconds, double speedup)
{
    pthread_mutex_lock(&B.lock);
    B.spent += seconds;
    B.sessions++;
    if (speedup > B.best)
        B.best = speedup;
    double t = gt_clock_seconds();
    B.epoch++; /* who is hottest is asked anew among the launches after it */
    B.epoch_start = t;
    if (t - B.last_said >= SAY_EVERY) {
        B.last_said = t;
        progress();
    }
    pthread_mutex_unlock(&B.lock);
}

void gt_budget_exit(void)
{
    pthread_mutex_lock(&B.lock);
    if (B.sessions || B.nmeters)
        progress();
    pthread_mutex_unlock(&B.lock);
}
