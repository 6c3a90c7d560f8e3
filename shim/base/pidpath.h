/* pidpath.h: the path of a file each process writes apart (see pidpath.c). */
#ifndef GT_PIDPATH_H
#define GT_PIDPATH_H

#include <stddef.h>

void gt_pidpath(const char *path, char *out, size_t cap);

#endif
