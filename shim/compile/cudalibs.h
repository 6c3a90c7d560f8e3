/* cudalibs.h: the CUDA libraries of either major version (see cudalibs.c). */
#ifndef GT_CUDALIBS_H
#define GT_CUDALIBS_H

#include <limits.h>
#include <stddef.h>

/* One library of the toolkit, opened. */
struct gt_cudalib {
    void *handle;
    int major;            /* 12 or 13, as its soname says */
    int loaded;           /* the process had it before: the application's own */
    char path[PATH_MAX];  /* its file, for messages */
};

int gt_cudalib_open(const char *stem, int min_major, int max_major, struct gt_cudalib *lib, char *err, size_t errlen);
int gt_cudalib_suffix(const struct gt_cudalib *lib, const char *entry, char *out, size_t cap);
void gt_cudalib_close(struct gt_cudalib *lib);

#define GT_DRIVER_VERSION_MAX 32 /* "580.159.04" and its NUL fit */
int gt_cudalib_driver_version(const char *libcuda, const char *proc_version, char *out, size_t cap);

#endif
