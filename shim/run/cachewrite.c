/* cachewrite.c: this process's writes to its cache file, held back while they cannot be made.
 *
 * A write that fails for a reason of the moment (no descriptor, no memory,
 * an I/O error, another process holding the lock over GT_CACHE_LOCK_WAIT_MS)
 * must not cost the results: its entries stay here, that is said once, and
 * they go with the next write, or at exit, when the lock is waited for in
 * full once more.  After a write failed, later ones do not wait for the
 * lock: a stopped process holding it stalls the application once, not at
 * every kernel tuned.  A file that must not be written (refused, of a newer
 * format) is said once; the results of the run are not kept. */
#include "cachewrite.h"
#include "alloc.h"
#include "state.h"

#include <pthread.h>

#define W (gt.run.writes) /* this module's part of the state */

/* Writes the held entries, or keeps them for later, or drops them when
 * the file must not be written; says which once. */
static void save_held(const char *path, const char *binary, int wait_ms)
{
    char err[1024];
    unsigned long lost = gt_alloc_failures();
    enum gt_cache_status st = gt_cache_save(path, binary, W.held.v, W.held.n, wait_ms, err, sizeof err);
    if (st == GT_CACHE_FAILED) {
        if (!W.failed)
            gt_log(gt_log_fault_level(lost), "%s; the results are kept and written later (at exit at the latest)", err);
        else
            gt_debug("%s; %zu results still held back", err, W.held.n);
        W.failed = 1;
        return;
    }
    if (st != GT_CACHE_OK && !W.refused++)
        gt_warn("%s; the results of this run are not kept", err);
    else if (st != GT_CACHE_OK)
        gt_debug("%s; %zu more results not kept", err, W.held.n);
    gt_cache_clear(&W.held);
}

/* Adds (or replaces) n entries in the cache file at `path`, now or later. */
void gt_cachewrite_save(const char *path, const char *binary, const struct gt_centry *add, size_t n)
{
    pthread_mutex_lock(&W.lock);
    if (gt_cache_put(&W.held, add, n) != 0)
        gt_log(gt_log_nomem_level(), "out of memory: %zu results are not kept", n);
    else
        save_held(path, binary, W.failed ? 0 : GT_CACHE_LOCK_WAIT_MS);
    pthread_mutex_unlock(&W.lock);
}

/* At exit: what was held back, written now or said lost. */
void gt_cachewrite_exit(const char *path, const char *binary)
{
    char err[1024];
    pthread_mutex_lock(&W.lock);
    size_t n = W.held.n;
    if (n) {
        enum gt_cache_status st = gt_cache_save(path, binary, W.held.v, n, GT_CACHE_LOCK_WAIT_MS, err, sizeof err);
        if (st == GT_CACHE_OK)
            gt_info("the %zu results held back are written to %s", n, path);
        else
            gt_warn("%zu results held back are not kept: %s", n, err);
        gt_cache_clear(&W.held);
    }
    pthread_mutex_unlock(&W.lock);
}
