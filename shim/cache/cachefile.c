/* cachefile.c: the per-binary file of tuned configurations.
 *
 * One human-readable INI file per application binary, named after it and a
 * hash of its full path, holds an entry per (image, kernel, device,
 * architecture, driver, launch signature): the winning configuration, its
 * time and the original's, how many trials in what space with which
 * strategy, when, the file the image came from, and the store key of its
 * compiled cubin so that run mode never compiles.  The driver is keyed by
 * the CUDA version it runs and by its own version, so that a driver update
 * under the same CUDA version is another driver; an entry without the
 * latter (files of format 1) is matched by the CUDA version alone.  Kernel names run to thousands of characters, so the file is
 * read by a small reader of its own, without a line limit.
 *
 * Writers serialize on a lock file (flock, waited for a bounded time), read
 * the file again under the lock, make their change (the shim adds entries;
 * `gputune cache` imports, merges and prunes), write a temporary file and
 * rename it: no entry of a concurrent process is lost and a reader never
 * sees half a file.  Values are written escaped (a program path may
 * hold a newline).
 *
 * Entries are checked one by one: one that does not parse is dropped and
 * named, the others are used, and the next write keeps the damaged file
 * aside as FILE.bad.  A file of a newer format is read as far as this
 * library understands it and never written over.  Whatever is not a
 * regular file of the user, in a directory of the user, is refused and left
 * alone (cachedir.c).  An error of the moment (no descriptor, no memory, an
 * I/O error, the lock held too long) leaves the file as it is: the caller
 * keeps its entries and tries again later. */
#include "cachefile.h"
#include "alloc.h"
#include "arena.h"
#include "cachedir.h"
#include "errmsg.h"
#include "hash.h"
#include "readfd.h"
#include "store.h"

#include "gputune.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Interpreters whose programs are the scripts they run, and the options of
 * each that take the next argument as their value. */
static const struct {
    const char *name; /* the executable's name, or its start when it ends in '*' */
    const char *valued; /* options followed by a value, blank-separated */
} interpreters[] = {
    {"python*", " -W -X -Q "}, {"julia", " -e -E -L -J -p -t --project "}, {"Rscript", " -e "},
    {"ruby", " -e -I -r "}, {"perl", " -e -E -I -M "}, {"node", " -e -r "},
};

static int is_interpreter(const char *base, const char **valued)
{
    for (size_t i = 0; i < sizeof interpreters / sizeof *interpreters; i++) {
        const char *n = interpreters[i].name;
        size_t len = strlen(n);
        if (n[len - 1] == '*' ? strncmp(base, n, len - 1) == 0 : strcmp(base, n) == 0) {
            *valued = interpreters[i].valued;
            return 1;
        }
    }
    return 0;
}

static int takes_value(const char *valued, const char *opt)
{
    char word[64];
    return snprintf(word, sizeof word, " %s ", opt) < (int)sizeof word && strstr(valued, word) != NULL;
}

int gt_cache_program(const char *exe, char *const *argv, int argc, char *out, size_t cap)
{
    const char *base = strrchr(exe, '/'), *valued = NULL;
    base = base ? base + 1 : exe;
    int i = 1;
    while (is_interpreter(base, &valued) && i < argc && argv[i][0] == '-' && strcmp(argv[i], "-m") != 0 &&
           strcmp(argv[i], "-c") != 0)
        i += 1 + (takes_value(valued, argv[i]) && i + 1 < argc);
    int n;
    if (!valued || i >= argc || !strcmp(argv[i], "-c"))
        n = snprintf(out, cap, "%s", exe); /* a program, an interactive interpreter, or code given inline */
    else if (!strcmp(argv[i], "-m"))
        n = snprintf(out, cap, "%s -m %s", exe, i + 1 < argc ? argv[i + 1] : "");
    else {
        char real[PATH_MAX];
        n = snprintf(out, cap, "%s %s", exe, realpath(argv[i], real) ? real : argv[i]);
    }
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* root/NAME-HASH.ini for the program `binary` (gt_cache_program's): NAME
 * is its last word's file name, the script's for an interpreter. */
int gt_cache_file(const char *root, const char *binary, char *out, size_t cap)
{
    const char *last = strrchr(binary, ' ');
    const char *base = strrchr(last ? last + 1 : binary, '/');
    base = base ? base + 1 : last ? last + 1 : binary;
    int n = snprintf(out, cap, "%s/%.64s-%016llx.ini", root, *base ? base : "app",
                     (unsigned long long)gt_hash64(binary, strlen(binary)));
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* Decimal digits of v at o; the end.  By hand, since a signature is made
 * at every launch of a planned kernel and snprintf costs most of that. */
static char *put_u64(char *o, unsigned long long v)
{
    char d[20];
    int n = 0;
    do
        d[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n)
        *o++ = d[--n];
    return o;
}

static char *put_str(char *o, const char *s)
{
    while (*s)
        *o++ = *s++;
    return o;
}

static char *put_triple(char *o, const char *key, const unsigned v[3])
{
    o = put_str(o, key);
    for (int i = 0; i < 3; i++) {
        if (i)
            *o++ = ',';
        o = put_u64(o, v[i]);
    }
    return o;
}

/* "grid=X,Y,Z block=X,Y,Z smem=N[ args=A,B,...]"; -1 when it does not fit in cap. */
int gt_cache_signature(const unsigned grid[3], const unsigned block[3], unsigned smem, const int64_t *extra,
                       size_t nextra, char *out, size_t cap)
{
    char buf[96 + 22 * GT_CACHE_MAX_EXTRA];
    if (nextra > GT_CACHE_MAX_EXTRA || cap == 0)
        return -1;
    char *o = put_triple(buf, "grid=", grid);
    o = put_triple(o, " block=", block);
    o = put_u64(put_str(o, " smem="), smem);
    for (size_t i = 0; i < nextra; i++) {
        o = put_str(o, i ? "," : " args=");
        if (extra[i] < 0)
            *o++ = '-';
        o = put_u64(o, extra[i] < 0 ? 0ULL - (unsigned long long)extra[i] : (unsigned long long)extra[i]);
    }
    size_t n = (size_t)(o - buf), kept = n < cap ? n : cap - 1;
    memcpy(out, buf, kept);
    out[kept] = 0;
    return n < cap ? 0 : -1;
}

void gt_centry_clear(struct gt_centry *e)
{
    free(e->image_file);
    free(e->kernel);
    free(e->device);
    free(e->driver_version);
    free(e->signature);
    free(e->config);
    free(e->cubin);
    free(e->strategy);
    free(e->tuned);
    free(e->guard_times);
    memset(e, 0, sizeof *e);
}

static char *dup_or_empty(const char *s)
{
    return gt_strdup(s ? s : "");
}

int gt_centry_copy(struct gt_centry *dst, const struct gt_centry *src)
{
    *dst = *src;
    dst->image_file = dup_or_empty(src->image_file);
    dst->kernel = dup_or_empty(src->kernel);
    dst->device = dup_or_empty(src->device);
    dst->driver_version = dup_or_empty(src->driver_version);
    dst->signature = dup_or_empty(src->signature);
    dst->config = dup_or_empty(src->config);
    dst->cubin = dup_or_empty(src->cubin);
    dst->strategy = dup_or_empty(src->strategy);
    dst->tuned = dup_or_empty(src->tuned);
    dst->guard_times = src->guard_times ? gt_strdup(src->guard_times) : NULL;
    if (!dst->image_file || !dst->kernel || !dst->device || !dst->driver_version || !dst->signature || !dst->config ||
        !dst->cubin || !dst->strategy || !dst->tuned || (src->guard_times && !dst->guard_times)) {
        gt_centry_clear(dst);
        return -1;
    }
    return 0;
}

void gt_cache_clear(struct gt_cachefile *c)
{
    for (size_t i = 0; i < c->n; i++)
        gt_centry_clear(&c->v[i]);
    free(c->v);
    free(c->binary);
    *c = (struct gt_cachefile){0};
}

/* Whether entry e was made under this driver: the same CUDA version, and
 * the same driver version where both are known. */
int gt_cache_same_driver(const struct gt_centry *e, int driver, const char *driver_version)
{
    const char *v = e->driver_version ? e->driver_version : "";
    return e->driver == driver && (!*v || !driver_version || !*driver_version || !strcmp(v, driver_version));
}

static int same_key(const struct gt_centry *a, const struct gt_centry *b)
{
    return a->image == b->image && a->arch == b->arch && gt_cache_same_driver(a, b->driver, b->driver_version) &&
           !strcmp(a->kernel, b->kernel) && !strcmp(a->device, b->device) && !strcmp(a->signature, b->signature);
}

static int same_driver_version(const struct gt_centry *a, const struct gt_centry *b)
{
    return !strcmp(a->driver_version ? a->driver_version : "", b->driver_version ? b->driver_version : "");
}

/* The entry of key's kernel, image, device, architecture, driver and
 * signature: one of the very driver version first, else one matched by the
 * CUDA version alone. */
const struct gt_centry *gt_cache_find(const struct gt_cachefile *c, const struct gt_centry *key)
{
    const struct gt_centry *loose = NULL;
    for (size_t i = 0; i < c->n; i++) {
        if (!same_key(&c->v[i], key))
            continue;
        if (same_driver_version(&c->v[i], key))
            return &c->v[i];
        if (!loose)
            loose = &c->v[i];
    }
    return loose;
}

/* How far apart two signatures are: the grids by ratio, the blocks (which
 * shape the code more) by a larger weight; -1 if they do not parse. */
static double distance(const char *a, const char *b)
{
    unsigned g[2][3], k[2][3], s[2];
    const char *t[2] = {a, b};
    for (int i = 0; i < 2; i++)
        if (sscanf(t[i], "grid=%u,%u,%u block=%u,%u,%u smem=%u", &g[i][0], &g[i][1], &g[i][2], &k[i][0], &k[i][1],
                   &k[i][2], &s[i]) != 7)
            return -1;
    double d = 0;
    for (int j = 0; j < 3; j++) {
        d += fabs(log2((g[0][j] + 1.0) / (g[1][j] + 1.0)));
        d += 4 * fabs(log2((k[0][j] + 1.0) / (k[1][j] + 1.0)));
    }
    return d + fabs(log2((s[0] + 1.0) / (s[1] + 1.0)));
}

/* The entry of the same kernel, image and device (any device when
 * key->device is NULL) whose signature is closest. */
const struct gt_centry *gt_cache_nearest(const struct gt_cachefile *c, const struct gt_centry *key)
{
    const struct gt_centry *best = NULL;
    double bestd = 0;
    for (size_t i = 0; i < c->n; i++) {
        const struct gt_centry *e = &c->v[i];
        if (e->image != key->image || e->arch != key->arch || strcmp(e->kernel, key->kernel) ||
            (key->device && strcmp(e->device, key->device)))
            continue;
        double d = distance(e->signature, key->signature);
        if (d >= 0 && (!best || d < bestd)) {
            best = e;
            bestd = d;
        }
    }
    return best;
}

/* ---- reading ---- */

/* Says why in err and returns st. */
static enum gt_cache_status status(enum gt_cache_status st, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static enum gt_cache_status status(enum gt_cache_status st, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gt_verrf(err, errlen, fmt, ap);
    va_end(ap);
    return st;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        *--e = '\0';
    return s;
}

/* Undoes write_escaped, in place. */
static void unescape(char *s)
{
    char *out = s;
    for (; *s; s++) {
        if (*s == '\\' && (s[1] == '\\' || s[1] == 'n' || s[1] == 'r')) {
            s++;
            *out++ = *s == 'n' ? '\n' : *s == 'r' ? '\r' : '\\';
        } else {
            *out++ = *s;
        }
    }
    *out = '\0';
}

/* `kept 1.083` or `dropped 0.970`: the verdict and the speed-up it saw. */
static int parse_guard(struct gt_centry *e, const char *val)
{
    static const char *const words[] = {[GT_CENTRY_KEPT] = "kept", [GT_CENTRY_DROPPED] = "dropped"};
    for (int i = GT_CENTRY_KEPT; i <= GT_CENTRY_DROPPED; i++) {
        size_t n = strlen(words[i]);
        char *end = NULL;
        if (strncmp(val, words[i], n) != 0 || val[n] != ' ')
            continue;
        e->guard = i;
        e->guard_speedup = strtod(val + n + 1, &end);
        return end && end != val + n + 1 && !*end && e->guard_speedup > 0 ? 0 : -1;
    }
    return -1;
}

/* `12.500 12.700 / 11.900`: positive times, at most GT_CENTRY_GUARD_TIMES
 * on each side of the one slash. */
static int valid_times(const char *s)
{
    int side = 0, n = 0;
    while (*s) {
        char *end = NULL;
        double v = *s == ' ' || *s == '/' ? 0 : strtod(s, &end);
        if (*s == ' ') {
            s++;
        } else if (*s == '/') {
            if (side++)
                return 0;
            n = 0;
            s++;
        } else if (end != s && (*end == ' ' || !*end) && isfinite(v) && v > 0 && ++n <= GT_CENTRY_GUARD_TIMES) {
            s = end;
        } else {
            return 0;
        }
    }
    return side == 1;
}

/* Sets the field `key` of e from its value as text (as the file holds it,
 * escapes undone): each is checked as the reader checks it. */
enum gt_centry_field gt_centry_set(struct gt_centry *e, const char *key, const char *val)
{
    char *end = NULL;
    char **str = !strcmp(key, "kernel") ? &e->kernel : !strcmp(key, "device") ? &e->device
               : !strcmp(key, "driver_version") ? &e->driver_version
               : !strcmp(key, "signature") ? &e->signature : !strcmp(key, "config") ? &e->config
               : !strcmp(key, "cubin") ? &e->cubin : !strcmp(key, "strategy") ? &e->strategy
               : !strcmp(key, "tuned") ? &e->tuned : !strcmp(key, "guard_times") ? &e->guard_times
               : !strcmp(key, "image_file") ? &e->image_file : NULL;
    if (str == &e->guard_times && !valid_times(val))
        return GT_FIELD_BAD;
    if (str) {
        free(*str);
        return (*str = gt_strdup(val)) ? GT_FIELD_SET : GT_FIELD_NOMEM;
    }
    if (!strcmp(key, "image"))
        e->image = strtoull(val, &end, 16);
    else if (!strcmp(key, "arch"))
        e->arch = (int)strtol(val + (strncmp(val, "sm_", 3) ? 0 : 3), &end, 10);
    else if (!strcmp(key, "driver"))
        e->driver = (int)strtol(val, &end, 10);
    else if (!strcmp(key, "time_us"))
        e->time_us = strtod(val, &end);
    else if (!strcmp(key, "baseline_us"))
        e->baseline_us = strtod(val, &end);
    else if (!strcmp(key, "trials"))
        e->trials = strtol(val, &end, 10);
    else if (!strcmp(key, "space"))
        e->space = strtoull(val, &end, 10);
    else if (!strcmp(key, "guard"))
        return parse_guard(e, val) == 0 ? GT_FIELD_SET : GT_FIELD_BAD;
    else
        return GT_FIELD_UNKNOWN;
    return end && end != val && !*end ? GT_FIELD_SET : GT_FIELD_BAD;
}

static int complete(const struct gt_centry *e)
{
    return e->kernel && e->device && e->signature && e->config && e->image && e->arch;
}

static int add_entry(struct gt_cachefile *c, const struct gt_centry *e)
{
    if (gt_grow((void **)&c->v, &c->cap, c->n + 1, sizeof *c->v) != 0 || gt_centry_copy(&c->v[c->n], e) != 0)
        return -1;
    c->n++;
    return 0;
}

/* The state of reading one file: the entry being read, and the problems
 * seen (the first is said in err, the others counted). */
struct parser {
    struct gt_cachefile *c;
    const char *path;
    char *err;
    size_t errlen;
    int format, problems, nomem;
    struct gt_centry e;
    int in_entry, entry_line;
    char name[40];          /* the entry's section name, as the file has it */
    char why[96];           /* why it is dropped; "" while it is sound */
};

static void problem(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(struct parser *p, const char *fmt, ...)
{
    if (p->problems++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        gt_verrf(p->err, p->errlen, fmt, ap);
        va_end(ap);
    }
}

/* The entry read so far goes in, or is dropped and named. */
static void end_entry(struct parser *p)
{
    if (p->in_entry && !p->why[0] && !complete(&p->e))
        snprintf(p->why, sizeof p->why, "it is incomplete");
    if (p->in_entry && p->why[0])
        problem(p, "%s: entry '%s' (line %d) dropped: %s", p->path, p->name, p->entry_line, p->why);
    else if (p->in_entry && add_entry(p->c, &p->e) != 0)
        p->nomem = 1;
    gt_centry_clear(&p->e);
    p->in_entry = 0;
}

static void begin_section(struct parser *p, const char *s, int line)
{
    end_entry(p);
    p->in_entry = strncmp(s, "[entry", 6) == 0;
    p->entry_line = line;
    p->why[0] = '\0';
    snprintf(p->name, sizeof p->name, "%.*s", (int)strcspn(s + 1, "]"), s + 1);
}

static void header_binary(struct parser *p, char *val)
{
    free(p->c->binary);
    unescape(val);
    p->nomem |= !(p->c->binary = gt_strdup(val));
}

static void key_value(struct parser *p, char *s, int line)
{
    char *eq = strchr(s, '=');
    if (!eq) {
        if (!p->in_entry)
            problem(p, "%s: line %d is not key = value", p->path, line);
        else if (!p->why[0])
            snprintf(p->why, sizeof p->why, "line %d is not key = value", line);
        return;
    }
    *eq = '\0';
    char *key = trim(s), *val = trim(eq + 1);
    if (!p->in_entry) {
        if (!strcmp(key, "format"))
            p->format = atoi(val);
        else if (!strcmp(key, "binary"))
            header_binary(p, val);
        return;
    }
    if (p->why[0])
        return;
    unescape(val);
    enum gt_centry_field f = gt_centry_set(&p->e, key, val);
    if (f == GT_FIELD_NOMEM)
        p->nomem = 1;
    else if (f == GT_FIELD_BAD || (f == GT_FIELD_UNKNOWN && p->format <= GPUTUNE_CACHE_FORMAT))
        snprintf(p->why, sizeof p->why, "line %d: bad %.40s", line, key);
}

/* Parses the text of a cache file (changed in place) into c, its messages
 * naming it `name`: OK, DAMAGED or NEWER with what could be read, or
 * FAILED (out of memory) with c empty. */
enum gt_cache_status gt_cache_parse(struct gt_cachefile *c, char *text, const char *name, char *err, size_t errlen)
{
    *c = (struct gt_cachefile){0};
    if (errlen)
        err[0] = '\0';
    struct parser p = {.c = c, .path = name, .err = err, .errlen = errlen};
    int line = 0;
    for (char *ln = text, *next; ln && !p.nomem; ln = next) {
        next = strchr(ln, '\n');
        if (next)
            *next++ = '\0';
        line++;
        char *s = trim(ln);
        if (*s == '[')
            begin_section(&p, s, line);
        else if (*s && *s != ';' && *s != '#')
            key_value(&p, s, line);
    }
    end_entry(&p);
    if (p.nomem) {
        gt_cache_clear(c);
        return status(GT_CACHE_FAILED, err, errlen, "out of memory reading %s", name);
    }
    if (p.format > GPUTUNE_CACHE_FORMAT)
        return status(GT_CACHE_NEWER, err, errlen, "%s has format %d, newer than this libgputune's %d: read as far "
                      "as understood, never written", name, p.format, GPUTUNE_CACHE_FORMAT);
    if (p.format < GT_CACHE_FIRST_FORMAT)
        problem(&p, "%s has format %d, this libgputune reads formats %d to %d", name, p.format,
                GT_CACHE_FIRST_FORMAT, GPUTUNE_CACHE_FORMAT);
    if (p.problems > 1) {
        size_t n = strlen(err);
        snprintf(err + n, errlen - n, " (and %d more problems)", p.problems - 1);
    }
    return p.problems ? GT_CACHE_DAMAGED : GT_CACHE_OK;
}

/* The whole file; NULL with errno when it cannot be read now. */
static char *read_all(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return NULL;
    if (st.st_size > (1 << 30)) {
        errno = EFBIG;
        return NULL;
    }
    size_t got;
    return gt_read_fd(fd, (size_t)st.st_size, &got);
}

static enum gt_cache_status open_status(int r)
{
    return r == GT_CACHEDIR_FAILED ? GT_CACHE_FAILED : GT_CACHE_REFUSED;
}

/* The directory of `path` is the user's alone, and the names written
 * beside it (FILE.lock, FILE.XXXXXX, FILE.bad) fit their buffers: OK or
 * REFUSED with err. */
static enum gt_cache_status check_dir(const char *path, char *err, size_t errlen)
{
    char dir[PATH_MAX];
    if (strlen(path) >= PATH_MAX)
        return status(GT_CACHE_REFUSED, err, errlen, "cache file path too long (%zu bytes): %.64s...", strlen(path),
                      path);
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
    return gt_dir_check_private(dir, err, errlen) == 0 ? GT_CACHE_OK : GT_CACHE_REFUSED;
}

/* Loads `path` into c: OK (a missing file is an empty cache), DAMAGED or
 * NEWER with what could be read, or REFUSED or FAILED with c empty. */
enum gt_cache_status gt_cache_load(struct gt_cachefile *c, const char *path, char *err, size_t errlen)
{
    *c = (struct gt_cachefile){0};
    if (errlen)
        err[0] = '\0';
    int fd = gt_cachedir_open(path, O_RDONLY, err, errlen);
    if (fd == GT_CACHEDIR_MISSING)
        return GT_CACHE_OK;
    if (fd < 0)
        return open_status(fd);
    enum gt_cache_status st = check_dir(path, err, errlen);
    char *text = st == GT_CACHE_OK ? read_all(fd) : NULL;
    int e = errno;
    close(fd);
    if (st != GT_CACHE_OK)
        return st;
    if (!text)
        return status(e == EFBIG ? GT_CACHE_REFUSED : GT_CACHE_FAILED, err, errlen, "cannot read %s: %s", path,
                      strerror(e));
    st = gt_cache_parse(c, text, path, err, errlen);
    free(text);
    return st;
}

/* ---- writing ---- */

/* A value on one line: backslashes, newlines and carriage returns escaped. */
static void write_escaped(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '\\' || *s == '\n' || *s == '\r')
            fputc('\\', f);
        fputc(*s == '\n' ? 'n' : *s == '\r' ? 'r' : *s, f);
    }
}

static void write_field(FILE *f, const char *key, const char *val)
{
    fprintf(f, "%s = ", key);
    write_escaped(f, val);
    fputc('\n', f);
}

static void write_entry(FILE *f, const struct gt_centry *e)
{
    fprintf(f, "\n[entry %016llx]\n", (unsigned long long)(gt_hash64(e->kernel, strlen(e->kernel)) ^ e->image ^
                                                           gt_hash64(e->signature, strlen(e->signature))));
    write_field(f, "kernel", e->kernel);
    fprintf(f, "image = %016llx\n", (unsigned long long)e->image);
    write_field(f, "image_file", e->image_file);
    write_field(f, "device", e->device);
    fprintf(f, "arch = sm_%d\ndriver = %d\n", e->arch, e->driver);
    if (e->driver_version && *e->driver_version)
        write_field(f, "driver_version", e->driver_version);
    write_field(f, "signature", e->signature);
    write_field(f, "config", e->config);
    write_field(f, "cubin", e->cubin);
    fprintf(f, "time_us = %.3f\nbaseline_us = %.3f\ntrials = %ld\nspace = %llu\n", e->time_us, e->baseline_us,
            e->trials, (unsigned long long)e->space);
    write_field(f, "strategy", e->strategy);
    write_field(f, "tuned", e->tuned);
    if (e->guard != GT_CENTRY_UNCHECKED)
        fprintf(f, "guard = %s %.3f\n", e->guard == GT_CENTRY_KEPT ? "kept" : "dropped", e->guard_speedup);
    else if (e->guard_times)
        write_field(f, "guard_times", e->guard_times);
}

/* A damaged file stays readable under FILE.bad; the new one replaces it. */
static void keep_aside(const char *path)
{
    char aside[PATH_MAX + 128];
    snprintf(aside, sizeof aside, "%s.bad", path);
    unlink(aside);
    if (link(path, aside) != 0)
        rename(path, aside);
}

/* The text of a cache file holding c, for the program `binary`: 0, or -1
 * when f has an error. */
int gt_cache_write(FILE *f, const char *binary, const struct gt_cachefile *c)
{
    fputs("; libgputune: tuned kernel configurations for ", f);
    write_escaped(f, binary);
    fprintf(f, "\n; run mode applies them; delete an entry to tune it again\n[gputune]\nformat = %d\n",
            GPUTUNE_CACHE_FORMAT);
    write_field(f, "binary", binary);
    for (size_t i = 0; i < c->n; i++)
        write_entry(f, &c->v[i]);
    return ferror(f) ? -1 : 0;
}

static enum gt_cache_status write_file(const char *path, const char *binary, const struct gt_cachefile *c,
                                       int damaged, char *err, size_t errlen)
{
    char tmp[PATH_MAX + 128];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        return status(GT_CACHE_FAILED, err, errlen, "cannot write next to %s: %s", path, strerror(e));
    }
    errno = 0;
    int bad = gt_cache_write(f, binary, c) != 0 ? (errno ? errno : EIO) : 0;
    if (fclose(f) != 0 && !bad)
        bad = errno;
    if (!bad && damaged)
        keep_aside(path);
    if (!bad && rename(tmp, path) != 0)
        bad = errno;
    if (bad) {
        unlink(tmp);
        return status(GT_CACHE_FAILED, err, errlen, "cannot write %s: %s", path, strerror(bad));
    }
    return GT_CACHE_OK;
}

/* FILE.lock, opened and locked within wait_ms: its descriptor, or -1 with
 * *st and err. */
static int take_lock(const char *path, int wait_ms, enum gt_cache_status *st, char *err, size_t errlen)
{
    char lockpath[PATH_MAX + 128];
    snprintf(lockpath, sizeof lockpath, "%s.lock", path);
    int fd = gt_cachedir_open(lockpath, O_RDWR | O_CREAT, err, errlen);
    if (fd < 0) {
        *st = open_status(fd);
        return -1;
    }
    const struct timespec pause = {0, 20 * 1000 * 1000};
    for (int waited = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; waited += 20) {
        if ((errno != EWOULDBLOCK && errno != EINTR) || waited >= wait_ms) {
            int e = errno;
            close(fd);
            *st = e == EWOULDBLOCK ? status(GT_CACHE_FAILED, err, errlen, "another process has held %s for over "
                                            "%.1f s", lockpath, wait_ms / 1e3)
                                   : status(GT_CACHE_FAILED, err, errlen, "cannot lock %s: %s", lockpath, strerror(e));
            return -1;
        }
        nanosleep(&pause, NULL);
    }
    return fd;
}

/* Adds (or replaces) n entries in c; -1 when out of memory. */
int gt_cache_put(struct gt_cachefile *c, const struct gt_centry *add, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct gt_centry *old = (struct gt_centry *)gt_cache_find(c, &add[i]);
        if (!old && add_entry(c, &add[i]) != 0)
            return -1;
        if (old) {
            gt_centry_clear(old);
            if (gt_centry_copy(old, &add[i]) != 0)
                return -1;
        }
    }
    return 0;
}

/* Makes `edit` on the file at `path`, under its lock, waiting at most
 * wait_ms for it, and writes the result for the program `binary` (NULL:
 * the one the file names): OK when written or left unchanged (err then
 * names the damaged entries the file had and kept aside, or is empty);
 * FAILED when it may work later; REFUSED or NEWER when the file must not
 * be written. */
enum gt_cache_status gt_cache_update(const char *path, const char *binary, gt_cache_edit *edit, void *ctx,
                                     int wait_ms, char *err, size_t errlen)
{
    enum gt_cache_status st = check_dir(path, err, errlen);
    int lock = st == GT_CACHE_OK ? take_lock(path, wait_ms, &st, err, errlen) : -1;
    if (lock < 0)
        return st;
    struct gt_cachefile c;
    st = gt_cache_load(&c, path, err, errlen);
    if (st == GT_CACHE_NEWER)
        snprintf(err, errlen, "%s has a newer format than this libgputune's %d; not written", path,
                 GPUTUNE_CACHE_FORMAT);
    int r = st == GT_CACHE_OK || st == GT_CACHE_DAMAGED ? edit(&c, ctx) : 1;
    if (r < 0)
        st = status(GT_CACHE_FAILED, err, errlen, "out of memory writing %s", path);
    else if (r == 0)
        st = write_file(path, binary ? binary : c.binary ? c.binary : "", &c, st == GT_CACHE_DAMAGED, err, errlen);
    else if (st == GT_CACHE_DAMAGED)
        st = GT_CACHE_OK;
    gt_cache_clear(&c);
    flock(lock, LOCK_UN);
    close(lock);
    return st;
}

struct added {
    const struct gt_centry *v;
    size_t n;
};

static int put_added(struct gt_cachefile *c, void *ctx)
{
    const struct added *a = ctx;
    return gt_cache_put(c, a->v, a->n);
}

/* Adds (or replaces) n entries in the file at `path`, as gt_cache_update. */
enum gt_cache_status gt_cache_save(const char *path, const char *binary, const struct gt_centry *add, size_t n,
                                   int wait_ms, char *err, size_t errlen)
{
    struct added a = {add, n};
    return gt_cache_update(path, binary, put_added, &a, wait_ms, err, errlen);
}

/* Which of two entries of one key a merge keeps: 1 for a, 0 for b.  One
 * the guard dropped on the application's own launches gives way to one it
 * did not drop; then the faster (time_us; a difference under 1%, the
 * noise of a measurement, counts as none) wins, then the one of more
 * trials, then the one tuned later; else a. */
int gt_cache_better(const struct gt_centry *a, const struct gt_centry *b)
{
    int dropped_a = a->guard == GT_CENTRY_DROPPED, dropped_b = b->guard == GT_CENTRY_DROPPED;
    if (dropped_a != dropped_b)
        return dropped_b;
    double ta = a->time_us > 0 ? a->time_us : INFINITY, tb = b->time_us > 0 ? b->time_us : INFINITY;
    if (ta < tb * 0.99 || tb < ta * 0.99)
        return ta < tb;
    if (a->trials != b->trials)
        return a->trials > b->trials;
    return strcmp(a->tuned ? a->tuned : "", b->tuned ? b->tuned : "") >= 0;
}
