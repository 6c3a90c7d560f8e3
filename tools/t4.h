/* t4.h: Kernel Tuner's T4 format for cache files and trials (see t4.c). */
#ifndef GT_T4_H
#define GT_T4_H

#include "cachefile.h"

#include <stddef.h>
#include <stdio.h>

/* What reading a T4 document found. */
struct gt_t4_read {
    size_t results; /* results in the document */
    size_t failed;  /* not correct, or without a time: not entries */
};

int gt_t4_from_cache(FILE *f, const struct gt_cachefile *c, char *err, size_t errlen);
int gt_t4_from_trials(FILE *f, const char *csv, size_t len, const char *name, size_t *not_run, char *err,
                      size_t errlen);
int gt_t4_to_cache(const char *text, size_t len, const char *name, struct gt_cachefile *c, struct gt_t4_read *read,
                   char *err, size_t errlen);

#endif
