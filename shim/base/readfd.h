/* readfd.h: a file's bytes read whole (see readfd.c). */
#ifndef GT_READFD_H
#define GT_READFD_H

#include <stddef.h>

void *gt_read_fd(int fd, size_t size, size_t *got);

#endif
