/* cachewrite.h: this process's writes to its cache file, held back while they cannot be made (see cachewrite.c). */
#ifndef GT_CACHEWRITE_H
#define GT_CACHEWRITE_H

#include "cachefile.h"

void gt_cachewrite_save(const char *path, const char *binary, const struct gt_centry *add, size_t n);
void gt_cachewrite_exit(const char *path, const char *binary);

#endif
