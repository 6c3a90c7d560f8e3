/* cachedir.h: opening files in the cache directory safely, sweeping stale temporaries (see cachedir.c). */
#ifndef GT_CACHEDIR_H
#define GT_CACHEDIR_H

#include <stddef.h>

/* Files of killed writers older than this are removed (seconds). */
#define GT_CACHEDIR_STALE_S 3600

enum gt_cachedir_fail {
    GT_CACHEDIR_MISSING = -1, /* no such file (only without O_CREAT) */
    GT_CACHEDIR_FAILED = -2,  /* could not open it now (descriptors, memory, I/O, permissions): try later */
    GT_CACHEDIR_REFUSED = -3, /* a link, not a regular file, another user's, or writable by others */
};

int gt_cachedir_open(const char *path, int flags, char *err, size_t errlen);
int gt_cachedir_transient(int err);
int gt_cachedir_sweep(const char *dir, long max_age_s);

#endif
