/* log.c: the shim's one voice.
 *
 * Every message of the shim goes through gt_log(): one line, prefixed with
 * "gputune[pid]" and the level, written with a single write() so that lines
 * of concurrent threads (and of processes sharing GPUTUNE_LOG_FILE, opened
 * with O_APPEND) never interleave.  Its settings live in the state (gt.log),
 * handed over once by gt_log_open(); until then, warnings and errors go to
 * stderr.
 *
 * How loudly a path that gives up (a launch not tuned, a variant not used)
 * is said follows from its result code, in gt_log_level_of() alone, so that
 * the same kind of failure is said alike everywhere.  Running out of memory
 * is said once per process: the first message about it stands for every
 * later one, and gt_log_nomem_summary() says it at exit when nothing else
 * did (shim/base/alloc.c counts the failures). */
#include "log.h"
#include "alloc.h"
#include "pidpath.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const level_names[] = {"error", "warn", "info", "debug"};
static const struct gt_log defaults = {.level = GT_LOG_WARN, .fd = STDERR_FILENO};
static const struct gt_log *_Atomic current = &defaults;

void gt_log_open(struct gt_log *log, int level, const char *path)
{
    log->level = level;
    log->fd = STDERR_FILENO;
    atomic_store_explicit(&current, log, memory_order_release);
    if (!path || !*path)
        return;
    char name[4096];
    gt_pidpath(path, name, sizeof name);
    int fd = open(name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        gt_warn("cannot open GPUTUNE_LOG_FILE '%s': %s; logging to stderr", name, strerror(errno));
        return;
    }
    log->fd = fd;
}

int gt_log_enabled(int level)
{
    return level <= atomic_load_explicit(&current, memory_order_acquire)->level;
}

/* The application sees its own error itself, and something unavailable here
 * is a fact of the setup rather than a fault; what failed is a warning. */
enum gt_log_level gt_log_level_of(enum gt_rc rc)
{
    switch (rc) {
    case GT_OK:
    case GT_APP_ERROR:
        return GT_LOG_DEBUG;
    case GT_UNAVAILABLE:
        return GT_LOG_INFO;
    case GT_NO_MEMORY:
        return gt_log_nomem_level();
    case GT_FAILED:
    case GT_TOO_LARGE:
        break;
    }
    return GT_LOG_WARN;
}

static atomic_int nomem_said;

enum gt_log_level gt_log_nomem_level(void)
{
    return atomic_exchange(&nomem_said, 1) ? GT_LOG_DEBUG : GT_LOG_WARN;
}

enum gt_log_level gt_log_fault_level(unsigned long lost)
{
    return gt_alloc_failures() != lost ? gt_log_nomem_level() : GT_LOG_WARN;
}

void gt_log_nomem_summary(void)
{
    unsigned long n = gt_alloc_failures();
    if (n && !atomic_load(&nomem_said))
        gt_log(gt_log_nomem_level(),
               "out of memory: %lu of the shim's allocations failed; what needed them was skipped, and the kernels "
               "concerned ran as the application built them", n);
}

void gt_log(int level, const char *fmt, ...)
{
    if (!gt_log_enabled(level))
        return;
    int saved_errno = errno;
    char line[8192];
    int n = snprintf(line, sizeof line, "gputune[%ld] %s: ", (long)getpid(), level_names[level]);
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    ssize_t w = write(atomic_load_explicit(&current, memory_order_acquire)->fd, line, len);
    (void)w; /* nowhere left to report a failing log */
    errno = saved_errno;
}
