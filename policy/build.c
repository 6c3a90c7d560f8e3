/* build.c: from a policy section to what a launch needs: the space for an
 * architecture, a configuration's launch geometry, the signature values
 * that key the cache, and the entry's name.
 *
 * Sections are parsed once; spaces are built per architecture because the
 * values `auto` stands for (the register ladder) depend on it.  The space's
 * dimensions are the section's, in the same order, so expressions compiled
 * against the section index the space directly. */
#include "keys.h"
#include "alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_AUTO 64

static int is_jit(enum gt_dim_kind k)
{
    return k == GT_DIM_MAXRREG || k == GT_DIM_DLCM || k == GT_DIM_BOUNDS || k == GT_DIM_MINBLOCKS;
}

/* The value that means "as the original was built or launched". */
static int64_t knob_default(enum gt_dim_kind k)
{
    return k == GT_DIM_CARVEOUT ? GT_CARVEOUT_DEFAULT : 0;
}

static size_t index_of(const int64_t *v, size_t n, int64_t x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x)
            return i;
    return n;
}

static int add_spec(struct gt_space *s, const struct gt_dimspec *ds, const struct gt_arch *a, unsigned flags,
                    struct gt_diags *d)
{
    int64_t autov[MAX_AUTO], one = knob_default(ds->kind);
    const int64_t *v = ds->values;
    size_t n = ds->n;
    if (ds->is_auto) {
        n = gt_knob_auto_values(ds->kind, a, autov, MAX_AUTO);
        v = autov;
    }
    if ((flags & GT_SPACE_NO_JIT) && is_jit(ds->kind)) {
        v = &one;
        n = 1;
    }
    for (size_t i = 0; i < n; i++) {
        char why[160];
        if (gt_knob_check_arch(ds->kind, v[i], a, why, sizeof why) < 0) {
            gt_diags_add(d, ds->loc, "%s", why);
            return -1;
        }
    }
    size_t def = ds->kind == GT_DIM_PARAM ? 0 : index_of(v, n, knob_default(ds->kind));
    enum gt_rc rc = gt_space_add_dim(s, ds->name, ds->kind, v, n, def < n ? def : 0, ds->loc);
    if (rc == GT_TOO_LARGE)
        gt_diags_add(d, ds->loc, "the space passes 2^62 configurations with '%s'", ds->name);
    else if (rc == GT_NO_MEMORY)
        gt_diags_add(d, ds->loc, "out of memory");
    if (rc != GT_OK)
        return -1;
    s->dims[s->ndims - 1].independent = ds->independent;
    return 0;
}

/* A configuration is kept as text in buffers of GT_SPACE_TEXT_MAX bytes (a
 * cache entry's, a choice's): a space whose text could be longer is refused
 * whole, never saved or applied cut short. */
static int check_text(const struct gt_space *s, const struct gt_section *sec, struct gt_diags *d)
{
    size_t len = gt_space_text_len(s);
    if (len < GT_SPACE_TEXT_MAX)
        return 0;
    gt_diags_add(d, sec->loc, "a configuration of this space takes up to %zu characters as text, more than the %d "
                 "kept; use shorter names", len, GT_SPACE_TEXT_MAX - 1);
    return -1;
}

static int apply_baseline(struct gt_space *s, const struct gt_section *sec, unsigned flags, struct gt_diags *d)
{
    int rc = 0;
    for (size_t i = 0; i < sec->nbaseline; i++) {
        const struct gt_kv *kv = &sec->baseline[i];
        int di = gt_space_find_dim(s, kv->key);
        if (di < 0 || ((flags & GT_SPACE_NO_JIT) && is_jit(s->dims[di].kind)))
            continue; /* a JIT knob without PTX has its default only */
        struct gt_dim *dim = &s->dims[di];
        const char *expect;
        int64_t x;
        size_t idx = dim->n;
        if (gt_knob_parse_value(dim->kind, kv->value, strlen(kv->value), &x, &expect) == 0)
            idx = index_of(dim->values, dim->n, x);
        if (idx == dim->n) {
            gt_diags_add(d, kv->loc, "baseline %s=%s is not one of its values", kv->key, kv->value);
            rc = -1;
            continue;
        }
        dim->def = idx;
    }
    return rc;
}

static int knob_added_by_auto(const struct gt_section *sec, enum gt_dim_kind k)
{
    for (size_t i = 0; i < sec->ndims; i++)
        if (sec->dims[i].kind == k)
            return sec->dims[i].is_auto == 2;
    return -1; /* not a dimension */
}

struct gt_space *gt_policy_space(const struct gt_section *sec, const struct gt_arch *a, unsigned flags,
                                 struct gt_diags *d)
{
    struct gt_space *s = gt_space_new();
    if (!s) {
        gt_diags_add(d, sec->loc, "out of memory");
        return NULL;
    }
    int rc = 0;
    for (size_t i = 0; i < sec->ndims && rc == 0; i++)
        rc = add_spec(s, &sec->dims[i], a, flags, d);
    if (rc == 0)
        rc = check_text(s, sec, d);
    if (rc == 0)
        rc = apply_baseline(s, sec, flags, d);
    for (size_t i = 0; i < sec->nconstraints && rc == 0; i++)
        rc = gt_space_add_constraint(s, sec->constraints[i], 0);
    int cache = knob_added_by_auto(sec, GT_DIM_CACHE), carve = knob_added_by_auto(sec, GT_DIM_CARVEOUT);
    if (rc == 0 && cache >= 0 && carve >= 0 && (cache || carve))
        rc = gt_space_add_constraint_text(s, gt_knob_split_constraint, 1, d);
    if (rc < 0) {
        gt_space_free(s);
        return NULL;
    }
    return s;
}

/* ---- launch geometry ---- */

__attribute__((format(printf, 4, 5))) static int fail(char *err, size_t len, struct gt_loc loc, const char *fmt, ...)
{
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct gt_diag g = {(char *)(loc.file ? loc.file : "policy"), loc.line, loc.col, msg};
    gt_diag_format(&g, err, len);
    return -1;
}

static int eval(const struct gt_expr *e, const struct gt_expr_env *env, int64_t *v, char *err, size_t len)
{
    struct gt_expr_err ee;
    if (gt_expr_eval(e, env, v, &ee) == 0)
        return 0;
    char why[256];
    gt_expr_error_text(e, &ee, why, sizeof why);
    return fail(err, len, gt_expr_error_loc(e, &ee), "%s", why);
}

/* Components given as expressions, the others 1; none given: as launched. */
static int triple(struct gt_expr *const *e, int n, const int64_t *orig, const struct gt_expr_env *env, int64_t *out,
                  char *err, size_t len)
{
    for (int i = 0; i < 3; i++) {
        if (n == 0)
            out[i] = orig[i];
        else if (i >= n)
            out[i] = 1;
        else if (eval(e[i], env, &out[i], err, len) < 0)
            return -1;
    }
    return 0;
}

static int launchable(const struct gt_section *sec, const struct gt_arch *a, const struct gt_geometry *g, char *err,
                      size_t len)
{
    static const int64_t grid_max[3] = {2147483647, 65535, 65535}, block_max[3] = {1024, 1024, 64};
    struct gt_loc bl = sec->nblock ? gt_expr_loc(sec->block[0]) : sec->loc,
                  gl = sec->ngrid ? gt_expr_loc(sec->grid[0]) : sec->loc;
    const char *xyz = "xyz";
    for (int i = 0; i < 3; i++) {
        if (g->block[i] < 1 || g->block[i] > block_max[i])
            return fail(err, len, bl, "block.%c = %lld is outside 1..%lld", xyz[i], (long long)g->block[i],
                        (long long)block_max[i]);
        if (g->grid[i] < 1 || g->grid[i] > grid_max[i])
            return fail(err, len, gl, "grid.%c = %lld is outside 1..%lld", xyz[i], (long long)g->grid[i],
                        (long long)grid_max[i]);
    }
    int64_t threads = g->block[0] * g->block[1] * g->block[2];
    if (threads > a->max_threads_per_block)
        return fail(err, len, bl, "block %lldx%lldx%lld has %lld threads; sm_%d allows %d", (long long)g->block[0],
                    (long long)g->block[1], (long long)g->block[2], (long long)threads, a->sm, a->max_threads_per_block);
    struct gt_loc sl = sec->smem ? gt_expr_loc(sec->smem) : sec->loc;
    if (g->smem < 0 || g->smem > a->max_smem_per_block)
        return fail(err, len, sl, "smem = %lld is outside 0..%lld bytes on sm_%d", (long long)g->smem,
                    (long long)a->max_smem_per_block, a->sm);
    return 0;
}

int gt_policy_geometry(const struct gt_section *sec, const struct gt_space *s, const uint32_t *cfg,
                       const struct gt_launch *l, const struct gt_arch *a, struct gt_geometry *g, char *err,
                       size_t errlen)
{
    int64_t small[32], *vals = s->ndims <= 32 ? small : gt_malloc(s->ndims * sizeof *vals);
    if (!vals)
        return fail(err, errlen, sec->loc, "out of memory");
    gt_space_values(s, cfg, vals);
    static const int64_t none[GT_ORIG_N] = {1, 1, 1, 1, 1, 1, 0};
    const int64_t *orig = l ? l->orig : none;
    struct gt_expr_env env = {vals, l, NULL};
    int rc = -1;
    if ((sec->nblock == 0 || sec->ngrid == 0 || !sec->smem) && !l)
        fail(err, errlen, sec->loc, "the geometry keeps the launch's own values and needs a launch");
    else if (triple(sec->block, sec->nblock, orig + GT_ORIG_BLOCK_X, &env, g->block, err, errlen) == 0) {
        env.block = g->block;
        if (triple(sec->grid, sec->ngrid, orig + GT_ORIG_GRID_X, &env, g->grid, err, errlen) == 0) {
            g->smem = orig[GT_ORIG_SMEM];
            if ((!sec->smem || eval(sec->smem, &env, &g->smem, err, errlen) == 0) &&
                launchable(sec, a, g, err, errlen) == 0)
                rc = 0;
        }
    }
    if (vals != small)
        free(vals);
    return rc;
}

int gt_policy_signature(const struct gt_section *sec, const struct gt_launch *l, int64_t *vals, size_t max,
                        char *err, size_t errlen)
{
    struct gt_expr_env env = {NULL, l, NULL};
    size_t n = sec->nsignature < max ? sec->nsignature : max;
    for (size_t i = 0; i < n; i++)
        if (eval(sec->signature[i], &env, &vals[i], err, errlen) < 0)
            return -1;
    return (int)n;
}

int gt_policy_entry(const struct gt_section *sec, const struct gt_space *s, const uint32_t *cfg, char *buf,
                    size_t len)
{
    if (!sec->entry)
        return -1;
    size_t o = 0;
    for (const char *p = sec->entry; *p;) {
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        char piece[64];
        const char *out = p;
        size_t n = 1;
        if (close) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(close - p - 1), p + 1);
            int d = gt_space_find_dim(s, name);
            if (d < 0)
                return -1;
            gt_space_value_text(s, (size_t)d, cfg[d], piece, sizeof piece);
            out = piece;
            n = strlen(piece);
            p = close + 1;
        } else {
            p++;
        }
        if (o + n < len)
            memcpy(buf + o, out, n);
        o += n;
    }
    if (len)
        buf[o < len ? o : len - 1] = 0;
    return (int)o;
}
