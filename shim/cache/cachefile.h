/* cachefile.h: the per-binary file of tuned configurations (see cachefile.c). */
#ifndef GT_CACHEFILE_H
#define GT_CACHEFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What one kernel, in one image, on one device, at one launch signature,
 * was tuned to. */
struct gt_centry {
    uint64_t image;    /* content hash of the image the kernel came from */
    char *image_file;  /* the file that held it (absolute), "" when it came from memory */
    char *kernel;      /* mangled name */
    char *device;      /* "NVIDIA H200" */
    int arch;          /* 90 */
    int driver;        /* the CUDA version the driver runs: 13000 */
    char *driver_version; /* the driver's own, "580.159.04"; "" when not known (and in files of format 1) */
    char *signature;   /* canonical launch signature, see gt_cache_signature */
    char *config;      /* the winning configuration, as a space writes it */
    char *cubin;       /* store key of its compiled cubin, "" when nothing was compiled */
    char *strategy;
    double time_us, baseline_us;
    long trials;
    uint64_t space;    /* configurations in its space */
    char *tuned;       /* when, ISO 8601 */
    int guard;         /* enum gt_centry_guard: what run mode measured on the application's own launches */
    double guard_speedup; /* the original's time over the configuration's there */
    char *guard_times; /* while unchecked: the times measured so far, "O1 O2 .. / C1 C2 ..", or NULL */
};

#define GT_CENTRY_GUARD_TIMES 64 /* at most, of each side */

enum gt_centry_guard { GT_CENTRY_UNCHECKED, GT_CENTRY_KEPT, GT_CENTRY_DROPPED };

struct gt_cachefile {
    struct gt_centry *v;
    size_t n, cap;
    char *binary;      /* the program its header names; NULL when it names none */
};

/* What reading or writing a cache file came to; err says why for all but OK. */
enum gt_cache_status {
    GT_CACHE_OK,      /* read whole (no file: an empty cache), or written */
    GT_CACHE_DAMAGED, /* read but for the entries and lines that do not parse, dropped; written over, kept aside */
    GT_CACHE_NEWER,   /* a newer format, read as far as understood; never written over nor moved */
    GT_CACHE_REFUSED, /* a link, not a regular file, another user's, writable by others: not used nor touched */
    GT_CACHE_FAILED,  /* not now (descriptors, memory, I/O, the lock held too long): left as it is; try later */
};

/* The oldest format this library reads (format 2 added image_file). */
#define GT_CACHE_FIRST_FORMAT 1

/* How long a writer waits for the lock by default. */
#define GT_CACHE_LOCK_WAIT_MS 5000

/* The program a process runs, as its cache file is keyed: the executable,
 * or for an interpreter (python, julia, Rscript, ruby, perl, node) the
 * executable and the script it runs ("/usr/bin/python3.12 /abs/train.py",
 * "... -m package"). */
int gt_cache_program(const char *exe, char *const *argv, int argc, char *out, size_t cap);
int gt_cache_file(const char *root, const char *binary, char *out, size_t cap);
enum gt_cache_status gt_cache_load(struct gt_cachefile *c, const char *path, char *err, size_t errlen);
enum gt_cache_status gt_cache_parse(struct gt_cachefile *c, char *text, const char *name, char *err, size_t errlen);
enum gt_cache_status gt_cache_save(const char *path, const char *binary, const struct gt_centry *add, size_t n,
                                   int wait_ms, char *err, size_t errlen);
/* A change made to a cache file under its lock: 0 to write the result, 1
 * when nothing changed, -1 when out of memory. */
typedef int gt_cache_edit(struct gt_cachefile *c, void *ctx);
enum gt_cache_status gt_cache_update(const char *path, const char *binary, gt_cache_edit *edit, void *ctx,
                                     int wait_ms, char *err, size_t errlen);
int gt_cache_write(FILE *f, const char *binary, const struct gt_cachefile *c);
int gt_cache_better(const struct gt_centry *a, const struct gt_centry *b);
int gt_cache_put(struct gt_cachefile *c, const struct gt_centry *add, size_t n);
void gt_cache_clear(struct gt_cachefile *c);
int gt_cache_same_driver(const struct gt_centry *e, int driver, const char *driver_version);
const struct gt_centry *gt_cache_find(const struct gt_cachefile *c, const struct gt_centry *key);
const struct gt_centry *gt_cache_nearest(const struct gt_cachefile *c, const struct gt_centry *key);
#define GT_CACHE_MAX_EXTRA 16 /* argument values a policy's signature may add */
int gt_cache_signature(const unsigned grid[3], const unsigned block[3], unsigned smem, const int64_t *extra,
                       size_t nextra, char *out, size_t cap);
int gt_centry_copy(struct gt_centry *dst, const struct gt_centry *src);
enum gt_centry_field { GT_FIELD_SET, GT_FIELD_BAD, GT_FIELD_UNKNOWN, GT_FIELD_NOMEM };
enum gt_centry_field gt_centry_set(struct gt_centry *e, const char *key, const char *val);
void gt_centry_clear(struct gt_centry *e);

#endif
