/* t4.c: Kernel Tuner's T4 format for cache files and trials.
 *
 * T4 (the results schema 1.0.0 of the autotuning community's "FAIR
 * sharing" formats, which Kernel Tuner writes and the benchmark hub's
 * landscapes use) is one JSON document of results: a configuration each,
 * with its times, validity and measurements.  A cache file becomes one
 * document, an entry one result: its configuration (the NAME=VALUE words,
 * an integer value as a JSON number), its tuned time and the original's
 * as measurements (milliseconds, as Kernel Tuner writes them), when it was
 * tuned as the timestamp, and the rest of the entry (kernel, signature,
 * device, architecture, driver, image, cubin, strategy, trials, space, the
 * guard's verdict or times) in the result's "metadata", a member T4 leaves
 * to the writer and other tools ignore.  Reading takes that back: the
 * fastest correct result of each entry key becomes the entry.  A
 * GPUTUNE_TRIALS file becomes a document of every trial run: a landscape
 * other tools can read. */
#include "t4.h"
#include "alloc.h"
#include "arena.h"
#include "csv.h"
#include "errmsg.h"
#include "json.h"

#include "gputune.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define T4_SCHEMA "1.0.0"
#define US_PER_MS 1000.0

/* ---- writing ---- */

/* An integer as JSON and the configuration text both write it: as a JSON
 * number it reads back to the same text. */
static int is_integer(const char *s)
{
    s += *s == '-';
    size_t n = strspn(s, "0123456789");
    return n > 0 && !s[n] && (s[0] != '0' || n == 1);
}

/* The configuration's NAME=VALUE words as a T4 configuration object. */
static int put_config(struct gt_jsonw *w, const char *config, char *err, size_t errlen)
{
    gt_jsonw_open(w, '{');
    for (const char *p = config + strspn(config, " "); *p; p += strspn(p, " ")) {
        size_t n = strcspn(p, " ");
        const char *eq = memchr(p, '=', n);
        if (!eq || eq == p)
            return gt_errf(err, errlen, "configuration '%s' is not NAME=VALUE words", config);
        char *name = gt_strndup(p, (size_t)(eq - p)), *value = gt_strndup(eq + 1, n - (size_t)(eq - p) - 1);
        if (name && value) {
            gt_jsonw_key(w, name);
            if (is_integer(value))
                gt_jsonw_literal(w, value);
            else
                gt_jsonw_str(w, value);
        }
        int kept = name && value;
        free(name);
        free(value);
        if (!kept)
            return gt_errf(err, errlen, "out of memory");
        p += n;
    }
    gt_jsonw_close(w, '}');
    return 0;
}

static void begin_document(struct gt_jsonw *w, FILE *f, const char *source, const char *binary)
{
    gt_jsonw_init(w, f, 2);
    gt_jsonw_open(w, '{');
    gt_jsonw_key(w, "schema_version");
    gt_jsonw_str(w, T4_SCHEMA);
    gt_jsonw_key(w, "metadata");
    gt_jsonw_open(w, '{');
    gt_jsonw_key(w, "timeunit");
    gt_jsonw_str(w, "milliseconds");
    gt_jsonw_key(w, "generator");
    gt_jsonw_str(w, "gputune " GPUTUNE_VERSION);
    gt_jsonw_key(w, "source");
    gt_jsonw_str(w, source);
    if (binary) {
        gt_jsonw_key(w, "binary");
        gt_jsonw_str(w, binary);
    }
    gt_jsonw_close(w, '}');
    gt_jsonw_key(w, "results");
    gt_jsonw_open(w, '[');
}

static void end_document(struct gt_jsonw *w)
{
    gt_jsonw_close(w, ']');
    gt_jsonw_close(w, '}');
    putc('\n', w->f);
}

static void key_str(struct gt_jsonw *w, const char *key, const char *value)
{
    gt_jsonw_key(w, key);
    gt_jsonw_str(w, value);
}

/* A measurement of microseconds, in milliseconds; or the name of a failure
 * (value NULL: the result has no time), as Kernel Tuner writes one. */
static void measurement(struct gt_jsonw *w, const char *name, double us, const char *failure)
{
    gt_jsonw_open(w, '{');
    key_str(w, "name", name);
    gt_jsonw_key(w, "value");
    if (failure)
        gt_jsonw_str(w, failure);
    else
        gt_jsonw_num(w, us / US_PER_MS);
    key_str(w, "unit", failure ? "" : "ms");
    gt_jsonw_close(w, '}');
}

/* The members every result begins with. */
static int begin_result(struct gt_jsonw *w, const char *timestamp, const char *config, char *err, size_t errlen)
{
    gt_jsonw_open(w, '{');
    if (timestamp && *timestamp)
        key_str(w, "timestamp", timestamp);
    gt_jsonw_key(w, "configuration");
    if (put_config(w, config, err, errlen) != 0)
        return -1;
    gt_jsonw_key(w, "objectives");
    gt_jsonw_open(w, '[');
    gt_jsonw_str(w, "time");
    gt_jsonw_close(w, ']');
    return 0;
}

static void put_entry_metadata(struct gt_jsonw *w, const struct gt_centry *e)
{
    char text[64];
    gt_jsonw_key(w, "metadata");
    gt_jsonw_open(w, '{');
    key_str(w, "kernel", e->kernel);
    key_str(w, "signature", e->signature);
    key_str(w, "device", e->device);
    snprintf(text, sizeof text, "sm_%d", e->arch);
    key_str(w, "arch", text);
    gt_jsonw_key(w, "driver");
    gt_jsonw_int(w, e->driver);
    if (e->driver_version && *e->driver_version)
        key_str(w, "driver_version", e->driver_version);
    snprintf(text, sizeof text, "%016llx", (unsigned long long)e->image);
    key_str(w, "image", text);
    key_str(w, "image_file", e->image_file);
    key_str(w, "cubin", e->cubin);
    key_str(w, "strategy", e->strategy);
    gt_jsonw_key(w, "trials");
    gt_jsonw_int(w, e->trials);
    snprintf(text, sizeof text, "%llu", (unsigned long long)e->space);
    gt_jsonw_key(w, "space");
    gt_jsonw_literal(w, text);
    if (e->guard != GT_CENTRY_UNCHECKED) {
        snprintf(text, sizeof text, "%s %.3f", e->guard == GT_CENTRY_KEPT ? "kept" : "dropped", e->guard_speedup);
        key_str(w, "guard", text);
    } else if (e->guard_times) {
        key_str(w, "guard_times", e->guard_times);
    }
    gt_jsonw_close(w, '}');
}

/* A cache file as one T4 document: 0, or -1 with err. */
int gt_t4_from_cache(FILE *f, const struct gt_cachefile *c, char *err, size_t errlen)
{
    struct gt_jsonw w;
    begin_document(&w, f, "cache file", c->binary);
    for (size_t i = 0; i < c->n; i++) {
        const struct gt_centry *e = &c->v[i];
        if (begin_result(&w, e->tuned, e->config, err, errlen) != 0)
            return -1;
        gt_jsonw_key(&w, "times");
        gt_jsonw_open(&w, '{');
        gt_jsonw_close(&w, '}');
        key_str(&w, "invalidity", "correct");
        gt_jsonw_key(&w, "correctness");
        gt_jsonw_int(&w, 1);
        gt_jsonw_key(&w, "measurements");
        gt_jsonw_open(&w, '[');
        measurement(&w, "time", e->time_us, NULL);
        measurement(&w, "baseline_time", e->baseline_us, NULL);
        gt_jsonw_close(&w, ']');
        put_entry_metadata(&w, e);
        gt_jsonw_close(&w, '}');
    }
    end_document(&w);
    return 0;
}

/* GPUTUNE_TRIALS's outcomes as T4 says them. */
static const struct {
    const char *outcome, *invalidity, *failure;
} outcomes[] = {
    {"ok", "correct", NULL},                            /* its median time */
    {"cut", "timeout", NULL},                           /* how long it ran until the watchdog stopped it */
    {"wrong", "correctness", "IncorrectResultConfig"},  /* it computed another result */
    {"failed", "runtime", "RuntimeFailedConfig"},       /* it did not run */
    {"invalid", "compile", "CompilationFailedConfig"},  /* it did not build or load, or cannot launch */
};

static const char *const trial_columns[] = {"kernel", "signature", "configuration", "outcome", "us", "build_s",
                                            "instr", "regions", "threads", "block_threads", "blocks_per_sm", "regs"};
#define TRIAL_FIXED 6 /* the columns before the estimate's */

static int number_field(const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    return end != s && !*end ? 0 : -1;
}

static int put_trial(struct gt_jsonw *w, struct gt_csv *c, const char *name, size_t *not_run, char *err,
                     size_t errlen)
{
    char **f = c->fields;
    size_t o = 0;
    while (o < sizeof outcomes / sizeof *outcomes && strcmp(outcomes[o].outcome, f[3]) != 0)
        o++;
    double us = 0, build_s;
    if (!strcmp(f[3], "estimated")) {
        ++*not_run; /* built and estimated, never run: no time to give */
        return 0;
    }
    if (o == sizeof outcomes / sizeof *outcomes)
        return gt_errf(err, errlen, "%s: line %d: unknown outcome '%.40s'", name, c->record_line, f[3]);
    /* Only a trial that ran has a time (older files wrote -1 where none was). */
    int timed = f[4][0] != '\0';
    if ((timed && number_field(f[4], &us) != 0) || number_field(f[5], &build_s) != 0)
        return gt_errf(err, errlen, "%s: line %d: us '%.40s' or build_s '%.40s' is not a number", name,
                       c->record_line, f[4], f[5]);
    if (o == 0 && (!timed || us <= 0))
        return gt_errf(err, errlen, "%s: line %d: an ok trial without a positive time ('%.40s')", name,
                       c->record_line, f[4]);
    if (begin_result(w, NULL, f[2], err, errlen) != 0)
        return gt_errf(err, errlen, "%s: line %d: configuration '%.80s' is not NAME=VALUE words", name,
                       c->record_line, f[2]);
    gt_jsonw_key(w, "times");
    gt_jsonw_open(w, '{');
    gt_jsonw_key(w, "compilation");
    gt_jsonw_num(w, build_s * 1000);
    gt_jsonw_close(w, '}');
    key_str(w, "invalidity", outcomes[o].invalidity);
    gt_jsonw_key(w, "correctness");
    gt_jsonw_int(w, o == 0);
    gt_jsonw_key(w, "measurements");
    gt_jsonw_open(w, '[');
    const char *failure = outcomes[o].failure;
    measurement(w, "time", us, failure ? failure : timed && us > 0 ? NULL : "RuntimeFailedConfig");
    gt_jsonw_close(w, ']');
    gt_jsonw_key(w, "metadata");
    gt_jsonw_open(w, '{');
    key_str(w, "kernel", f[0]);
    key_str(w, "signature", f[1]);
    key_str(w, "outcome", f[3]);
    int estimated = 0;
    for (size_t i = TRIAL_FIXED; i < c->n; i++) {
        double v;
        if (!*f[i])
            continue;
        if (number_field(f[i], &v) != 0)
            return gt_errf(err, errlen, "%s: line %d: %s '%.40s' is not a number", name, c->record_line,
                           trial_columns[i], f[i]);
        if (!estimated++) {
            gt_jsonw_key(w, "estimate");
            gt_jsonw_open(w, '{');
        }
        gt_jsonw_key(w, trial_columns[i]);
        gt_jsonw_num(w, v);
    }
    if (estimated)
        gt_jsonw_close(w, '}');
    gt_jsonw_close(w, '}');
    gt_jsonw_close(w, '}');
    return 0;
}

/* A header of GPUTUNE_TRIALS: its first columns, in order (older files
 * have fewer estimate columns). */
static int trials_header(const struct gt_csv *c)
{
    if (c->n < TRIAL_FIXED || c->n > sizeof trial_columns / sizeof *trial_columns)
        return -1;
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->fields[i], trial_columns[i]) != 0)
            return -1;
    return 0;
}

/* The trials of a GPUTUNE_TRIALS file (csv[0, len), called `name` in
 * messages) as one T4 document; *not_run counts the rows of trials built
 * and estimated but never run, which have no time.  0, or -1 with err. */
int gt_t4_from_trials(FILE *f, const char *csv, size_t len, const char *name, size_t *not_run, char *err,
                      size_t errlen)
{
    struct gt_csv c;
    char why[256];
    gt_csv_init(&c, csv, len);
    int r = gt_csv_next(&c, why, sizeof why);
    if (r == 1 && trials_header(&c) != 0)
        r = gt_errf(why, sizeof why, "line 1 is not the header GPUTUNE_TRIALS writes (kernel,signature,configuration,"
                                     "outcome,us,build_s,...)");
    else if (r == 0)
        r = gt_errf(why, sizeof why, "it is empty, not a GPUTUNE_TRIALS file");
    size_t columns = c.n;
    *not_run = 0;
    struct gt_jsonw w;
    if (r == 1)
        begin_document(&w, f, "GPUTUNE_TRIALS", NULL);
    while (r == 1 && (r = gt_csv_next(&c, why, sizeof why)) == 1) {
        if (c.n != columns)
            r = gt_errf(why, sizeof why, "line %d has %zu fields, its header %zu", c.record_line, c.n, columns);
        else if (put_trial(&w, &c, name, not_run, err, errlen) != 0)
            r = -2;
    }
    gt_csv_free(&c);
    if (r == -1)
        return gt_errf(err, errlen, "%s: %s", name, why);
    if (r == -2)
        return -1;
    end_document(&w);
    return 0;
}

/* ---- reading ---- */

struct reader {
    const char *text, *name;
    char *err;
    size_t errlen;
    double unit_us; /* microseconds in the document's time unit */
};

/* Says what is wrong with the value v, by its place in the text. */
static int bad(struct reader *r, const struct gt_json *v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(struct reader *r, const struct gt_json *v, const char *fmt, ...)
{
    char why[512];
    int line, column;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    gt_json_where(r->text, v->at, &line, &column);
    return gt_errf(r->err, r->errlen, "%s: line %d, column %d: %s", r->name, line, column, why);
}

/* Microseconds in a unit of time: 0, or -1 when it is not one. */
static int unit_us(const char *unit, double *us)
{
    static const struct {
        const char *names;
        double us;
    } units[] = {{" ms milliseconds miliseconds ", 1e3}, {" us microseconds ", 1}, {" s seconds ", 1e6},
                 {" ns nanoseconds ", 1e-3}};
    char word[64];
    if (snprintf(word, sizeof word, " %s ", unit) >= (int)sizeof word)
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strstr(units[i].names, word)) {
            *us = units[i].us;
            return 0;
        }
    return -1;
}

/* The measurement `name` of result i in microseconds: 1; 0 when it has
 * none or names a failure ("RuntimeFailedConfig"); -1 with err. */
static int result_time(struct reader *r, const struct gt_json *res, size_t i, const char *name, double *us)
{
    const struct gt_json *ms = gt_json_member(res, "measurements");
    if (ms && ms->kind != GT_JSON_ARRAY)
        return bad(r, ms, "results[%zu].measurements is not an array", i);
    for (size_t j = 0; ms && j < ms->n; j++) {
        const struct gt_json *m = &ms->items[j], *n = gt_json_member(m, "name"), *v = gt_json_member(m, "value"),
                             *u = gt_json_member(m, "unit");
        if (!n || n->kind != GT_JSON_STRING)
            return bad(r, m, "results[%zu].measurements[%zu] has no name", i, j);
        if (strcmp(n->text, name) != 0)
            continue;
        if (v && v->kind == GT_JSON_STRING)
            return 0;
        if (!v || v->kind != GT_JSON_NUMBER)
            return bad(r, v ? v : m, "results[%zu].measurements[%zu] (%s) has no number for its value", i, j, name);
        double scale = r->unit_us;
        if (u && (u->kind != GT_JSON_STRING || (*u->text && unit_us(u->text, &scale) != 0)))
            return bad(r, u, "results[%zu].measurements[%zu].unit is not a unit of time", i, j);
        *us = v->number * scale;
        return 1;
    }
    return 0;
}

/* Result i's configuration object as NAME=VALUE words. */
static int config_text(struct reader *r, const struct gt_json *res, size_t i, struct gt_centry *e)
{
    const struct gt_json *cfg = gt_json_member(res, "configuration");
    if (!cfg || cfg->kind != GT_JSON_OBJECT)
        return bad(r, cfg ? cfg : res, "results[%zu] has no configuration object", i);
    char *text = NULL;
    size_t used = 0, cap = 0;
    int rc = 0;
    for (size_t j = 0; rc == 0 && j < cfg->n; j++) {
        const char *k = cfg->keys[j], *v = cfg->items[j].text;
        if (cfg->items[j].kind != GT_JSON_NUMBER && cfg->items[j].kind != GT_JSON_STRING)
            rc = bad(r, &cfg->items[j], "results[%zu].configuration.%.60s is neither a number nor a string", i, k);
        else if (!*k || strpbrk(k, " =\n") || strpbrk(v, " \n"))
            rc = bad(r, &cfg->items[j], "results[%zu].configuration.%.60s cannot be written as a NAME=VALUE word", i,
                     k);
        else if (gt_grow((void **)&text, &cap, used + strlen(k) + strlen(v) + 3, 1) != 0)
            rc = gt_errf(r->err, r->errlen, "out of memory");
        else
            used += (size_t)sprintf(text + used, "%s%s=%s", used ? " " : "", k, v);
    }
    if (rc == 0 && gt_centry_set(e, "config", text ? text : "") == GT_FIELD_NOMEM)
        rc = gt_errf(r->err, r->errlen, "out of memory");
    free(text);
    return rc;
}

/* Keys an exported result carries elsewhere than in its metadata. */
static int carried_elsewhere(const char *key)
{
    return !strcmp(key, "config") || !strcmp(key, "time_us") || !strcmp(key, "baseline_us") || !strcmp(key, "tuned");
}

/* Result i's metadata, configuration and timestamp into e. */
static int entry_of(struct reader *r, const struct gt_json *res, size_t i, struct gt_centry *e)
{
    static const char *const required[] = {"kernel", "signature", "device", "arch", "driver", "image"};
    const struct gt_json *md = gt_json_member(res, "metadata"), *ts = gt_json_member(res, "timestamp");
    if (!md || md->kind != GT_JSON_OBJECT)
        return bad(r, md ? md : res, "results[%zu] has no metadata naming its kernel, signature and device: gputune "
                   "imports the results it exported from a cache file", i);
    for (size_t k = 0; k < sizeof required / sizeof *required; k++)
        if (!gt_json_member(md, required[k]))
            return bad(r, md, "results[%zu].metadata has no \"%s\" (a cache entry needs kernel, signature, device, "
                       "arch, driver and image)", i, required[k]);
    for (size_t j = 0; j < md->n; j++) {
        const struct gt_json *v = &md->items[j];
        if (carried_elsewhere(md->keys[j]))
            continue;
        if (v->kind != GT_JSON_STRING && v->kind != GT_JSON_NUMBER)
            return bad(r, v, "results[%zu].metadata.%.40s is neither a string nor a number", i, md->keys[j]);
        enum gt_centry_field f = gt_centry_set(e, md->keys[j], v->text);
        if (f == GT_FIELD_BAD)
            return bad(r, v, "results[%zu].metadata.%.40s: bad value '%.60s'", i, md->keys[j], v->text);
        if (f == GT_FIELD_NOMEM)
            return gt_errf(r->err, r->errlen, "out of memory");
    }
    if (ts && ts->kind != GT_JSON_STRING)
        return bad(r, ts, "results[%zu].timestamp is not a string", i);
    if (ts && gt_centry_set(e, "tuned", ts->text) == GT_FIELD_NOMEM)
        return gt_errf(r->err, r->errlen, "out of memory");
    if (result_time(r, res, i, "baseline_time", &e->baseline_us) < 0)
        return -1;
    return config_text(r, res, i, e);
}

/* Whether result i counts: 1 when it is correct and has a time (in *us),
 * 0 when not, -1 with err. */
static int usable(struct reader *r, const struct gt_json *res, size_t i, double *us)
{
    const struct gt_json *inv = gt_json_member(res, "invalidity"), *corr = gt_json_member(res, "correctness"),
                         *obj = gt_json_member(res, "objectives");
    if (res->kind != GT_JSON_OBJECT)
        return bad(r, res, "results[%zu] is not an object", i);
    if (inv && inv->kind != GT_JSON_STRING)
        return bad(r, inv, "results[%zu].invalidity is not a string", i);
    if (corr && corr->kind != GT_JSON_NUMBER)
        return bad(r, corr, "results[%zu].correctness is not a number", i);
    if ((inv && strcmp(inv->text, "correct") != 0) || (corr && corr->number == 0))
        return 0;
    const char *objective = obj && obj->kind == GT_JSON_ARRAY && obj->n && obj->items[0].kind == GT_JSON_STRING
                              ? obj->items[0].text : "time";
    return result_time(r, res, i, objective, us);
}

/* Reads a T4 document (text[0, len), called `name` in messages) into c:
 * the fastest correct result of each entry key.  0, or -1 with err. */
int gt_t4_to_cache(const char *text, size_t len, const char *name, struct gt_cachefile *c, struct gt_t4_read *read,
                   char *err, size_t errlen)
{
    struct reader r = {.text = text, .name = name, .err = err, .errlen = errlen, .unit_us = US_PER_MS};
    char why[512];
    *c = (struct gt_cachefile){0};
    *read = (struct gt_t4_read){0};
    struct gt_arena *a = gt_arena_new();
    const struct gt_json *doc = a ? gt_json_parse(a, text, len, why, sizeof why) : NULL;
    const struct gt_json *results = gt_json_member(doc, "results"), *md = gt_json_member(doc, "metadata");
    const struct gt_json *unit = gt_json_member(md, "timeunit"), *binary = gt_json_member(md, "binary");
    int rc = 0;
    if (!doc)
        rc = gt_errf(err, errlen, "%s: %s", name, a ? why : "out of memory");
    else if (!results || results->kind != GT_JSON_ARRAY)
        rc = bad(&r, doc, "no \"results\" array: not a T4 document");
    else if (unit && (unit->kind != GT_JSON_STRING || unit_us(unit->text, &r.unit_us) != 0))
        rc = bad(&r, unit, "metadata.timeunit is not a unit of time");
    else if (binary && binary->kind == GT_JSON_STRING && !(c->binary = gt_strdup(binary->text)))
        rc = gt_errf(err, errlen, "out of memory");
    for (size_t i = 0; rc == 0 && i < results->n; i++) {
        struct gt_centry e = {0};
        double us = 0;
        int use = usable(&r, &results->items[i], i, &us);
        read->results++;
        read->failed += use == 0;
        if (use == 1 && (rc = entry_of(&r, &results->items[i], i, &e)) == 0) {
            e.time_us = us;
            const struct gt_centry *old = gt_cache_find(c, &e);
            if ((!old || us < old->time_us) && gt_cache_put(c, &e, 1) != 0)
                rc = gt_errf(err, errlen, "out of memory");
        }
        rc = use < 0 ? -1 : rc;
        gt_centry_clear(&e);
    }
    gt_arena_free(a);
    if (rc != 0)
        gt_cache_clear(c);
    return rc;
}
