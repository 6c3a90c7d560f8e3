/* space.c: tuning spaces.
 *
 * A space is a list of dimensions (each a list of values) and constraints;
 * a configuration picks one value index per dimension.  Enumeration is a
 * depth-first walk in a fixed order (last dimension fastest) that checks
 * each constraint as soon as the dimensions it reads are set, so whole
 * subtrees of a large space are skipped at once.  This file also owns the
 * knobs (launch-time and JIT settings that never change results), their
 * spelling in text, and the automatic space built from them. */
#include "space.h"
#include "alloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SPACE (UINT64_C(1) << 62)

/* ---- architectures ---- */

struct arch_row {
    int sm, warps;
    int64_t smem;
};

/* Resident warps per SM and dynamic shared memory per block (opt-in) from
 * the CUDA occupancy tables; the other limits are the same everywhere. */
static const struct arch_row arch_rows[] = {
    {70, 64, 98304},  {72, 64, 98304},  {75, 32, 65536},  {80, 64, 166912}, {86, 48, 101376},
    {87, 48, 166912}, {89, 48, 101376}, {90, 64, 232448}, {100, 64, 232448}, {120, 48, 101376},
};

int gt_arch_for_sm(int sm, struct gt_arch *a)
{
    *a = (struct gt_arch){sm, 1024, 255, 65536, 64, 256, 232448};
    for (size_t i = 0; i < sizeof arch_rows / sizeof arch_rows[0]; i++)
        if (arch_rows[i].sm == sm) {
            a->max_warps_per_sm = arch_rows[i].warps;
            a->max_smem_per_block = arch_rows[i].smem;
            return 0;
        }
    return -1;
}

/* ---- knobs ---- */

static const char *const kind_names[GT_DIM_NKINDS] = {
    "param", "cache", "carveout", "maxrreg", "dlcm", "bounds", "minblocks",
};
static const char *const cache_names[] = {"default", "none", "shared", "l1", "equal"};
static const char *const dlcm_names[] = {"default", "ca", "cg", "cs", "lu", "cv"};
static const char *const bounds_names[] = {"off", "on"};

const char gt_knob_split_constraint[] = "cache == 0 || carveout == -1";

const char *gt_knob_name(enum gt_dim_kind kind)
{
    return (unsigned)kind < GT_DIM_NKINDS ? kind_names[kind] : "?";
}

int gt_knob_kind(const char *name, size_t len)
{
    for (int k = GT_DIM_CACHE; k < GT_DIM_NKINDS; k++)
        if (strlen(kind_names[k]) == len && memcmp(kind_names[k], name, len) == 0)
            return k;
    return -1;
}

static int word_is(const char *w, size_t len, const char *s)
{
    return strlen(s) == len && memcmp(w, s, len) == 0;
}

static int parse_symbol(const char *const *names, size_t n, const char *w, size_t len, int64_t *v)
{
    for (size_t i = 0; i < n; i++)
        if (word_is(w, len, names[i])) {
            *v = (int64_t)i;
            return 0;
        }
    return -1;
}

/* A decimal integer filling the whole word. */
static int parse_int(const char *w, size_t len, int64_t *v)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, w, len);
    buf[len] = 0;
    char *end;
    errno = 0;
    long long x = strtoll(buf, &end, 10);
    if (*end || errno || !(isdigit((unsigned char)buf[0]) || buf[0] == '-'))
        return -1;
    *v = x;
    return 0;
}

int gt_knob_parse_value(enum gt_dim_kind kind, const char *w, size_t len, int64_t *v, const char **expect)
{
    switch (kind) {
    case GT_DIM_CACHE:
        *expect = "default, none, shared, l1 or equal";
        return parse_symbol(cache_names, 5, w, len, v);
    case GT_DIM_DLCM:
        *expect = "default, ca, cg, cs, lu or cv";
        return parse_symbol(dlcm_names, 6, w, len, v);
    case GT_DIM_BOUNDS:
        *expect = "off or on";
        return parse_symbol(bounds_names, 2, w, len, v);
    case GT_DIM_CARVEOUT:
        *expect = "default or a percentage from 0 to 100";
        if (word_is(w, len, "default")) {
            *v = GT_CARVEOUT_DEFAULT;
            return 0;
        }
        return parse_int(w, len, v) == 0 && *v >= 0 && *v <= 100 ? 0 : -1;
    case GT_DIM_MAXRREG:
        *expect = "default or a register count from 16 to 255";
        if (word_is(w, len, "default")) {
            *v = 0;
            return 0;
        }
        return parse_int(w, len, v) == 0 && *v >= 16 && *v <= 255 ? 0 : -1;
    case GT_DIM_MINBLOCKS:
        *expect = "default or a block count from 1 to 32";
        if (word_is(w, len, "default")) {
            *v = 0;
            return 0;
        }
        return parse_int(w, len, v) == 0 && *v >= 1 && *v <= 32 ? 0 : -1;
    case GT_DIM_PARAM:
        *expect = "an integer";
        return parse_int(w, len, v);
    default:
        *expect = "a value";
        return -1;
    }
}

int gt_knob_format_value(enum gt_dim_kind kind, int64_t v, char *buf, size_t len)
{
    switch (kind) {
    case GT_DIM_CACHE:
        return snprintf(buf, len, "%s", v >= 0 && v < 5 ? cache_names[v] : "?");
    case GT_DIM_DLCM:
        return snprintf(buf, len, "%s", v >= 0 && v < 6 ? dlcm_names[v] : "?");
    case GT_DIM_BOUNDS:
        return snprintf(buf, len, "%s", v >= 0 && v < 2 ? bounds_names[v] : "?");
    case GT_DIM_CARVEOUT:
        return v == GT_CARVEOUT_DEFAULT ? snprintf(buf, len, "default") : snprintf(buf, len, "%lld", (long long)v);
    case GT_DIM_MAXRREG:
    case GT_DIM_MINBLOCKS:
        return v == 0 ? snprintf(buf, len, "default") : snprintf(buf, len, "%lld", (long long)v);
    default:
        return snprintf(buf, len, "%lld", (long long)v);
    }
}

/* What each knob is when a configuration leaves the launch as the
 * application made it. */
static const int64_t knob_original[GT_DIM_NKINDS] = {[GT_DIM_CARVEOUT] = GT_CARVEOUT_DEFAULT};

int gt_knob_config_is_original(const char *config)
{
    int words = 0;
    for (const char *w = config + strspn(config, " \t"); *w; w += strspn(w, " \t"), words++) {
        size_t len = strcspn(w, " \t");
        const char *eq = memchr(w, '=', len), *expect;
        int kind = eq ? gt_knob_kind(w, (size_t)(eq - w)) : -1;
        int64_t v;
        if (kind < 0 || gt_knob_parse_value(kind, eq + 1, len - (size_t)(eq + 1 - w), &v, &expect) != 0 ||
            v != knob_original[kind])
            return 0;
        w += len;
    }
    return words > 0;
}

int gt_knob_check_arch(enum gt_dim_kind kind, int64_t v, const struct gt_arch *a, char *why, size_t len)
{
    if (kind == GT_DIM_MAXRREG && v > a->max_regs_per_thread) {
        snprintf(why, len, "maxrreg %lld exceeds sm_%d's %d registers per thread", (long long)v, a->sm,
                 a->max_regs_per_thread);
        return -1;
    }
    return 0;
}

/* Register limits worth trying: for each occupancy level (all, 3/4, 1/2,
 * 3/8, 1/4, 3/16 of the SM's warps), the largest per-thread count that still
 * lets that many warps be resident.  Counts in between change nothing but
 * spills, so they are left out. */
static size_t maxrreg_ladder(const struct gt_arch *a, int64_t *v, size_t max)
{
    static const int num[] = {16, 12, 8, 6, 4, 3}, den = 16;
    size_t n = 0;
    if (n < max)
        v[n++] = 0;
    int64_t prev = -1;
    for (size_t i = sizeof num / sizeof num[0]; i-- > 0;) {
        int64_t warps = (int64_t)a->max_warps_per_sm * num[i] / den;
        if (warps <= 0 || a->reg_alloc_unit <= 0)
            continue;
        int64_t per_warp = (int64_t)a->regs_per_sm / warps / a->reg_alloc_unit * a->reg_alloc_unit;
        int64_t r = per_warp / 32;
        if (r > a->max_regs_per_thread)
            r = a->max_regs_per_thread;
        if (r < 16 || r >= a->max_regs_per_thread || r == prev)
            continue;
        if (n < max)
            v[n++] = r;
        prev = r;
    }
    return n;
}

size_t gt_knob_auto_values(enum gt_dim_kind kind, const struct gt_arch *a, int64_t *v, size_t max)
{
    static const int64_t cache[] = {GT_CACHE_DEFAULT, GT_CACHE_NONE, GT_CACHE_SHARED, GT_CACHE_L1, GT_CACHE_EQUAL};
    static const int64_t carve[] = {GT_CARVEOUT_DEFAULT, 0, 25, 50, 75, 100};
    /* ca is what loads do by default; lu and cv are kept for explicit lists */
    static const int64_t dlcm[] = {GT_DLCM_DEFAULT, GT_DLCM_CG, GT_DLCM_CS};
    static const int64_t bounds[] = {0, 1};
    static const int64_t minblocks[] = {0, 1, 2, 4};
    const int64_t *src;
    size_t n;
    switch (kind) {
    case GT_DIM_CACHE: src = cache, n = 5; break;
    case GT_DIM_CARVEOUT: src = carve, n = 6; break;
    case GT_DIM_DLCM: src = dlcm, n = 3; break;
    case GT_DIM_BOUNDS: src = bounds, n = 2; break;
    case GT_DIM_MINBLOCKS: src = minblocks, n = 4; break;
    case GT_DIM_MAXRREG: return maxrreg_ladder(a, v, max);
    default: return 0;
    }
    if (n > max)
        n = max;
    memcpy(v, src, n * sizeof *v);
    return n;
}

/* ---- building ---- */

struct gt_space *gt_space_new(void)
{
    struct gt_space *s = gt_calloc(1, sizeof *s);
    if (s)
        s->size = 1;
    return s;
}

void gt_space_free(struct gt_space *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->ndims; i++) {
        free(s->dims[i].name);
        free(s->dims[i].values);
    }
    for (size_t i = 0; i < s->ncons; i++)
        if (s->cons[i].owned)
            gt_expr_free(s->cons[i].e);
    free(s->dims);
    free(s->names);
    free(s->opaque);
    free(s->cons);
    free(s);
}

enum gt_rc gt_space_add_dim(struct gt_space *s, const char *name, enum gt_dim_kind kind, const int64_t *values,
                            size_t n, size_t def, struct gt_loc loc)
{
    if (n == 0 || n > UINT32_MAX || s->size > MAX_SPACE / n)
        return GT_TOO_LARGE;
    size_t i = s->ndims;
    struct gt_dim *d = gt_realloc(s->dims, (i + 1) * sizeof *d);
    if (d)
        s->dims = d;
    const char **nm = d ? gt_realloc(s->names, (i + 1) * sizeof *nm) : NULL;
    if (nm)
        s->names = nm;
    unsigned char *op = nm ? gt_realloc(s->opaque, i + 1) : NULL;
    if (op)
        s->opaque = op;
    int64_t *v = op ? gt_malloc(n * sizeof *v) : NULL;
    char *nmc = v ? gt_strdup(name) : NULL;
    if (!nmc) {
        free(v);
        return GT_NO_MEMORY;
    }
    memcpy(v, values, n * sizeof *v);
    s->dims[i] = (struct gt_dim){nmc, kind, v, n, def < n ? def : 0, 0, loc};
    s->names[i] = nmc;
    s->opaque[i] = kind == GT_DIM_CACHE || kind == GT_DIM_DLCM;
    s->ndims++;
    s->size *= n;
    return GT_OK;
}

int gt_space_add_constraint(struct gt_space *s, struct gt_expr *e, int owned)
{
    struct gt_constraint *c = gt_realloc(s->cons, (s->ncons + 1) * sizeof *c);
    if (!c)
        return -1;
    s->cons = c;
    unsigned uses = gt_expr_uses(e);
    c[s->ncons++] = (struct gt_constraint){e, gt_expr_max_dim(e), (uses & (GT_USES_ORIG | GT_USES_ARG)) != 0, owned};
    return 0;
}

void gt_space_scope(const struct gt_space *s, unsigned allow, struct gt_expr_scope *scope)
{
    *scope = (struct gt_expr_scope){s->names, s->opaque, s->ndims, allow | GT_USES_DIM, NULL, "a constraint"};
}

int gt_space_add_constraint_text(struct gt_space *s, const char *text, int internal, struct gt_diags *d)
{
    struct gt_expr_scope scope;
    gt_space_scope(s, 0, &scope);
    if (internal)
        scope.opaque = NULL;
    struct gt_expr *e;
    if (gt_expr_compile(text, strlen(text), 0, NULL, &scope, &e, d) < 0)
        return -1;
    if (gt_space_add_constraint(s, e, 1) < 0) {
        gt_expr_free(e);
        return -1;
    }
    return 0;
}

int gt_space_find_dim(const struct gt_space *s, const char *name)
{
    for (size_t i = 0; i < s->ndims; i++)
        if (strcmp(s->dims[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* ---- configurations ---- */

void gt_space_default(const struct gt_space *s, uint32_t *cfg)
{
    for (size_t i = 0; i < s->ndims; i++)
        cfg[i] = (uint32_t)s->dims[i].def;
}

void gt_space_values(const struct gt_space *s, const uint32_t *cfg, int64_t *vals)
{
    for (size_t i = 0; i < s->ndims; i++)
        vals[i] = s->dims[i].values[cfg[i]];
}

uint64_t gt_space_rank(const struct gt_space *s, const uint32_t *cfg)
{
    uint64_t r = 0;
    for (size_t i = 0; i < s->ndims; i++)
        r = r * s->dims[i].n + cfg[i];
    return r;
}

void gt_space_unrank(const struct gt_space *s, uint64_t rank, uint32_t *cfg)
{
    for (size_t i = s->ndims; i-- > 0;) {
        cfg[i] = (uint32_t)(rank % s->dims[i].n);
        rank /= s->dims[i].n;
    }
}

static int check_one(const struct gt_constraint *c, const struct gt_expr_env *env, struct gt_expr_err *err)
{
    int64_t v;
    if (gt_expr_eval(c->e, env, &v, err) < 0)
        return -1;
    return v != 0;
}

int gt_space_check(const struct gt_space *s, const uint32_t *cfg, const struct gt_launch *launch,
                   struct gt_space_fault *f)
{
    int64_t small[32];
    int64_t *vals = s->ndims <= 32 ? small : gt_malloc(s->ndims * sizeof *vals);
    if (!vals)
        return -1;
    gt_space_values(s, cfg, vals);
    struct gt_expr_env env = {vals, launch, NULL};
    int result = 1;
    for (size_t i = 0; i < s->ncons && result == 1; i++) {
        if (s->cons[i].launch && !launch)
            continue;
        struct gt_expr_err err;
        int r = check_one(&s->cons[i], &env, &err);
        if (r != 1 && f)
            *f = (struct gt_space_fault){(int)i, r < 0, err};
        result = r;
    }
    if (vals != small)
        free(vals);
    return result;
}

size_t gt_space_launch_constraints(const struct gt_space *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->ncons; i++)
        n += (size_t)s->cons[i].launch;
    return n;
}

/* ---- enumeration ---- */

static int applies(const struct gt_constraint *c, const struct gt_launch *launch)
{
    return !c->launch || launch;
}

/* Constraints grouped by the level at which they are decided: those of
 * level L are con_at[con_start[L + 1] .. con_start[L + 2]). */
static int group_constraints(struct gt_space_iter *it)
{
    const struct gt_space *s = it->s;
    size_t levels = s->ndims + 1;
    it->con_start = gt_calloc(levels + 1, sizeof *it->con_start);
    it->con_at = gt_malloc((s->ncons ? s->ncons : 1) * sizeof *it->con_at);
    if (!it->con_start || !it->con_at)
        return -1;
    size_t n = 0;
    for (size_t L = 0; L < levels; L++) {
        it->con_start[L] = n;
        for (size_t i = 0; i < s->ncons; i++)
            if ((size_t)(s->cons[i].level + 1) == L && applies(&s->cons[i], it->launch))
                it->con_at[n++] = i;
    }
    it->con_start[levels] = n;
    return 0;
}

int gt_space_iter_init(struct gt_space_iter *it, const struct gt_space *s, const struct gt_launch *launch)
{
    *it = (struct gt_space_iter){.s = s, .launch = launch, .fault = {-1, 0, {0, 0, 0}}};
    size_t n = s->ndims ? s->ndims : 1;
    it->cfg = gt_calloc(n, sizeof *it->cfg);
    it->vals = gt_calloc(n, sizeof *it->vals);
    it->fault_cfg = gt_calloc(n, sizeof *it->fault_cfg);
    if (!it->cfg || !it->vals || !it->fault_cfg || group_constraints(it) < 0) {
        gt_space_iter_clear(it);
        return -1;
    }
    return 0;
}

void gt_space_iter_clear(struct gt_space_iter *it)
{
    free(it->cfg);
    free(it->vals);
    free(it->fault_cfg);
    free(it->con_at);
    free(it->con_start);
    it->cfg = NULL;
    it->vals = NULL;
    it->fault_cfg = NULL;
    it->con_at = it->con_start = NULL;
}

/* Do the constraints decided at level (-1 .. ndims-1) hold? */
static int level_holds(struct gt_space_iter *it, int level)
{
    struct gt_expr_env env = {it->vals, it->launch, NULL};
    for (size_t j = it->con_start[level + 1]; j < it->con_start[level + 2]; j++) {
        size_t ci = it->con_at[j];
        struct gt_expr_err err;
        int r = check_one(&it->s->cons[ci], &env, &err);
        if (r == 1)
            continue;
        if (r < 0) {
            /* the whole subtree is excluded: count it once, as one failure */
            if (it->failures++ == 0) {
                it->fault = (struct gt_space_fault){(int)ci, 1, err};
                memcpy(it->fault_cfg, it->cfg, it->s->ndims * sizeof *it->cfg);
                for (size_t d = (size_t)(level + 1); d < it->s->ndims; d++)
                    it->fault_cfg[d] = (uint32_t)it->s->dims[d].def;
            }
        }
        return 0;
    }
    return 1;
}

static void set_value(struct gt_space_iter *it, int d)
{
    it->vals[d] = it->s->dims[d].values[it->cfg[d]];
}

/* Moves to the next sibling at depth d or an ancestor's; 0 when exhausted. */
static int advance(struct gt_space_iter *it)
{
    int d = it->depth;
    while (++it->cfg[d] == it->s->dims[d].n) {
        it->cfg[d] = 0;
        if (d == 0)
            return 0;
        d--;
    }
    it->depth = d;
    set_value(it, d);
    return 1;
}

int gt_space_iter_next(struct gt_space_iter *it)
{
    const struct gt_space *s = it->s;
    int nd = (int)s->ndims;
    if (it->state == 2)
        return 0;
    if (it->state == 0) {
        it->state = 1;
        if (!level_holds(it, -1)) {
            it->state = 2;
            return 0;
        }
        if (nd == 0) {
            it->state = 2;
            return 1; /* the one, empty, configuration */
        }
        it->depth = 0;
        set_value(it, 0);
    } else if (!advance(it)) {
        it->state = 2;
        return 0;
    }
    for (;;) {
        if (level_holds(it, it->depth)) {
            if (it->depth == nd - 1)
                return 1;
            it->depth++;
            it->cfg[it->depth] = 0;
            set_value(it, it->depth);
        } else if (!advance(it)) {
            it->state = 2;
            return 0;
        }
    }
}

enum gt_rc gt_space_count(struct gt_space_iter *it, uint64_t max_visits, uint64_t *count)
{
    const struct gt_space *s = it->s;
    int nd = (int)s->ndims;
    *count = 0;
    if (!level_holds(it, -1))
        return GT_OK;
    if (nd == 0) {
        *count = 1;
        return GT_OK;
    }
    /* below the last level that has constraints, every configuration counts */
    int last = -1;
    for (int L = 0; L < nd; L++)
        if (it->con_start[L + 1] != it->con_start[L + 2])
            last = L;
    uint64_t tail = 1;
    for (int d = nd - 1; d > last; d--)
        tail *= s->dims[d].n;
    if (last < 0) {
        *count = tail;
        return GT_OK;
    }
    uint64_t visits = 0;
    it->depth = 0;
    it->cfg[0] = 0;
    set_value(it, 0);
    for (;;) {
        if (max_visits && ++visits > max_visits)
            return GT_TOO_LARGE;
        if (level_holds(it, it->depth)) {
            if (it->depth == last) {
                *count += tail;
            } else {
                it->depth++;
                it->cfg[it->depth] = 0;
                set_value(it, it->depth);
                continue;
            }
        }
        if (!advance(it))
            return GT_OK;
    }
}

/* ---- text ---- */

int gt_space_value_text(const struct gt_space *s, size_t dim, size_t idx, char *buf, size_t len)
{
    const struct gt_dim *d = &s->dims[dim];
    return gt_knob_format_value(d->kind, d->values[idx], buf, len);
}

int gt_space_format(const struct gt_space *s, const uint32_t *cfg, char *buf, size_t len)
{
    size_t at = 0;
    if (len)
        buf[0] = 0;
    for (size_t i = 0; i < s->ndims; i++) {
        char v[32];
        gt_space_value_text(s, i, cfg[i], v, sizeof v);
        int r = snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0, "%s%s=%s", i ? " " : "",
                         s->dims[i].name, v);
        if (r < 0)
            return r;
        at += (size_t)r;
    }
    return (int)at;
}

size_t gt_space_text_len(const struct gt_space *s)
{
    size_t len = 0;
    for (size_t i = 0; i < s->ndims; i++) {
        size_t longest = 0;
        for (size_t j = 0; j < s->dims[i].n; j++) {
            char v[32];
            int n = gt_space_value_text(s, i, j, v, sizeof v);
            if (n > 0 && (size_t)n > longest)
                longest = (size_t)n;
        }
        len += (i ? 1 : 0) + strlen(s->dims[i].name) + 1 + longest;
    }
    return len;
}

static int find_value(const struct gt_dim *d, int64_t v)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->values[i] == v)
            return (int)i;
    return -1;
}

/* "64, 128, 256" for messages, shortened when long. */
static void list_values(const struct gt_dim *d, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (size_t i = 0; i < d->n && at + 24 < len; i++) {
        if (i == 8 && d->n > 10) {
            snprintf(buf + at, len - at, ", ... (%zu values)", d->n);
            return;
        }
        char v[32];
        gt_knob_format_value(d->kind, d->values[i], v, sizeof v);
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", v);
    }
}

__attribute__((format(printf, 5, 6))) static int parse_error(char *err, size_t errlen, size_t *erroff, size_t at,
                                                            const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    if (erroff)
        *erroff = at;
    return -1;
}

int gt_space_parse(const struct gt_space *s, const char *text, unsigned flags, uint32_t *cfg, char *err,
                   size_t errlen, size_t *erroff)
{
    unsigned char small[64];
    unsigned char *seen = s->ndims <= 64 ? small : gt_calloc(s->ndims, 1);
    if (!seen)
        return parse_error(err, errlen, erroff, 0, "out of memory");
    memset(seen, 0, s->ndims <= 64 ? sizeof small : 0);
    int rc = 0;
    size_t i = 0;
    while (rc == 0) {
        while (text[i] && isspace((unsigned char)text[i]))
            i++;
        if (!text[i])
            break;
        size_t start = i;
        while (text[i] && !isspace((unsigned char)text[i]))
            i++;
        const char *tok = text + start, *eq = memchr(tok, '=', i - start);
        int tl = (int)(i - start > 60 ? 60 : i - start);
        if (!eq || eq == tok) {
            rc = parse_error(err, errlen, erroff, start, "expected NAME=VALUE, found '%.*s'", tl, tok);
            break;
        }
        size_t nl = (size_t)(eq - tok), vl = i - start - nl - 1;
        int d = -1;
        for (size_t k = 0; k < s->ndims && d < 0; k++)
            if (word_is(tok, nl, s->dims[k].name))
                d = (int)k;
        if (d < 0) {
            const char *near = NULL;
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(nl > 60 ? 60 : nl), tok);
            near = gt_nearest(name, s->names, s->ndims);
            rc = near ? parse_error(err, errlen, erroff, start, "unknown dimension '%s'; did you mean '%s'?", name, near)
                      : parse_error(err, errlen, erroff, start, "unknown dimension '%s'", name);
            break;
        }
        if (seen[d]) {
            rc = parse_error(err, errlen, erroff, start, "'%s' is given twice", s->dims[d].name);
            break;
        }
        seen[d] = 1;
        const struct gt_dim *dim = &s->dims[d];
        const char *expect;
        int64_t v;
        int idx = -1;
        if (gt_knob_parse_value(dim->kind, eq + 1, vl, &v, &expect) == 0)
            idx = find_value(dim, v);
        if (idx < 0) {
            char vals[256];
            list_values(dim, vals, sizeof vals);
            rc = parse_error(err, errlen, erroff, (size_t)(eq + 1 - text), "%s=%.*s is not one of its values (%s)",
                             dim->name, (int)(vl > 40 ? 40 : vl), eq + 1, vals);
            break;
        }
        cfg[d] = (uint32_t)idx;
    }
    for (size_t k = 0; rc == 0 && !(flags & GT_PARSE_PARTIAL) && k < s->ndims; k++)
        if (!seen[k])
            rc = parse_error(err, errlen, erroff, i, "'%s' is missing", s->dims[k].name);
    if (seen != small)
        free(seen);
    return rc;
}

/* ---- knobs of a configuration ---- */

void gt_space_knobs(const struct gt_space *s, const uint32_t *cfg, struct gt_knobs *k)
{
    *k = (struct gt_knobs){GT_CACHE_DEFAULT, GT_CARVEOUT_DEFAULT, 0, GT_DLCM_DEFAULT, 0, 0};
    for (size_t i = 0; i < s->ndims; i++) {
        int v = (int)s->dims[i].values[cfg[i]];
        switch (s->dims[i].kind) {
        case GT_DIM_CACHE: k->cache = v; break;
        case GT_DIM_CARVEOUT: k->carveout = v; break;
        case GT_DIM_MAXRREG: k->maxrreg = v; break;
        case GT_DIM_DLCM: k->dlcm = v; break;
        case GT_DIM_BOUNDS: k->bounds = v; break;
        case GT_DIM_MINBLOCKS: k->minblocks = v; break;
        default: break;
        }
    }
}

/* ---- the automatic space ---- */

static int has_kind(const struct gt_space *s, enum gt_dim_kind kind)
{
    for (size_t i = 0; i < s->ndims; i++)
        if (s->dims[i].kind == kind)
            return 1;
    return 0;
}

int gt_space_add_auto_knobs(struct gt_space *s, const struct gt_arch *a, int with_ptx, struct gt_diags *d)
{
    static const enum gt_dim_kind always[] = {GT_DIM_CACHE, GT_DIM_CARVEOUT},
                                  jit[] = {GT_DIM_MAXRREG, GT_DIM_DLCM, GT_DIM_BOUNDS};
    int added_split = 0;
    for (int pass = 0; pass < 2; pass++) {
        const enum gt_dim_kind *kinds = pass ? jit : always;
        size_t nk = pass ? 3 : 2;
        if (pass && !with_ptx)
            break;
        for (size_t i = 0; i < nk; i++) {
            if (has_kind(s, kinds[i]))
                continue;
            int64_t v[16];
            size_t n = gt_knob_auto_values(kinds[i], a, v, 16);
            if (gt_space_add_dim(s, gt_knob_name(kinds[i]), kinds[i], v, n, 0, (struct gt_loc){0}) != GT_OK)
                return -1;
            added_split |= !pass;
        }
    }
    if (added_split && has_kind(s, GT_DIM_CACHE) && has_kind(s, GT_DIM_CARVEOUT))
        return gt_space_add_constraint_text(s, gt_knob_split_constraint, 1, d);
    return 0;
}

struct gt_space *gt_space_auto(const struct gt_arch *a, int with_ptx, struct gt_diags *d)
{
    struct gt_space *s = gt_space_new();
    if (s && gt_space_add_auto_knobs(s, a, with_ptx, d) < 0) {
        gt_space_free(s);
        return NULL;
    }
    return s;
}
