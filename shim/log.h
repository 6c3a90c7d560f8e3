/* log.h: the shim's one voice (see log.c). */
#ifndef GT_LOG_H
#define GT_LOG_H

#include "result.h"

enum gt_log_level { GT_LOG_ERROR, GT_LOG_WARN, GT_LOG_INFO, GT_LOG_DEBUG };

struct gt_log {
    int level; /* messages above this level are dropped */
    int fd;    /* where lines go: stderr or GPUTUNE_LOG_FILE */
};

void gt_log_open(struct gt_log *log, int level, const char *path);
int gt_log_enabled(int level);
void gt_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The level a degraded path with result rc is said at. */
enum gt_log_level gt_log_level_of(enum gt_rc rc);
/* The level of a message saying the shim ran out of memory: warn for the
 * process's first, debug after it. */
enum gt_log_level gt_log_nomem_level(void);
/* The level of a warning about an operation that began when `lost`
 * allocations had failed: the out-of-memory level when one failed since. */
enum gt_log_level gt_log_fault_level(unsigned long lost);
/* At exit: says once that allocations failed, if no message said so yet. */
void gt_log_nomem_summary(void);

#define gt_error(...) gt_log(GT_LOG_ERROR, __VA_ARGS__)
#define gt_warn(...)  gt_log(GT_LOG_WARN, __VA_ARGS__)
#define gt_info(...)  gt_log(GT_LOG_INFO, __VA_ARGS__)
#define gt_debug(...) gt_log(GT_LOG_DEBUG, __VA_ARGS__)

#endif
