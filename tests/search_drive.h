/* search_drive.h: runs a strategy the way the trial engine does
 * (shim/tune/session.c, search()) over a synthetic landscape, for the strategy
 * unit tests (tests/test_search_*.c).
 *
 * Batches of up to 16 proposals (fewer at the budget; -1 ends a batch, and
 * ends the search when the batch is empty), then each proposal's result in
 * order (or shuffled: d.shuffle).  The original is measured first and given
 * as the baseline.  The watchdog cuts a trial slower than factor x the best
 * time so far (the original's at first) when the strategy lets it: reported
 * as aborted, having run factor x best (x the time the strategy measures it
 * against, gt_strategy_cut_base, when it names one).  Estimates a strategy asks for are
 * answered with d.estimate in the same batches (none without one).  Every
 * trial is checked: never twice, never invalid, never the original.
 *
 *   struct drive d = {.factor = 2};
 *   drive_run(st, s, time_fn, arg, budget, &d);   // budget <= 0: until it stops
 *   ok(drive_clean(&d), ...);
 */
#ifndef GT_SEARCH_DRIVE_H
#define GT_SEARCH_DRIVE_H

#include "keys.h"
#include "strategy.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#define DRIVE_BATCH 16
#define DRIVE_ROUNDS 64

/* A configuration's time in microseconds; < 0: it fails at run time
 * (reported invalid). */
typedef double (*drive_time_fn)(const struct gt_space *s, const uint32_t *cfg, void *arg);

struct drive {
    double factor;                   /* in: the watchdog's factor, 0: no watchdog */
    /* in, optional: sees every trial and how it was reported */
    void (*seen)(void *arg, const uint32_t *cfg, int may_cut, enum gt_trial_status status);
    uint64_t shuffle;                /* in, optional: reports in an order shuffled with this seed */
    int ask_again;                   /* in, optional: after -1, ask once more: it must be -1 again */
    /* in, optional: a configuration's estimate, 0 (or -1: it has none) */
    int (*estimate)(const struct gt_space *s, const uint32_t *cfg, void *arg, struct gt_estimate *e);
    long estimates;                  /* out: estimates asked for */
    int asked_again;                 /* out: times it was not */
    long trials, invalid, aborted;   /* out */
    long kept;                       /* trials past the deadline that the strategy kept whole */
    double best_us;                  /* the best time measured, the original's included */
    uint64_t best_rank;
    long best_at;                    /* the trial that found it (0: the original) */
    int duplicates, invalid_proposals, default_proposals;
    int stopped;                     /* the strategy ended the search, not the budget */
    int rounds[DRIVE_ROUNDS];        /* out: the trials of each round (proposals up to a wait), the first ones */
    int nrounds;
};

/* set holding one strategy parameter, KEY = VALUE, in kv. */
static inline void drive_param(struct gt_settings *set, struct gt_kv *kv, const char *key, const char *value)
{
    gt_settings_init(set);
    *kv = (struct gt_kv){(char *)key, (char *)value, {"test", 1, 1}};
    set->sparams = kv;
    set->nsparams = 1;
}

/* A strategy for the space, or NULL with why said (a TAP diagnostic). */
static struct gt_strategy *drive_strategy(const char *name, const struct gt_space *s, const struct gt_settings *set,
                                          long budget, uint64_t seed)
{
    char err[256];
    struct gt_strategy *st = gt_strategy_new(name, s, NULL, set, budget, seed, err, sizeof err);
    if (!st)
        diag("%s: %s", name, err);
    return st;
}

/* Whether a run kept the rules: only valid configurations, each once, never
 * the original; -1 said again when asked again. */
static int drive_clean(const struct drive *d)
{
    return !d->duplicates && !d->invalid_proposals && !d->default_proposals && !d->asked_again;
}

/* The batch in another order (Fisher-Yates), when d->shuffle asks. */
static void drive_shuffle(struct drive *d, uint32_t *batch, size_t n, int *cut, int *kind, int nb)
{
    for (int i = nb - 1; d->shuffle && i > 0; i--) {
        d->shuffle ^= d->shuffle << 13, d->shuffle ^= d->shuffle >> 7, d->shuffle ^= d->shuffle << 17;
        int j = (int)(d->shuffle % (uint64_t)(i + 1)), c = cut[i], k = kind[i];
        cut[i] = cut[j], cut[j] = c;
        kind[i] = kind[j], kind[j] = k;
        for (size_t k = 0; k < n; k++) {
            uint32_t v = batch[(size_t)i * n + k];
            batch[(size_t)i * n + k] = batch[(size_t)j * n + k], batch[(size_t)j * n + k] = v;
        }
    }
}

static void drive_run(struct gt_strategy *st, const struct gt_space *s, drive_time_fn f, void *arg, long budget,
                      struct drive *d)
{
    size_t n = s->ndims;
    uint32_t *def = calloc(n + 1, sizeof *def), *batch = calloc(DRIVE_BATCH * n + 1, sizeof *batch);
    unsigned char *proposed = calloc(s->size, 1);
    gt_space_default(s, def);
    uint64_t def_rank = gt_space_rank(s, def);
    double base = f(s, def, arg);
    gt_strategy_baseline(st, base > 0 ? base : -1);
    d->best_us = base > 0 ? base : 0;
    d->best_rank = def_rank;
    long limit = budget > 0 ? budget : (long)s->size + DRIVE_BATCH;   /* a strategy that never stops fails */
    int more = 1;
    while (more && d->trials < limit) {
        int nb = 0, ntrials = 0, cut[DRIVE_BATCH], kind[DRIVE_BATCH];
        for (; nb < DRIVE_BATCH && d->trials + ntrials < limit; nb++) {
            uint32_t *cfg = batch + (size_t)nb * n;
            int got = gt_strategy_next(st, cfg);
            if (got == GT_NEXT_WAIT && d->ask_again)
                d->asked_again += gt_strategy_next(st, cfg) != GT_NEXT_WAIT;
            if (got != GT_NEXT_TRIAL && got != GT_NEXT_ESTIMATE) {
                more = got == GT_NEXT_WAIT && nb > 0;
                d->stopped = !more;
                break;
            }
            kind[nb] = got;
            cut[nb] = 1;
            if (got == GT_NEXT_ESTIMATE) {
                d->invalid_proposals += gt_space_check(s, cfg, NULL, NULL) != 1;
                continue;
            }
            ntrials++;
            uint64_t r = gt_space_rank(s, cfg);
            d->duplicates += proposed[r];
            proposed[r] = 1;
            d->default_proposals += r == def_rank;
            d->invalid_proposals += gt_space_check(s, cfg, NULL, NULL) != 1;
            cut[nb] = gt_strategy_may_cut(st, cfg);
        }
        if (ntrials && d->nrounds < DRIVE_ROUNDS)
            d->rounds[d->nrounds++] = ntrials;
        drive_shuffle(d, batch, n, cut, kind, nb);
        for (int i = 0; i < nb; i++) {
            const uint32_t *cfg = batch + (size_t)i * n;
            if (kind[i] == GT_NEXT_ESTIMATE) {
                struct gt_estimate e;
                d->estimates++;
                gt_strategy_estimated(st, cfg, d->estimate && d->estimate(s, cfg, arg, &e) == 0 ? &e : NULL);
                continue;
            }
            double base = gt_strategy_cut_base(st, cfg), us = f(s, cfg, arg);
            double deadline = d->factor * (base > 0 ? base : d->best_us);
            enum gt_trial_status status = us < 0 ? GT_TRIAL_INVALID : GT_TRIAL_OK;
            if (status == GT_TRIAL_OK && d->factor > 0 && d->best_us > 0 && us > deadline) {
                d->kept += !cut[i];
                if (cut[i]) {
                    status = GT_TRIAL_ABORTED;
                    us = deadline;
                }
            }
            d->trials++;
            d->invalid += status == GT_TRIAL_INVALID;
            d->aborted += status == GT_TRIAL_ABORTED;
            if (d->seen)
                d->seen(arg, cfg, cut[i], status);
            gt_strategy_report(st, cfg, status == GT_TRIAL_INVALID ? -1 : us, status);
            if (status == GT_TRIAL_OK && (d->best_us <= 0 || us < d->best_us)) {
                d->best_us = us;
                d->best_rank = gt_space_rank(s, cfg);
                d->best_at = d->trials;
            }
        }
    }
    free(def);
    free(batch);
    free(proposed);
}

#endif
