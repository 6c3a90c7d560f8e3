/* imageptx.h: the PTX of a loaded image that best fits a device (see imageptx.c). */
#ifndef GT_IMAGEPTX_H
#define GT_IMAGEPTX_H

#include "image.h"

#include <stddef.h>

struct gt_image_ptx {
    char *text;          /* NUL-terminated, owned */
    size_t size;         /* strlen(text) */
    int arch;            /* PTX target: 90 for compute_90 */
    char suffix;         /* 'a', 'f' or 0 */
    int version;         /* PTX ISA, major * 100 + minor */
    char *options;       /* JIT options recorded with it ("--compile-only" under -rdc), or NULL */
    int relocatable;     /* from an object of a device-linked program: link it with the others */
};

int gt_image_ptx(const struct gt_image *img, int device_arch, struct gt_image_ptx **out, size_t *n, char *err,
                 size_t errlen);
int gt_image_ptx_defining(const struct gt_image *img, int device_arch, const char *kernel, struct gt_image_ptx **out,
                          char *err, size_t errlen);
void gt_image_ptx_free(struct gt_image_ptx *p, size_t n);
int gt_image_ptx_fits(int ptx_arch, char suffix, int device_arch);

#endif
