/* decompress.h: inflating compressed fatbin entries (see decompress.c). */
#ifndef GT_DECOMPRESS_H
#define GT_DECOMPRESS_H

#include "fatbin.h"

#include <stddef.h>

#define GT_DECOMPRESS_MAX ((size_t)1 << 30) /* no entry inflates to more than 1 GiB */

int gt_decompress_entry(const struct gt_fatbin_entry *e, const unsigned char **out, size_t *out_size,
                        unsigned char **owned, char *err, size_t errlen);

#endif
