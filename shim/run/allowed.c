/* allowed.c: constraints that read the launch, enforced at each launch.
 *
 * A policy constraint that reads orig.* or arguments is decided per launch,
 * not when the space is built.  Tune mode hands its strategy the launch it
 * tunes (gt_plan_launch_env).  Every other launch of a kernel whose space has
 * such a constraint (p->checks_launch, decided once per plan) has the
 * configuration chosen for it checked here: the cache's, the nearest tuned
 * signature's, one tuned in this run, or GPUTUNE_FORCE's.  The check is per
 * launch, not per signature, because arguments outside the signature can
 * change from one launch to the next.  A forbidden cached or tuned choice
 * gives way to the fastest cached configuration that the launch allows, else
 * to the original, which is always allowed (it is what the application asked
 * for); a forbidden GPUTUNE_FORCE runs the original.  Each refusal is said
 * once per signature. */
#include "allowed.h"
#include "arena.h"
#include "cachefile.h"
#include "state.h"

#include <limits.h>
#include <stdio.h>

/* The cache's entries are the choices with a tuned time; the fastest of
 * them that the launch allows, or NULL.  Caller holds p->lock. */
static struct gt_choice *fastest_allowed(struct gt_plan *p, const struct gt_launch *l)
{
    struct gt_choice *best = NULL;
    for (struct gt_choice *c = p->choices; c; c = c->next)
        if (c->time_us > 0 && gt_plan_runs(c) && (!best || c->time_us < best->time_us) &&
            gt_space_check(p->space, c->cfg, l, NULL) == 1)
            best = c;
    return best;
}

/* Records sig; 1 the first time (the refusal is to be said), else 0.
 * Caller holds p->lock. */
static int first_time(struct gt_plan *p, uint64_t sig)
{
    for (size_t i = 0; i < p->nsaid; i++)
        if (p->said[i] == sig)
            return 0;
    if (gt_grow((void **)&p->said, &p->capsaid, p->nsaid + 1, sizeof *p->said) == 0)
        p->said[p->nsaid++] = sig;
    return 1;
}

/* "breaks constraint 'BLOCK <= arg.n' (line 7 of policy.ini)", with why it
 * could not be evaluated when it could not. */
static void describe(const struct gt_space *s, const struct gt_space_fault *f, char *buf, size_t len)
{
    if (f->con < 0) {
        snprintf(buf, len, "cannot be checked against its constraints (out of memory)");
        return;
    }
    const struct gt_expr *e = s->cons[f->con].e;
    struct gt_loc at = gt_expr_loc(e);
    char where[PATH_MAX + 32] = "", why[256] = "";
    if (at.file)
        snprintf(where, sizeof where, " (line %d of %s)", at.line, at.file);
    if (f->error)
        gt_expr_error_text(e, &f->err, why, sizeof why);
    snprintf(buf, len, "breaks constraint '%s'%s%s%s", gt_expr_text(e), where,
             f->error ? ", which cannot be evaluated: " : "", why);
}

/* The refusal of ch at a launch of signature `signature`, and what runs instead. */
static void say(const struct gt_plan *p, const struct gt_choice *ch, const struct gt_space_fault *f,
                const char *signature, const struct gt_choice *alt)
{
    char why[PATH_MAX + 512];
    describe(p->space, f, why, sizeof why);
    gt_log(ch->sig ? GT_LOG_INFO : GT_LOG_WARN, "kernel %s: launch %s: configuration '%s' (%s) %s; running %s%s%s",
           p->shown, signature, ch->config, ch->why, why, alt ? "'" : "the original", alt ? alt->config : "",
           alt ? "' instead" : "");
}

struct gt_choice *gt_allowed_choice(struct gt_plan *p, struct gt_choice *ch, const struct gt_call *c, uint64_t sig,
                                  const char *signature)
{
    struct gt_plan_launch env;
    const struct gt_launch *l = gt_plan_launch_env(p, c, &env);
    struct gt_space_fault f = {-1, 0, {0, 0, 0}};
    if (gt_space_check(p->space, ch->cfg, l, &f) == 1)
        return ch;
    char text[192] = "";
    if (!sig) { /* gt_apply_launch reads no signature when GPUTUNE_FORCE's is the only choice */
        if (gt_plan_signature(p, c, &sig, text, sizeof text) != 0)
            gt_cache_signature(c->g.grid, c->g.block, c->g.smem, NULL, 0, text, sizeof text);
        signature = text;
    }
    pthread_mutex_lock(&p->lock);
    /* GPUTUNE_FORCE's choice (signature 0, for every launch) gives way to the original alone */
    struct gt_choice *alt = ch->sig ? fastest_allowed(p, l) : NULL;
    int first = first_time(p, sig);
    pthread_mutex_unlock(&p->lock);
    if (first)
        say(p, ch, &f, signature, alt);
    return alt;
}
