/* imagefile.h: the images a file holds, as the shim names them (see imagefile.c). */
#ifndef GT_IMAGEFILE_H
#define GT_IMAGEFILE_H

#include <stddef.h>
#include <stdint.h>

struct gt_imagefile {
    uint64_t *hashes;
    size_t n;
};

enum gt_imagefile_status { GT_IMAGEFILE_READ, GT_IMAGEFILE_GONE, GT_IMAGEFILE_FAILED };

enum gt_imagefile_status gt_imagefile_read(const char *path, struct gt_imagefile *f, char *err, size_t errlen);
int gt_imagefile_holds(const struct gt_imagefile *f, uint64_t hash);
void gt_imagefile_free(struct gt_imagefile *f);

#endif
