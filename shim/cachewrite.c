/* cachewrite.c: this process's writes to its cache file, held back while they cannot be made.
 *
 * A write that fails for a reason of the moment (no descriptor, no memory,
 * an I/O error, another process holding the lock over GT_CACHE_LOCK_WAIT_MS)
 * must not cost the results: its entries stay here, that is said once, and
 * they go with the next write, or at exit, when the lock is waited for in
 * full once more.  After a write failed, later ones do not wait for the
 * lock: a stopped process holding it stalls the application once, not at
 * every kernel tuned.  A file that must not be written (refused, of a newer
 * format) is the caller's to report, at each write. */
#include "cachewrite.h"
#include "log.h"

#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct gt_cachefile held; /* entries not written yet */
static int failed;               /* a write failed: later ones do not wait for the lock */

/* Writes the held entries: 0 when written or held back, -1 (err) when they
 * cannot be written at all. */
static int save_held(const char *path, const char *binary, int wait_ms, char *err, size_t errlen)
{
    enum gt_cache_status st = gt_cache_save(path, binary, held.v, held.n, wait_ms, err, errlen);
    if (st == GT_CACHE_FAILED) {
        if (!failed)
            gt_warn("%s; the results are kept and written later (at exit at the latest)", err);
        else
            gt_debug("%s; %zu results still held back", err, held.n);
        failed = 1;
        return 0;
    }
    gt_cache_clear(&held);
    return st == GT_CACHE_OK ? 0 : -1;
}

/* Adds (or replaces) n entries in the cache file at `path`: 0 when written
 * or held back for later, -1 with err when the file cannot be written. */
int gt_cachewrite_save(const char *path, const char *binary, const struct gt_centry *add, size_t n, char *err,
                       size_t errlen)
{
    pthread_mutex_lock(&lock);
    int r = gt_cache_put(&held, add, n);
    if (r != 0)
        snprintf(err, errlen, "out of memory");
    else
        r = save_held(path, binary, failed ? 0 : GT_CACHE_LOCK_WAIT_MS, err, errlen);
    pthread_mutex_unlock(&lock);
    return r;
}

/* At exit: what was held back, written now or said lost. */
void gt_cachewrite_exit(const char *path, const char *binary)
{
    char err[1024];
    pthread_mutex_lock(&lock);
    size_t n = held.n;
    if (n) {
        enum gt_cache_status st = gt_cache_save(path, binary, held.v, n, GT_CACHE_LOCK_WAIT_MS, err, sizeof err);
        if (st == GT_CACHE_OK)
            gt_info("the %zu results held back are written to %s", n, path);
        else
            gt_warn("%zu results held back are not kept: %s", n, err);
        gt_cache_clear(&held);
    }
    pthread_mutex_unlock(&lock);
}
