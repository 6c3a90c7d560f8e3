/* cachefile.c: the per-binary file of tuned configurations.
 *
 * One human-readable INI file per application binary, named after it and a
 * hash of its full path, holds an entry per (image, kernel, device,
 * architecture, driver, launch signature): the winning configuration, its
 * time and the original's, how many trials in what space with which
 * strategy, and the store key of its compiled cubin so that run mode never
 * compiles.  Kernel names run to thousands of characters, so the file is
 * read by a small reader of its own, without a line limit.
 *
 * Writers serialize on a lock file (flock), read the file again under the
 * lock, merge their entries in, write a temporary file and rename it: no
 * entry of a concurrent process is lost and a reader never sees half a
 * file.  A file that does not parse, or has another format version, is
 * reported and ignored; the next write keeps it aside as FILE.bad.  A file
 * another user could write is refused. */
#include "cachefile.h"
#include "errmsg.h"
#include "hash.h"
#include "store.h"

#include "gputune.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* root/NAME-HASH.ini for the binary at `binary`. */
int gt_cache_file(const char *root, const char *binary, char *out, size_t cap)
{
    const char *base = strrchr(binary, '/');
    base = base ? base + 1 : binary;
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
    free(e->kernel);
    free(e->device);
    free(e->signature);
    free(e->config);
    free(e->cubin);
    free(e->strategy);
    free(e->tuned);
    memset(e, 0, sizeof *e);
}

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

int gt_centry_copy(struct gt_centry *dst, const struct gt_centry *src)
{
    *dst = *src;
    dst->kernel = dup_or_empty(src->kernel);
    dst->device = dup_or_empty(src->device);
    dst->signature = dup_or_empty(src->signature);
    dst->config = dup_or_empty(src->config);
    dst->cubin = dup_or_empty(src->cubin);
    dst->strategy = dup_or_empty(src->strategy);
    dst->tuned = dup_or_empty(src->tuned);
    if (!dst->kernel || !dst->device || !dst->signature || !dst->config || !dst->cubin || !dst->strategy ||
        !dst->tuned) {
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
    c->v = NULL;
    c->n = 0;
}

static int same_key(const struct gt_centry *a, const struct gt_centry *b)
{
    return a->image == b->image && a->arch == b->arch && a->driver == b->driver && !strcmp(a->kernel, b->kernel) &&
           !strcmp(a->device, b->device) && !strcmp(a->signature, b->signature);
}

const struct gt_centry *gt_cache_find(const struct gt_cachefile *c, const struct gt_centry *key)
{
    for (size_t i = 0; i < c->n; i++)
        if (same_key(&c->v[i], key))
            return &c->v[i];
    return NULL;
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

/* The entry of the same kernel, image and device whose signature is closest. */
const struct gt_centry *gt_cache_nearest(const struct gt_cachefile *c, const struct gt_centry *key)
{
    const struct gt_centry *best = NULL;
    double bestd = 0;
    for (size_t i = 0; i < c->n; i++) {
        const struct gt_centry *e = &c->v[i];
        if (e->image != key->image || e->arch != key->arch || strcmp(e->kernel, key->kernel) ||
            strcmp(e->device, key->device))
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

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        *--e = '\0';
    return s;
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

/* Sets one field of e; 0, or -1 for an unknown key or a bad number. */
static int set_field(struct gt_centry *e, const char *key, const char *val)
{
    char *end = NULL;
    char **str = !strcmp(key, "kernel") ? &e->kernel : !strcmp(key, "device") ? &e->device
               : !strcmp(key, "signature") ? &e->signature : !strcmp(key, "config") ? &e->config
               : !strcmp(key, "cubin") ? &e->cubin : !strcmp(key, "strategy") ? &e->strategy
               : !strcmp(key, "tuned") ? &e->tuned : NULL;
    if (str) {
        free(*str);
        return (*str = strdup(val)) ? 0 : -1;
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
        return parse_guard(e, val);
    else
        return -1;
    return end && end != val && !*end ? 0 : -1;
}

static int complete(const struct gt_centry *e)
{
    return e->kernel && e->device && e->signature && e->config && e->image && e->arch;
}

static int add_entry(struct gt_cachefile *c, struct gt_centry *e)
{
    struct gt_centry *v = realloc(c->v, (c->n + 1) * sizeof *v);
    if (!v)
        return -1;
    c->v = v;
    if (gt_centry_copy(&c->v[c->n], e) != 0)
        return -1;
    c->n++;
    return 0;
}

/* Parses the text of a cache file into c; -1 with err on the first problem. */
static int parse(struct gt_cachefile *c, char *text, const char *path, char *err, size_t errlen)
{
    struct gt_centry e = {0};
    int in_entry = 0, format = 0, line = 0, rc = 0;
    for (char *ln = text, *next; ln && rc == 0; ln = next) {
        next = strchr(ln, '\n');
        if (next)
            *next++ = '\0';
        line++;
        char *s = trim(ln);
        if (!*s || *s == ';' || *s == '#')
            continue;
        if (*s == '[') {
            if (in_entry && (!complete(&e) || add_entry(c, &e) != 0))
                rc = gt_errf(err, errlen, "%s: entry before line %d is incomplete", path, line);
            gt_centry_clear(&e);
            in_entry = strncmp(s, "[entry", 6) == 0;
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            rc = gt_errf(err, errlen, "%s: line %d is not key = value", path, line);
            break;
        }
        *eq = '\0';
        char *key = trim(s), *val = trim(eq + 1);
        if (!in_entry && !strcmp(key, "format"))
            format = atoi(val);
        else if (in_entry && set_field(&e, key, val) != 0)
            rc = gt_errf(err, errlen, "%s: line %d: bad %s", path, line, key);
    }
    if (rc == 0 && in_entry && (!complete(&e) || add_entry(c, &e) != 0))
        rc = gt_errf(err, errlen, "%s: its last entry is incomplete", path);
    gt_centry_clear(&e);
    if (rc == 0 && format != GPUTUNE_CACHE_FORMAT)
        rc = gt_errf(err, errlen, "%s has format %d, this libgputune reads format %d", path, format,
                  GPUTUNE_CACHE_FORMAT);
    return rc;
}

/* Refuses a file another user could write or owns. */
static int check_private(int fd, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return gt_errf(err, errlen, "cannot stat %s: %s", path, strerror(errno));
    if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
        return gt_errf(err, errlen, "cache file %s is writable by other users; not using it", path);
    return 0;
}

static char *read_all(int fd, size_t *size)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 0 || st.st_size > (1 << 30))
        return NULL;
    char *buf = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (buf)
        buf[got] = '\0';
    *size = got;
    return buf;
}

/* Loads `path` into c.  A missing file is an empty cache (0); a file that is
 * unsafe, unreadable, corrupt or of another version leaves c empty and
 * returns -1 with err. */
int gt_cache_load(struct gt_cachefile *c, const char *path, char *err, size_t errlen)
{
    c->v = NULL;
    c->n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : gt_errf(err, errlen, "cannot read %s: %s", path, strerror(errno));
    size_t size;
    char *text = check_private(fd, path, err, errlen) == 0 ? read_all(fd, &size) : NULL;
    close(fd);
    if (!text)
        return err[0] ? -1 : gt_errf(err, errlen, "cannot read %s", path);
    int rc = parse(c, text, path, err, errlen);
    free(text);
    if (rc != 0)
        gt_cache_clear(c);
    return rc;
}

/* ---- writing ---- */

static void write_entry(FILE *f, const struct gt_centry *e)
{
    char id[32];
    snprintf(id, sizeof id, "%016llx", (unsigned long long)(gt_hash64(e->kernel, strlen(e->kernel)) ^ e->image ^
                                                             gt_hash64(e->signature, strlen(e->signature))));
    fprintf(f, "\n[entry %s]\nkernel = %s\nimage = %016llx\ndevice = %s\narch = sm_%d\ndriver = %d\n"
               "signature = %s\nconfig = %s\ncubin = %s\ntime_us = %.3f\nbaseline_us = %.3f\n"
               "trials = %ld\nspace = %llu\nstrategy = %s\ntuned = %s\n",
            id, e->kernel, (unsigned long long)e->image, e->device, e->arch, e->driver, e->signature, e->config,
            e->cubin ? e->cubin : "", e->time_us, e->baseline_us, e->trials, (unsigned long long)e->space,
            e->strategy ? e->strategy : "", e->tuned ? e->tuned : "");
    if (e->guard != GT_CENTRY_UNCHECKED)
        fprintf(f, "guard = %s %.3f\n", e->guard == GT_CENTRY_KEPT ? "kept" : "dropped", e->guard_speedup);
}

static int write_file(const char *path, const char *binary, const struct gt_cachefile *c, char *err, size_t errlen)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return gt_errf(err, errlen, "cannot write next to %s: %s", path, strerror(errno));
    }
    fprintf(f, "; libgputune: tuned kernel configurations for %s\n; run mode applies them; delete an entry to tune it "
               "again\n[gputune]\nformat = %d\nbinary = %s\n",
            binary, GPUTUNE_CACHE_FORMAT, binary);
    for (size_t i = 0; i < c->n; i++)
        write_entry(f, &c->v[i]);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return gt_errf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    }
    return 0;
}

/* Adds (or replaces) n entries in the file at `path`, under its lock. */
int gt_cache_save(const char *path, const char *binary, const struct gt_centry *add, size_t n, char *err,
                  size_t errlen)
{
    char lockpath[4200];
    snprintf(lockpath, sizeof lockpath, "%s.lock", path);
    int lock = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock < 0)
        return gt_errf(err, errlen, "cannot lock %s: %s", path, strerror(errno));
    if (flock(lock, LOCK_EX) != 0) {
        close(lock);
        return gt_errf(err, errlen, "cannot lock %s: %s", path, strerror(errno));
    }
    struct gt_cachefile c;
    char why[512] = "";
    if (gt_cache_load(&c, path, why, sizeof why) != 0) {
        char aside[4200];
        snprintf(aside, sizeof aside, "%s.bad", path);
        if (!strstr(why, "writable by other users"))
            rename(path, aside); /* keep what could not be read, start afresh */
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct gt_centry *old = (struct gt_centry *)gt_cache_find(&c, &add[i]);
        if (old) {
            gt_centry_clear(old);
            rc = gt_centry_copy(old, &add[i]);
        } else {
            rc = add_entry(&c, (struct gt_centry *)&add[i]);
        }
    }
    if (rc != 0)
        gt_errf(err, errlen, "out of memory writing %s", path);
    else if (strstr(why, "writable by other users"))
        rc = gt_errf(err, errlen, "%s", why);
    else
        rc = write_file(path, binary, &c, err, errlen);
    gt_cache_clear(&c);
    flock(lock, LOCK_UN);
    close(lock);
    return rc;
}
