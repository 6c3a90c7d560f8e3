/* cachecmd.c: `gputune cache`: what tune mode kept for a program, listed,
 * exported, imported and merged (pruning is in cacheprune.c).
 *
 * Results move between machines and tools: `export` writes a program's
 * cache file as it is, or as a T4 document (t4.c), and a GPUTUNE_TRIALS
 * landscape as T4; `import` and `merge` read either form back.  A cache
 * file the shim uses is only ever changed the way the shim changes it
 * (cachefile.c: gt_cache_update): under its lock, read again there, written
 * to a temporary file renamed into place, so that a running application
 * loses nothing and no error leaves half a file.  Any other output (-o) is
 * written to a temporary file too and renamed only once whole.
 *
 * Exit status: 0 done, 1 failed (a file missing or malformed, an output
 * not written), 2 a usage error. */
#include "cachecmd.h"
#include "alloc.h"
#include "arena.h"
#include "cachefile.h"
#include "env.h"
#include "errmsg.h"
#include "readfd.h"
#include "store.h"
#include "t4.h"

#include "gputune.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "usage: gputune cache [list] (PROGRAM [ARGS...] | --file F)\n"
    "       gputune cache export [--format ini|t4] [-o OUT] (PROGRAM [ARGS...] | --file F)\n"
    "       gputune cache export --trials TRIALS.csv [--format t4] [-o OUT]\n"
    "       gputune cache import [--replace] FILE [--file F | --into PROGRAM [ARGS...]]\n"
    "       gputune cache merge [-o OUT | --file F | --into PROGRAM [ARGS...]] FILE...\n"
    "       gputune cache prune [--dry-run] [--older-than YYYY-MM-DD] [--missing-images]\n"
    "                           [--driver VERSION|current]... [--device NAME|current]...\n"
    "                           [PROGRAM [ARGS...] | --file F]\n"
    "  list    what tune mode kept for PROGRAM (for an interpreter, name the script too:\n"
    "          gputune cache python3 train.py)\n"
    "  export  the cache file as it is (ini) or as a T4 document; --trials: a GPUTUNE_TRIALS\n"
    "          file as a T4 landscape\n"
    "  import  adds an exported file's entries (ini or T4) to a cache file; an entry it\n"
    "          holds already is kept unless --replace\n"
    "  merge   the union of files; of two entries for one kernel, signature, device and\n"
    "          driver, the faster (see README)\n"
    "  prune   removes entries tuned before a date, for images no longer on disk, for other\n"
    "          drivers or devices; --dry-run only says which\n"
    "Options come before PROGRAM: what follows it is its arguments.  The file is the one the\n"
    "program uses (in GPUTUNE_CACHE_DIR, or GPUTUNE_CACHE_FILE); without PROGRAM or --file,\n"
    "GPUTUNE_CACHE_FILE.  -o - writes to the standard output.\n";

/* "gputune cache CMD: MESSAGE" and `tail` on stderr. */
static void say(const char *cmd, const char *tail, const char *fmt, va_list ap)
{
    fprintf(stderr, "gputune cache%s%s: ", *cmd ? " " : "", cmd);
    vfprintf(stderr, fmt, ap);
    fputs(tail, stderr);
}

int gt_cachecmd_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(cmd, " (gputune cache --help says how)\n", fmt, ap);
    va_end(ap);
    return 2;
}

int gt_cachecmd_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(cmd, "\n", fmt, ap);
    va_end(ap);
    return 1;
}

/* argv[*i] if it is the option `name`: 1 with its value in *value (and *i
 * past it), -1 when its value is missing; 0 when it is another word. */
int gt_cachecmd_option(int argc, char **argv, int *i, const char *name, const char **value)
{
    if (strcmp(argv[*i], name) != 0)
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *value = argv[++*i];
    return 1;
}

/* The file a command name runs, as the shell finds it: a name without a
 * slash is searched in PATH.  The result is resolved as /proc/self/exe
 * would show it, so that it keys the same cache file as the program's own
 * run.  Returns 0, or -1 with errno set. */
static int find_program(const char *name, char out[PATH_MAX])
{
    const char *dirs = getenv("PATH");
    if (strchr(name, '/') || !dirs)
        return realpath(name, out) ? 0 : -1;
    for (const char *d = dirs;; d++) {
        size_t n = strcspn(d, ":");
        char cand[PATH_MAX];
        int w = snprintf(cand, sizeof cand, "%.*s%s%s", (int)n, n ? d : ".", "/", name);
        if (w > 0 && (size_t)w < sizeof cand && access(cand, X_OK) == 0 && realpath(cand, out))
            return 0;
        d += n;
        if (!*d)
            break;
    }
    errno = ENOENT;
    return -1;
}

/* The cache file of PROGRAM [ARGS...] (argv[0, argc)), or the one named by
 * `file`, or GPUTUNE_CACHE_FILE's: 0, or an exit status (said). */
int gt_cachecmd_target(const char *cmd, int argc, char **argv, const char *file, struct gt_cache_target *t)
{
    char exe[PATH_MAX], root[PATH_MAX];
    struct gt_env env;
    gt_env_parse(&env, environ);
    t->binary[0] = '\0';
    if (file && argc)
        return gt_cachecmd_usage(cmd, "name a program or --file, not both");
    if (!file && !argc && !env.cache_file)
        return gt_cachecmd_usage(cmd, "name a program or --file F (or set GPUTUNE_CACHE_FILE)");
    if (argc && find_program(argv[0], exe) != 0) /* a program that does not run: the command line is wrong */
        return 1 + gt_cachecmd_fail(cmd, "%s: %s", argv[0], strerror(errno));
    if (argc && gt_cache_program(exe, argv, argc, t->binary, sizeof t->binary) != 0)
        return gt_cachecmd_fail(cmd, "the command line is too long");
    const char *named = file ? file : env.cache_file;
    if (named && (size_t)snprintf(t->path, sizeof t->path, "%s", named) >= sizeof t->path)
        return gt_cachecmd_fail(cmd, "the path %.40s... is too long", named);
    if (!named && (gt_store_default_root(env.cache_dir, root, sizeof root) != 0 ||
                   gt_cache_file(root, t->binary, t->path, sizeof t->path) != 0))
        return gt_cachecmd_fail(cmd, "no cache directory (set GPUTUNE_CACHE_DIR or HOME)");
    return 0;
}

/* ---- files in and out ---- */

/* The whole regular file `path`, NUL-terminated, into *text: 0, or -1 with err. */
static int slurp(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return gt_errf(err, errlen, "cannot read %s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode) || st.st_size > (1 << 30)) {
        close(fd);
        return gt_errf(err, errlen, "cannot read %s: %s", path, S_ISREG(st.st_mode) ? "over 1 GiB" : "not a regular file");
    }
    char *buf = gt_read_fd(fd, (size_t)st.st_size, len);
    int e = errno;
    close(fd);
    if (!buf)
        return gt_errf(err, errlen, "cannot read %s: %s", path, e == ENOMEM ? "out of memory" : strerror(e));
    *text = buf;
    return 0;
}

/* An exported file into c: a T4 document when it begins with '{', else a
 * cache file, which must read whole.  0, or -1 with err. */
static int read_input(const char *path, struct gt_cachefile *c, struct gt_t4_read *t4, char *err, size_t errlen)
{
    char *text;
    size_t len;
    *t4 = (struct gt_t4_read){0};
    *c = (struct gt_cachefile){0};
    if (slurp(path, &text, &len, err, errlen) != 0)
        return -1;
    int rc;
    if (len >= 2 && (unsigned char)text[0] == 0x1f && (unsigned char)text[1] == 0x8b) {
        rc = gt_errf(err, errlen, "%s is compressed with gzip: decompress it first (gzip -dk %s)", path, path);
    } else if (text[strspn(text, " \t\r\n")] == '{') {
        rc = gt_t4_to_cache(text, len, path, c, t4, err, errlen);
    } else {
        enum gt_cache_status st = gt_cache_parse(c, text, path, err, errlen);
        rc = st == GT_CACHE_OK ? 0 : -1;
        if (st == GT_CACHE_NEWER)
            gt_errf(err, errlen, "%s has a newer format than this gputune reads (%d)", path, GPUTUNE_CACHE_FORMAT);
        if (rc != 0)
            gt_cache_clear(c);
    }
    free(text);
    return rc;
}

/* An output written whole or not at all: a regular (or new) file is
 * written beside itself and renamed into place; the standard output ("-")
 * and other files (a device, a pipe) are written as they are. */
struct output {
    FILE *f;
    const char *path;
    char tmp[PATH_MAX + 16]; /* "" when written directly */
};

static int output_open(struct output *o, const char *path, char *err, size_t errlen)
{
    struct stat st;
    *o = (struct output){.path = path};
    if (!path || !strcmp(path, "-")) {
        o->f = stdout;
        o->path = "the standard output";
        return 0;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        o->f = fopen(path, "w");
        return o->f ? 0 : gt_errf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    }
    if ((size_t)snprintf(o->tmp, sizeof o->tmp, "%s.XXXXXX", path) >= sizeof o->tmp)
        return gt_errf(err, errlen, "cannot write %s: the path is too long", path);
    int fd = mkstemp(o->tmp);
    o->f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!o->f) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(o->tmp);
        }
        return gt_errf(err, errlen, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

/* Ends the output: kept when `whole` and written without error, else
 * removed.  0, or -1 with err when the writing failed. */
static int output_close(struct output *o, int whole, char *err, size_t errlen)
{
    errno = 0;
    int e = fflush(o->f) != 0 || ferror(o->f) ? (errno ? errno : EIO) : 0;
    if (o->f != stdout && fclose(o->f) != 0 && !e)
        e = errno;
    if (o->tmp[0] && whole && !e && rename(o->tmp, o->path) != 0)
        e = errno;
    if (o->tmp[0] && (!whole || e))
        unlink(o->tmp);
    return whole && e ? gt_errf(err, errlen, "cannot write %s: %s", o->path, strerror(e)) : 0;
}

/* A cache file's status after a change: 0, or 1 (said). */
int gt_cachecmd_changed(const char *cmd, enum gt_cache_status st, const char *err)
{
    if (st != GT_CACHE_OK)
        return gt_cachecmd_fail(cmd, "%s", err);
    if (*err)
        fprintf(stderr, "gputune cache %s: %s\n", cmd, err);
    return 0;
}

/* ---- list ---- */

static int cmd_list(int argc, char **argv)
{
    const char *file = NULL;
    int i = 0;
    for (int r; i < argc && argv[i][0] == '-'; i++)
        if ((r = gt_cachecmd_option(argc, argv, &i, "--file", &file)) <= 0)
            return r < 0 ? gt_cachecmd_usage("list", "--file needs a path")
                         : gt_cachecmd_usage("list", "unknown option '%s'", argv[i]);
    struct gt_cache_target t;
    char err[1024];
    int rc = gt_cachecmd_target("list", argc - i, argv + i, file, &t);
    if (rc)
        return rc;
    struct gt_cachefile c;
    enum gt_cache_status st = gt_cache_load(&c, t.path, err, sizeof err);
    if (st != GT_CACHE_OK)
        fprintf(stderr, "gputune cache: %s\n", err);
    if (st == GT_CACHE_REFUSED || st == GT_CACHE_FAILED)
        return 1;
    printf("%s: %zu entries\n", t.path, c.n);
    if (c.n)
        printf("%10s %10s %8s %-14s %6s  %-8s %-12s %s\n", "baseline", "best", "speedup", "in the app", "trials",
               "arch", "strategy", "kernel / signature / configuration");
    for (size_t k = 0; k < c.n; k++) {
        const struct gt_centry *e = &c.v[k];
        char app[32] = "-";
        if (e->guard != GT_CENTRY_UNCHECKED)
            snprintf(app, sizeof app, "%s %.2fx", e->guard == GT_CENTRY_KEPT ? "kept" : "dropped", e->guard_speedup);
        printf("%8.2fus %8.2fus %7.2fx %-14s %6ld  sm_%-5d %-12s %s / %s / %s\n", e->baseline_us, e->time_us,
               e->time_us > 0 ? e->baseline_us / e->time_us : 1.0, app, e->trials, e->arch, e->strategy, e->kernel,
               e->signature, e->config);
    }
    gt_cache_clear(&c);
    return 0;
}

/* ---- export ---- */

/* The text of a cache file, as it is or as T4, into o. */
static int export_cache(const char *path, int t4, struct output *o, char *err, size_t errlen)
{
    char *text;
    size_t len;
    if (slurp(path, &text, &len, err, errlen) != 0)
        return -1;
    char *copy = gt_strdup(text);
    struct gt_cachefile c = {0};
    enum gt_cache_status st = copy ? gt_cache_parse(&c, copy, path, err, errlen) : GT_CACHE_FAILED;
    int rc = st == GT_CACHE_OK || (st == GT_CACHE_NEWER && !t4) ? 0 : -1;
    if (!copy)
        gt_errf(err, errlen, "out of memory");
    else if (st == GT_CACHE_NEWER && t4)
        gt_errf(err, errlen, "%s has a newer format than this gputune reads (%d): export it as ini", path,
                GPUTUNE_CACHE_FORMAT);
    if (rc == 0 && t4)
        rc = gt_t4_from_cache(o->f, &c, err, errlen);
    else if (rc == 0)
        fwrite(text, 1, len, o->f);
    gt_cache_clear(&c);
    free(copy);
    free(text);
    return rc;
}

static int export_trials(const char *path, struct output *o, char *err, size_t errlen)
{
    char *text;
    size_t len, not_run = 0;
    if (slurp(path, &text, &len, err, errlen) != 0)
        return -1;
    int rc = gt_t4_from_trials(o->f, text, len, path, &not_run, err, errlen);
    free(text);
    if (rc == 0 && not_run)
        fprintf(stderr, "gputune cache export: %zu trials of %s were estimated, never run: left out (no time)\n",
                not_run, path);
    return rc;
}

static int cmd_export(int argc, char **argv)
{
    const char *format = NULL, *out = NULL, *file = NULL, *trials = NULL;
    int i = 0;
    for (int r = 0; i < argc && argv[i][0] == '-' && strcmp(argv[i], "-") != 0; i++) {
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        }
        const char *opts[] = {"--format", "-o", "--file", "--trials"};
        const char **vals[] = {&format, &out, &file, &trials};
        size_t k = 0;
        while (k < 4 && (r = gt_cachecmd_option(argc, argv, &i, opts[k], vals[k])) == 0)
            k++;
        if (r < 0)
            return gt_cachecmd_usage("export", "%s needs a value", argv[i]);
        if (k == 4)
            return gt_cachecmd_usage("export", "unknown option '%s'", argv[i]);
    }
    int t4 = format && !strcmp(format, "t4");
    if (format && !t4 && strcmp(format, "ini") != 0)
        return gt_cachecmd_usage("export", "--format is ini or t4, not '%s'", format);
    if (trials && (file || i < argc))
        return gt_cachecmd_usage("export", "--trials exports a trials file: no PROGRAM or --file with it");
    if (trials && format && !t4)
        return gt_cachecmd_usage("export", "--trials exports to t4 only");
    struct gt_cache_target t;
    int rc = trials ? 0 : gt_cachecmd_target("export", argc - i, argv + i, file, &t);
    if (rc)
        return rc;
    struct output o;
    char err[1024];
    if (output_open(&o, out, err, sizeof err) != 0)
        return gt_cachecmd_fail("export", "%s", err);
    rc = trials ? export_trials(trials, &o, err, sizeof err) : export_cache(t.path, t4, &o, err, sizeof err);
    if (output_close(&o, rc == 0, err, sizeof err) != 0 || rc != 0)
        return gt_cachecmd_fail("export", "%s", err);
    return 0;
}

/* ---- import ---- */

struct import {
    const struct gt_cachefile *from;
    int replace;
    size_t added, replaced, kept;
};

static int import_edit(struct gt_cachefile *c, void *ctx)
{
    struct import *im = ctx;
    im->added = im->replaced = im->kept = 0;
    if (!c->binary && im->from->binary && !(c->binary = gt_strdup(im->from->binary)))
        return -1;
    for (size_t i = 0; i < im->from->n; i++) {
        const struct gt_centry *e = &im->from->v[i];
        int held = gt_cache_find(c, e) != NULL;
        if (held && !im->replace) {
            im->kept++;
            continue;
        }
        if (gt_cache_put(c, e, 1) != 0)
            return -1;
        if (held)
            im->replaced++;
        else
            im->added++;
    }
    return im->added + im->replaced ? 0 : 1;
}

static void t4_note(const char *cmd, const char *path, const struct gt_t4_read *t4)
{
    if (t4->failed)
        fprintf(stderr, "gputune cache %s: %s: %zu of its %zu results are not correct or have no time: not "
                        "entries\n", cmd, path, t4->failed, t4->results);
}

static int cmd_import(int argc, char **argv)
{
    const char *file = NULL, *from = NULL;
    int replace = 0, i = 0, into = -1;
    for (int r; i < argc && into < 0; i++) {
        if (!strcmp(argv[i], "--replace"))
            replace = 1;
        else if (!strcmp(argv[i], "--into"))
            into = i + 1;
        else if ((r = gt_cachecmd_option(argc, argv, &i, "--file", &file)) != 0) {
            if (r < 0)
                return gt_cachecmd_usage("import", "--file needs a path");
        } else if (argv[i][0] == '-' && argv[i][1])
            return gt_cachecmd_usage("import", "unknown option '%s'", argv[i]);
        else if (from)
            return gt_cachecmd_usage("import", "one FILE at a time ('%s' and '%s')", from, argv[i]);
        else
            from = argv[i];
    }
    if (!from)
        return gt_cachecmd_usage("import", "name the FILE to import");
    if (into >= 0 && into >= argc)
        return gt_cachecmd_usage("import", "--into needs a PROGRAM");
    struct gt_cache_target t;
    int rc = gt_cachecmd_target("import", into >= 0 ? argc - into : 0, argv + (into >= 0 ? into : argc), file, &t);
    if (rc)
        return rc;
    struct gt_cachefile c;
    struct gt_t4_read t4;
    char err[1024];
    if (read_input(from, &c, &t4, err, sizeof err) != 0)
        return gt_cachecmd_fail("import", "%s; nothing imported", err);
    t4_note("import", from, &t4);
    if (!c.n) {
        gt_cache_clear(&c);
        return gt_cachecmd_fail("import", "%s holds no entries: nothing imported", from);
    }
    struct import im = {.from = &c, .replace = replace};
    enum gt_cache_status st = gt_cache_update(t.path, t.binary[0] ? t.binary : NULL, import_edit, &im,
                                              GT_CACHE_LOCK_WAIT_MS, err, sizeof err);
    gt_cache_clear(&c);
    if ((rc = gt_cachecmd_changed("import", st, err)) != 0)
        return rc;
    printf("%s: %zu entries of %s imported (%zu new, %zu replaced)", t.path, im.added + im.replaced, from, im.added,
           im.replaced);
    if (im.kept)
        printf("; %zu it holds already kept (--replace takes the imported ones)", im.kept);
    putchar('\n');
    return 0;
}

/* ---- merge ---- */

/* The union being made: each entry with the name of the file it came from. */
struct merge {
    struct gt_cachefile *sources;
    const char **names;
    size_t n;
    FILE *say;                  /* where the choices are told */
    const char *target;         /* the cache file merged into, if one is */
    const char **from;          /* per entry of the union */
    size_t cap, conflicts;
};

/* Two entries of one key met: counted, and said when their configurations differ. */
static void tell_choice(struct merge *m, const struct gt_centry *won, const char *won_from,
                        const struct gt_centry *lost, const char *lost_from)
{
    m->conflicts++;
    if (strcmp(won->config, lost->config) != 0)
        fprintf(m->say, "%s %s on %s: %s's '%s' (%.3f us, %ld trials) over %s's '%s' (%.3f us, %ld trials)\n",
                won->kernel, won->signature, won->device, won_from, won->config, won->time_us, won->trials,
                lost_from, lost->config, lost->time_us, lost->trials);
}

/* Adds src's entries to the union u by the rule of gt_cache_better. */
static int merge_in(struct merge *m, struct gt_cachefile *u, const struct gt_cachefile *src, const char *name)
{
    for (size_t i = 0; i < src->n; i++) {
        const struct gt_centry *e = &src->v[i], *old = gt_cache_find(u, e);
        size_t at = old ? (size_t)(old - u->v) : u->n;
        if (old && gt_cache_better(old, e)) {
            tell_choice(m, old, m->from[at], e, name);
            continue;
        }
        if (old)
            tell_choice(m, e, name, old, m->from[at]);
        if (gt_grow((void **)&m->from, &m->cap, u->n + 1, sizeof *m->from) != 0 || gt_cache_put(u, e, 1) != 0)
            return -1;
        m->from[at] = name;
    }
    if (!u->binary && src->binary && !(u->binary = gt_strdup(src->binary)))
        return -1;
    return 0;
}

static int merge_edit(struct gt_cachefile *c, void *ctx)
{
    struct merge *m = ctx;
    m->conflicts = 0;
    if (gt_grow((void **)&m->from, &m->cap, c->n + 1, sizeof *m->from) != 0)
        return -1;
    for (size_t i = 0; i < c->n; i++)
        m->from[i] = m->target;
    for (size_t i = 0; i < m->n; i++)
        if (merge_in(m, c, &m->sources[i], m->names[i]) != 0)
            return -1;
    return 0;
}

static int merge_to_output(struct merge *m, const char *out, char *err, size_t errlen)
{
    struct gt_cachefile u = {0};
    struct output o;
    if (output_open(&o, out, err, errlen) != 0)
        return -1;
    if (o.f == stdout)
        m->say = stderr;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < m->n; i++)
        rc = merge_in(m, &u, &m->sources[i], m->names[i]);
    if (rc != 0)
        gt_errf(err, errlen, "out of memory");
    else if (gt_cache_write(o.f, u.binary ? u.binary : "", &u) != 0)
        rc = -1;
    rc = output_close(&o, rc == 0, err, errlen) != 0 ? -1 : rc;
    if (rc == 0)
        fprintf(m->say, "%s: %zu entries from %zu files (%zu keys in more than one)\n", o.path, u.n, m->n,
                m->conflicts);
    gt_cache_clear(&u);
    return rc;
}

static int cmd_merge(int argc, char **argv)
{
    const char *out = NULL, *file = NULL;
    int i = 0, into = -1, rc = 0;
    char **inputs = gt_calloc((size_t)argc + 1, sizeof *inputs);
    size_t n = 0;
    for (int r; rc == 0 && i < argc && into < 0; i++) {
        if (!strcmp(argv[i], "--into"))
            into = i + 1;
        else if ((r = gt_cachecmd_option(argc, argv, &i, "-o", &out)) != 0 ||
                 (r = gt_cachecmd_option(argc, argv, &i, "--file", &file)) != 0)
            rc = r < 0 ? gt_cachecmd_usage("merge", "%s needs a path", argv[i]) : 0;
        else if (argv[i][0] == '-' && argv[i][1])
            rc = gt_cachecmd_usage("merge", "unknown option '%s'", argv[i]);
        else if (inputs)
            inputs[n++] = argv[i];
    }
    if (rc == 0 && !inputs)
        rc = gt_cachecmd_fail("merge", "out of memory");
    if (rc == 0 && !n)
        rc = gt_cachecmd_usage("merge", "name the files to merge");
    if (rc == 0 && (!!out + !!file + (into >= 0)) > 1)
        rc = gt_cachecmd_usage("merge", "the union goes to one place: -o OUT, --file F or --into PROGRAM");
    if (rc == 0 && into >= argc)
        rc = gt_cachecmd_usage("merge", "--into needs a PROGRAM");
    struct gt_cache_target t;
    if (rc == 0 && !out)
        rc = gt_cachecmd_target("merge", into >= 0 ? argc - into : 0, argv + (into >= 0 ? into : argc), file, &t);
    struct merge m = {.sources = rc == 0 ? gt_calloc(n, sizeof *m.sources) : NULL, .names = (const char **)inputs,
                      .say = stdout};
    char err[1024];
    struct gt_t4_read t4;
    if (rc == 0 && !m.sources)
        rc = gt_cachecmd_fail("merge", "out of memory");
    for (; rc == 0 && m.n < n; m.n++) {
        if (read_input(inputs[m.n], &m.sources[m.n], &t4, err, sizeof err) != 0)
            rc = gt_cachecmd_fail("merge", "%s; nothing merged", err);
        else
            t4_note("merge", inputs[m.n], &t4);
    }
    if (rc == 0 && out && merge_to_output(&m, out, err, sizeof err) != 0)
        rc = gt_cachecmd_fail("merge", "%s", err);
    if (rc == 0 && !out) {
        m.target = t.path;
        enum gt_cache_status st = gt_cache_update(t.path, t.binary[0] ? t.binary : NULL, merge_edit, &m,
                                                  GT_CACHE_LOCK_WAIT_MS, err, sizeof err);
        if ((rc = gt_cachecmd_changed("merge", st, err)) == 0)
            printf("%s: merged %zu files into it (%zu keys in more than one)\n", t.path, m.n, m.conflicts);
    }
    for (size_t k = 0; k < m.n; k++)
        gt_cache_clear(&m.sources[k]);
    free(m.sources);
    free(m.from);
    free(inputs);
    return rc;
}

int gt_cmd_cache(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
    } subs[] = {{"list", cmd_list}, {"export", cmd_export}, {"import", cmd_import}, {"merge", cmd_merge},
                {"prune", gt_cachecmd_prune}};
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(usage, stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof subs / sizeof *subs; i++)
        if (!strcmp(argv[1], subs[i].name)) {
            if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
                fputs(usage, stdout);
                return 0;
            }
            return subs[i].run(argc - 2, argv + 2);
        }
    return cmd_list(argc - 1, argv + 1);
}
