/* cachecmd.h: `gputune cache` and its subcommands (see cachecmd.c, cacheprune.c). */
#ifndef GT_CACHECMD_H
#define GT_CACHECMD_H

#include "cachefile.h"

#include <limits.h>

int gt_cmd_cache(int argc, char **argv);

/* The cache file a subcommand works on, and the program it is for. */
struct gt_cache_target {
    char path[PATH_MAX + 100];
    char binary[2 * PATH_MAX]; /* as gt_cache_program keys it; "" when a file was named */
};

int gt_cachecmd_target(const char *cmd, int argc, char **argv, const char *file, struct gt_cache_target *t);
int gt_cachecmd_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int gt_cachecmd_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int gt_cachecmd_option(int argc, char **argv, int *i, const char *name, const char **value);
int gt_cachecmd_changed(const char *cmd, enum gt_cache_status st, const char *err);
int gt_cachecmd_prune(int argc, char **argv);

#endif
