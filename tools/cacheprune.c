/* cacheprune.c: `gputune cache prune`: entries that can no longer apply,
 * removed.
 *
 * An entry is for one image, device and driver, tuned at one time.  It is
 * removed when it was tuned before a date (`tuned`), when the file that
 * held its image (`image_file`) is gone or holds that image no more (the
 * program was rebuilt: imagefile.c hashes what it holds now), or when its
 * driver or device is not among those named, or, for "current", those of
 * this machine's CUDA driver (asked only then: no GPU is needed
 * otherwise).  What cannot be judged (no date, no image file recorded, a
 * file that cannot be read) is kept, and said.  The change is made under
 * the cache file's lock on what the file holds then, so that entries a
 * running application adds meanwhile are judged too, not lost. */
#include "cachecmd.h"
#include "alloc.h"
#include "arena.h"
#include "cachefile.h"
#include "imagefile.h"

#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_NAMED 16 /* --driver and --device values, each */

/* An image file, read once however many entries name it. */
struct image_file {
    char *path;
    enum gt_imagefile_status st;
    struct gt_imagefile f;
};

struct prune {
    const char *before;                    /* --older-than, YYYY-MM-DD */
    int missing_images;
    int drivers[MAX_NAMED];
    size_t ndrivers;
    char devices[MAX_NAMED][256];
    size_t ndevices;
    char kept[1024];                       /* the drivers and devices named, as said */
    struct image_file *files;
    size_t nfiles, fcap;
    struct gt_cachefile removed;           /* what went, with why[i] */
    char (*why)[512];
    size_t wcap;
    size_t total, undated, unfiled, unread; /* entries seen, and those that could not be judged */
};

/* A date YYYY-MM-DD that exists (no February 30th). */
static int is_date(const char *s)
{
    int y, m, d, n = 0;
    if (strlen(s) < 10 || sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &n) != 3 || n != 10 || s[4] != '-' || s[7] != '-')
        return 0;
    for (int i = 0; i < 10; i++)
        if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
            return 0;
    struct tm t = {.tm_year = y - 1900, .tm_mon = m - 1, .tm_mday = d, .tm_hour = 12};
    return m >= 1 && m <= 12 && timegm(&t) != (time_t)-1 && t.tm_mday == d && t.tm_mon == m - 1;
}

static struct image_file *image_file(struct prune *p, const char *path)
{
    for (size_t i = 0; i < p->nfiles; i++)
        if (!strcmp(p->files[i].path, path))
            return &p->files[i];
    char err[1024], *copy = gt_strdup(path);
    if (!copy || gt_grow((void **)&p->files, &p->fcap, p->nfiles + 1, sizeof *p->files) != 0) {
        free(copy);
        return NULL;
    }
    struct image_file *f = &p->files[p->nfiles++];
    f->path = copy;
    f->st = gt_imagefile_read(path, &f->f, err, sizeof err);
    if (f->st == GT_IMAGEFILE_FAILED)
        fprintf(stderr, "gputune cache prune: %s; the entries of images in it are kept\n", err);
    return f;
}

/* Why e goes, into why: 1; 0 when it stays (counted when a criterion
 * could not judge it); -1 when out of memory. */
static int judge(struct prune *p, const struct gt_centry *e, char *why, size_t len)
{
    size_t i;
    for (i = 0; i < p->ndevices && strcmp(p->devices[i], e->device) != 0; i++)
        ;
    if (p->ndevices && i == p->ndevices)
        return snprintf(why, len, "device '%s' (kept: %s)", e->device, p->kept) > 0;
    for (i = 0; i < p->ndrivers && p->drivers[i] != e->driver; i++)
        ;
    if (p->ndrivers && i == p->ndrivers)
        return snprintf(why, len, "driver %d (kept: %s)", e->driver, p->kept) > 0;
    struct image_file *f = p->missing_images && *e->image_file ? image_file(p, e->image_file) : NULL;
    if (p->missing_images && *e->image_file && !f)
        return -1;
    if (f && f->st == GT_IMAGEFILE_GONE)
        return snprintf(why, len, "its image file %s is gone", e->image_file) > 0;
    if (f && f->st == GT_IMAGEFILE_READ && !gt_imagefile_holds(&f->f, e->image))
        return snprintf(why, len, "%s no longer holds its image %016llx (rebuilt)", e->image_file,
                        (unsigned long long)e->image) > 0;
    int dated = e->tuned && is_date(e->tuned);
    if (p->before && dated && strncmp(e->tuned, p->before, 10) < 0)
        return snprintf(why, len, "tuned %.10s, before %s", e->tuned, p->before) > 0;
    p->unfiled += p->missing_images && !*e->image_file;
    p->unread += f && f->st == GT_IMAGEFILE_FAILED;
    p->undated += p->before && !dated;
    return 0;
}

/* Removes from c what goes, keeping it (and why) in p. */
static int prune_edit(struct gt_cachefile *c, void *ctx)
{
    struct prune *p = ctx;
    size_t kept = 0;
    p->total = c->n;
    for (size_t i = 0; i < c->n; i++) {
        char why[512];
        int r = judge(p, &c->v[i], why, sizeof why);
        if (r < 0 || (r && (gt_grow((void **)&p->why, &p->wcap, p->removed.n + 1, sizeof *p->why) != 0 ||
                            gt_cache_put(&p->removed, &c->v[i], 1) != 0)))
            return -1;
        if (r) {
            snprintf(p->why[p->removed.n - 1], sizeof *p->why, "%s", why);
            gt_centry_clear(&c->v[i]);
        } else {
            c->v[kept++] = c->v[i];
        }
    }
    c->n = kept;
    return p->removed.n ? 0 : 1;
}

/* This machine's CUDA driver: its version and its devices' names, for
 * "current".  0, or 1 (said). */
static int current_cuda(int *version, char names[][256], size_t *n)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return gt_cachecmd_fail("prune", "'current' needs a CUDA driver, and there is none here (%s): name the "
                                "driver or device", dlerror());
    CUresult (*init)(unsigned) = (CUresult(*)(unsigned))dlsym(h, "cuInit");
    CUresult (*get_version)(int *) = (CUresult(*)(int *))dlsym(h, "cuDriverGetVersion");
    CUresult (*count)(int *) = (CUresult(*)(int *))dlsym(h, "cuDeviceGetCount");
    CUresult (*get)(CUdevice *, int) = (CUresult(*)(CUdevice *, int))dlsym(h, "cuDeviceGet");
    CUresult (*name)(char *, int, CUdevice) = (CUresult(*)(char *, int, CUdevice))dlsym(h, "cuDeviceGetName");
    int devices = 0, rc = 0;
    CUresult r = !init || !get_version || !count || !get || !name ? CUDA_ERROR_NOT_FOUND : init(0);
    if (r == CUDA_SUCCESS)
        r = get_version(version);
    if (r == CUDA_SUCCESS)
        r = count(&devices);
    *n = 0;
    for (int i = 0; r == CUDA_SUCCESS && i < devices && *n < MAX_NAMED; i++) {
        CUdevice d;
        r = get(&d, i);
        if (r == CUDA_SUCCESS)
            r = name(names[(*n)++], 256, d);
    }
    if (r != CUDA_SUCCESS || !devices)
        rc = gt_cachecmd_fail("prune", "'current' needs a usable CUDA device, and the driver finds none (error %d): "
                              "name the driver or device", (int)r);
    dlclose(h);
    return rc;
}

/* --driver and --device values into p: 0, or an exit status (said). */
static int take_named(struct prune *p, const char *opt, const char *value, int *current)
{
    if (!strcmp(value, "current")) {
        *current |= !strcmp(opt, "--driver") ? 1 : 2;
        return 0;
    }
    if (!strcmp(opt, "--device")) {
        if (!*value || p->ndevices == MAX_NAMED)
            return gt_cachecmd_usage("prune", "--device takes a device name (at most %d)", MAX_NAMED);
        snprintf(p->devices[p->ndevices++], sizeof *p->devices, "%s", value);
        return 0;
    }
    char *end;
    long v = strtol(value, &end, 10);
    if (*end || end == value || v <= 0 || v > 1000000 || p->ndrivers == MAX_NAMED)
        return gt_cachecmd_usage("prune", "--driver takes a version as the cache file writes it (13000) or "
                                 "'current', not '%s'", value);
    p->drivers[p->ndrivers++] = (int)v;
    return 0;
}

static int add_current(struct prune *p, int current)
{
    int version = 0;
    char names[MAX_NAMED][256];
    size_t n = 0;
    if (!current)
        return 0;
    if (current_cuda(&version, names, &n) != 0)
        return 1;
    if (current & 1 && p->ndrivers < MAX_NAMED)
        p->drivers[p->ndrivers++] = version;
    for (size_t i = 0; current & 2 && i < n && p->ndevices < MAX_NAMED; i++)
        memcpy(p->devices[p->ndevices++], names[i], sizeof *names);
    return 0;
}

/* The drivers and devices kept, for the reasons given. */
static void say_kept(struct prune *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->ndrivers && n < sizeof p->kept; i++)
        n += (size_t)snprintf(p->kept + n, sizeof p->kept - n, "%sdriver %d", n ? ", " : "", p->drivers[i]);
    for (size_t i = 0; i < p->ndevices && n < sizeof p->kept; i++)
        n += (size_t)snprintf(p->kept + n, sizeof p->kept - n, "%s'%s'", n ? ", " : "", p->devices[i]);
}

static void report(const struct prune *p, const char *path, int dry)
{
    for (size_t i = 0; i < p->removed.n; i++) {
        const struct gt_centry *e = &p->removed.v[i];
        printf("%s %s %s on %s: %s\n", dry ? "would remove" : "removed", e->kernel, e->signature, e->device,
               p->why[i]);
    }
    printf("%s: %zu of %zu entries %s\n", path, p->removed.n, p->total,
           dry ? "would be removed (a dry run: the file is left as it is)" : "removed");
    if (p->undated)
        printf("%zu entries carry no date (tuned): kept\n", p->undated);
    if (p->unfiled)
        printf("%zu entries name no image file (their code came from memory, or they were tuned before format 2): "
               "kept\n", p->unfiled);
    if (p->unread)
        printf("%zu entries' image files cannot be read: kept\n", p->unread);
}

static int parse_options(struct prune *p, int argc, char **argv, int *i, const char **file, int *dry)
{
    int current = 0, r;
    for (; *i < argc && argv[*i][0] == '-'; ++*i) {
        const char *v = NULL;
        if (!strcmp(argv[*i], "--")) {
            ++*i;
            break;
        }
        if (!strcmp(argv[*i], "--dry-run"))
            *dry = 1;
        else if (!strcmp(argv[*i], "--missing-images"))
            p->missing_images = 1;
        else if ((r = gt_cachecmd_option(argc, argv, i, "--older-than", &v)) != 0) {
            if (r < 0 || !is_date(v) || v[10])
                return gt_cachecmd_usage("prune", "--older-than takes a date, YYYY-MM-DD, not '%s'", r < 0 ? "" : v);
            p->before = v;
        } else if ((r = gt_cachecmd_option(argc, argv, i, "--file", file)) != 0) {
            if (r < 0)
                return gt_cachecmd_usage("prune", "--file needs a path");
        } else if ((r = gt_cachecmd_option(argc, argv, i, "--driver", &v)) != 0 ||
                   (r = gt_cachecmd_option(argc, argv, i, "--device", &v)) != 0) {
            int bad = r < 0 ? gt_cachecmd_usage("prune", "%s needs a value", argv[*i])
                            : take_named(p, argv[*i - 1], v, &current);
            if (bad)
                return bad;
        } else {
            return gt_cachecmd_usage("prune", "unknown option '%s'", argv[*i]);
        }
    }
    if (!p->before && !p->missing_images && !p->ndrivers && !p->ndevices && !current)
        return gt_cachecmd_usage("prune", "name what to remove: --older-than, --missing-images, --driver or "
                                 "--device");
    if (add_current(p, current) != 0)
        return 1;
    say_kept(p);
    return 0;
}

/* What would go, said; the file left as it is. */
static int dry_run(struct prune *p, const char *path)
{
    struct gt_cachefile c;
    char err[1024];
    enum gt_cache_status st = gt_cache_load(&c, path, err, sizeof err);
    int rc = st == GT_CACHE_REFUSED || st == GT_CACHE_FAILED ? gt_cachecmd_fail("prune", "%s", err) : 0;
    if (rc == 0 && st != GT_CACHE_OK)
        fprintf(stderr, "gputune cache prune: %s\n", err);
    if (rc == 0 && prune_edit(&c, p) < 0)
        rc = gt_cachecmd_fail("prune", "out of memory");
    gt_cache_clear(&c);
    return rc;
}

int gt_cachecmd_prune(int argc, char **argv)
{
    struct prune p = {0};
    const char *file = NULL;
    int i = 0, dry = 0;
    struct gt_cache_target t;
    char err[1024];
    int rc = parse_options(&p, argc, argv, &i, &file, &dry);
    if (rc == 0)
        rc = gt_cachecmd_target("prune", argc - i, argv + i, file, &t);
    if (rc == 0 && access(t.path, F_OK) != 0)
        rc = gt_cachecmd_fail("prune", "%s: no such file", t.path);
    if (rc == 0 && dry)
        rc = dry_run(&p, t.path);
    else if (rc == 0)
        rc = gt_cachecmd_changed("prune", gt_cache_update(t.path, NULL, prune_edit, &p, GT_CACHE_LOCK_WAIT_MS, err,
                                                          sizeof err), err);
    if (rc == 0)
        report(&p, t.path, dry);
    for (size_t k = 0; k < p.nfiles; k++) {
        gt_imagefile_free(&p.files[k].f);
        free(p.files[k].path);
    }
    free(p.files);
    free(p.why);
    gt_cache_clear(&p.removed);
    return rc;
}
