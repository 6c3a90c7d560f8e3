/* guard.c: an applied configuration checked on the application's own launches.
 *
 * A trial times a kernel alone, from a restored state, on the session's
 * stream.  What the application pays for a configuration is measured where
 * it runs: whatever a variant costs per launch beyond its kernel (module
 * variables copied in and out, launch-time settings), the caches its
 * neighbours left, the stream it shares.  So the first launches of every
 * applied configuration alternate between it and the original (after one
 * untimed launch of each, then in pairs of one of each whose order is
 * drawn, so that a drift in the application's own pace cancels and no
 * place in the application that launches the kernel keeps one side: side),
 * each timed by two events on the application's stream around everything
 * the shim does for that launch.
 * Nothing waits: the events are read as later launches find them done,
 * and once more at exit and before their context goes (launch/apply.c:
 * gt_apply_collect), with at most WINDOW of them out unread.
 * Each pair's ratio is read, and the verdict comes from the pairs
 * (base/pairs.c: gt_pairs_judge): after six, where every pair is 10% apart
 * the same way; after eight, dropped where the configuration is faster in
 * fewer pairs than not, kept where it is faster beyond chance by 3%; else
 * at 32 and at MAX_EACH pairs, kept from GT_GUARD_GAIN faster.  A dropped
 * configuration gives way to the original for good, and one kept is not
 * checked again by later runs (the cache file keeps both verdicts, and a
 * driver or image that changes makes a new entry).  A kernel launched too
 * rarely to reach a verdict in one run carries its times to the next one
 * through the cache file, and the alternation goes on where it stopped,
 * with no warm-up: such a kernel's first launch in a process is most of
 * what the application runs of it; one whose launches are too small a part
 * of the run to matter is dropped instead (gt_guard_drop_rare), and so are
 * those kept in a run whose gain, all together, did not pay for the shim's
 * path at every launch of it (gt_guard_drop_kept). */
#include "guard.h"
#include "alloc.h"
#include "cachefile.h"
#include "hash.h"
#include "median.h"
#include "state.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARMUP 2                         /* untimed: one launch of each */
#define MIN_EACH 8                       /* pairs the window below lets out unread */
#define MAX_EACH GT_CENTRY_GUARD_TIMES /* as many as the cache file carries */
_Static_assert(MAX_EACH <= GT_PAIRS_MAX, "the pairs judged hold every time the cache file carries");
#define NSLOTS (WARMUP + 2 * MAX_EACH)
/* Slots handed out and not read yet, at most: where the host runs far
 * ahead of the GPU (launches queued behind long kernels) every launch would
 * otherwise alternate before a single time is read; the launches beyond
 * run the configuration, as when every slot is out. */
#define WINDOW (WARMUP + 2 * MIN_EACH)

void gt_guard_init(struct gt_guard *g)
{
    memset(g, 0, sizeof *g);
    pthread_mutex_init(&g->lock, NULL);
}

/* Timed launch j's side: the launches go in pairs, one of each, the side
 * that goes first drawn for each pair from a fixed pseudo-random sequence.
 * A fixed order lines up with an application that launches the same
 * signature from several places an iteration: with ABBA and four such
 * places, each place always ran the same side, and the check compared the
 * places (PyTorch's elementwise add read 1.58x faster with a cache
 * preference the same as its own).  In pairs a drift in the application's
 * pace cancels as in ABBA, and no place keeps one side. */
static int side(int j)
{
    return (j & 1) ^ (int)(gt_hash_mix((uint64_t)j >> 1) & 1);
}

/* Launch i of this run: one untimed launch of each first, unless it goes on
 * from earlier runs' `carried` timed launches. */
static int make_slot(struct gt_guard *g, int i)
{
    struct gt_guard_slot *s = &g->slots[i];
    int warmup = g->resumed ? 0 : WARMUP;
    s->variant = i < warmup ? i & 1 : side(i - warmup + g->carried);
    s->timed = i >= warmup;
    if (!s->timed)
        return 0;
    if (gt.drv.cuEventCreate(&s->ev[0], CU_EVENT_DEFAULT) != CUDA_SUCCESS)
        return -1;
    if (gt.drv.cuEventCreate(&s->ev[1], CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
        gt.drv.cuEventDestroy_v2(s->ev[0]);
        s->ev[0] = NULL;
        return -1;
    }
    return 0;
}

/* Hands out the next launch to check: returns 1 with *slot, or 0 when this
 * launch is not checked (a verdict is in, every slot is out, or the launch
 * is in another context): it runs what the verdict says, or the
 * configuration while the verdict is pending. */
int gt_guard_take(struct gt_guard *g, struct gt_guard_slot **slot)
{
    CUcontext ctx = NULL;
    int got = 0;
    pthread_mutex_lock(&g->lock);
    if (g->verdict == GT_GUARD_CHECKING && !g->broken && g->issued < NSLOTS && g->issued - g->done < WINDOW &&
        gt.drv.cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && (!g->ctx || g->ctx == ctx)) {
        g->ctx = ctx;
        if (!g->slots && !(g->slots = gt_calloc(NSLOTS, sizeof *g->slots)))
            g->broken = 1;
        else if (make_slot(g, g->issued) != 0)
            g->broken = 1;
        else {
            *slot = &g->slots[g->issued++];
            g->inuse++;
            got = 1;
        }
    }
    pthread_mutex_unlock(&g->lock);
    return got;
}

void gt_guard_mark(struct gt_guard_slot *slot, int end, CUstream s, int per_thread)
{
    if (slot->timed && gt_event_record(slot->ev[end], s, per_thread) != CUDA_SUCCESS)
        slot->unrecorded = 1;
}

static int add_time(struct gt_guard *g, int variant, double us)
{
    if (!g->us[variant] && !(g->us[variant] = gt_malloc(MAX_EACH * sizeof(double))))
        return -1;
    if (g->n[variant] < MAX_EACH)
        g->us[variant][g->n[variant]++] = us;
    return 0;
}

/* Reads the slots whose launches finished, in order, without waiting. */
static void read_done(struct gt_guard *g)
{
    while (g->done < g->issued && !g->broken) {
        struct gt_guard_slot *s = &g->slots[g->done];
        if (s->timed) {
            float ms = 0;
            CUresult r = gt.drv.cuEventQuery(s->ev[1]);
            if (r == CUDA_ERROR_NOT_READY)
                return;
            if (r != CUDA_SUCCESS || s->unrecorded ||
                gt.drv.cuEventElapsedTime_v2(&ms, s->ev[0], s->ev[1]) != CUDA_SUCCESS ||
                ms <= 0 || add_time(g, s->variant, ms * 1e3) != 0) {
                g->broken = 1;
                return;
            }
        }
        g->done++;
    }
}

/* The pairs' log ratios, original over configuration (above 0: the
 * configuration was faster in that pair), of the first n pairs: the k-th
 * time of each side was taken in the k-th pair (side). */
static void pair_logs(const struct gt_guard *g, int n, double *l)
{
    for (int k = 0; k < n; k++)
        l[k] = log(g->us[0][k]) - log(g->us[1][k]); /* not log(a / b): a pair and its mirror cancel exactly */
}

/* The median of side s's first n times, 0 without any. */
static double side_median(const struct gt_guard *g, int s, int n)
{
    double t[MAX_EACH];
    if (!n)
        return 0;
    memcpy(t, g->us[s], (size_t)n * sizeof *t);
    return gt_median(t, n);
}

/* A verdict from the pairs (base/pairs.c), once one more is complete. */
static void decide(struct gt_guard *g)
{
    int n = g->n[0] < g->n[1] ? g->n[0] : g->n[1];
    if (n == g->judged)
        return;
    g->judged = n;
    double l[MAX_EACH];
    pair_logs(g, n, l);
    enum gt_pairs_verdict v = gt_pairs_judge(&g->pairs, l, n, &g->ratio);
    if (v == GT_PAIRS_MORE)
        return;
    g->verdict = v == GT_PAIRS_FASTER ? GT_GUARD_KEPT : GT_GUARD_DROPPED;
    for (int s = 0; s < 2; s++) /* for what the verdict says and saves */
        g->med[s] = side_median(g, s, n);
}

static void release_events(struct gt_guard *g)
{
    for (int i = 0; i < g->issued && !g->gone; i++)
        for (int e = 0; e < 2; e++)
            if (g->slots[i].ev[e])
                gt.drv.cuEventDestroy_v2(g->slots[i].ev[e]);
    free(g->slots);
    g->slots = NULL;
}

/* After a launch while the guard is checking: gives back its slot (if it
 * had one) and reads what finished.  Returns 1 when this call reached the
 * verdict. */
int gt_guard_settle(struct gt_guard *g, int had_slot)
{
    pthread_mutex_lock(&g->lock);
    g->inuse -= had_slot;
    int before = g->verdict;
    read_done(g);
    if (g->verdict == GT_GUARD_CHECKING && !g->broken)
        decide(g);
    if ((g->verdict != GT_GUARD_CHECKING || g->broken) && g->inuse == 0 && g->slots)
        release_events(g);
    int decided = before == GT_GUARD_CHECKING && g->verdict != GT_GUARD_CHECKING;
    pthread_mutex_unlock(&g->lock);
    return decided;
}

int gt_guard_resume(struct gt_guard *g, const char *times)
{
    int side = 0;
    while (*times) {
        char *end;
        double us = strtod(times, &end);
        if (*times == ' ') {
            times++;
        } else if (*times == '/' && !side) {
            side = 1;
            times++;
        } else if (end != times && us > 0 && g->n[side] < MAX_EACH && add_time(g, side, us) == 0) {
            times = end;
        } else {
            break;
        }
    }
    if (*times) { /* none of them: the check starts afresh */
        g->n[0] = g->n[1] = 0;
        return -1;
    }
    g->carried = g->n[0] + g->n[1];
    g->from[0] = g->n[0];
    g->from[1] = g->n[1];
    g->resumed = 1;
    return 0;
}

int gt_guard_drop_rare(struct gt_guard *g, double span_us, double *run_us)
{
    pthread_mutex_lock(&g->lock);
    double us = 0;
    int timed = 0;
    for (int s = 0; s < 2; s++)
        for (int i = g->from[s]; i < g->n[s]; i++, timed++)
            us += g->us[s][i];
    int rare = g->verdict == GT_GUARD_CHECKING && timed > 0 && us < GT_GUARD_RARE * span_us;
    if (rare) {
        g->verdict = GT_GUARD_DROPPED;
        for (int s = 0; s < 2; s++)
            g->med[s] = side_median(g, s, g->n[s]);
        g->ratio = g->med[0] > 0 && g->med[1] > 0 ? g->med[1] / g->med[0] : 1;
    }
    pthread_mutex_unlock(&g->lock);
    *run_us = us;
    return rare;
}

int gt_guard_drop_kept(struct gt_guard *g)
{
    pthread_mutex_lock(&g->lock);
    int kept = g->verdict == GT_GUARD_KEPT;
    if (kept)
        g->verdict = GT_GUARD_DROPPED;
    pthread_mutex_unlock(&g->lock);
    return kept;
}

static size_t put_times(char *out, size_t cap, size_t len, const double *us, int n)
{
    for (int i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%.3f", len ? " " : "", us[i]);
    return len;
}

void gt_guard_kept_before(struct gt_guard *g, double speedup)
{
    g->verdict = GT_GUARD_KEPT;
    g->ratio = 1 / speedup;
    g->earlier = 1;
}

int gt_guard_times(struct gt_guard *g, char *out, size_t cap)
{
    pthread_mutex_lock(&g->lock);
    int fresh = g->n[0] + g->n[1] > g->carried || (!g->resumed && g->issued > 0);
    size_t len = put_times(out, cap, 0, g->us[0], g->n[0]);
    if (len < cap)
        len += (size_t)snprintf(out + len, cap - len, "%s/", len ? " " : "");
    len = put_times(out, cap, len, g->us[1], g->n[1]);
    pthread_mutex_unlock(&g->lock);
    return fresh && len < cap;
}

void gt_guard_adopt(struct gt_guard *g, const struct gt_guard *whole, int share)
{
    pthread_mutex_lock(&g->lock);
    g->verdict = whole->verdict;
    g->ratio = whole->ratio;
    g->med[0] = whole->med[0] / share;
    g->med[1] = whole->med[1] / share;
    pthread_mutex_unlock(&g->lock);
}

void gt_guard_detach(struct gt_guard *g)
{
    pthread_mutex_lock(&g->lock);
    g->gone = 1;
    g->broken = 1;
    pthread_mutex_unlock(&g->lock);
}

void gt_guard_free(struct gt_guard *g)
{
    if (g->slots)
        release_events(g);
    free(g->us[0]);
    free(g->us[1]);
    pthread_mutex_destroy(&g->lock);
}
