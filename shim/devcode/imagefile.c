/* imagefile.c: the images a file holds, as the shim names them.
 *
 * A cache entry names the image its kernel came from by a content hash
 * (image.c: gt_image_hash) and the file that held it: a file the
 * application loaded (hashed as the shim read it: its bytes and a NUL), or
 * the executable or library whose data held a fatbin (hashed as the fatbin
 * alone).  `gputune cache prune --missing-images` asks here whether the
 * file still holds that image: a deleted file holds nothing, a rebuilt
 * program holds other fatbins. */
#include "imagefile.h"
#include "alloc.h"
#include "arena.h"
#include "elfscan.h"
#include "errmsg.h"
#include "hash.h"
#include "readfd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The whole file and a NUL after it, as the shim reads a file it loads;
 * NULL with errno, 0 when it is not a regular file. */
static unsigned char *read_whole(int fd, size_t *size)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return NULL;
    if (!S_ISREG(st.st_mode)) {
        errno = 0; /* not an error of the system's */
        return NULL;
    }
    return gt_read_fd(fd, (size_t)st.st_size, size);
}

static int add(struct gt_imagefile *f, size_t *cap, uint64_t hash)
{
    if (gt_grow((void **)&f->hashes, cap, f->n + 1, sizeof *f->hashes) != 0)
        return -1;
    f->hashes[f->n++] = hash;
    return 0;
}

/* The hashes of the images `path` holds into f: READ; GONE when there is
 * no such file; FAILED with err when it cannot be read. */
enum gt_imagefile_status gt_imagefile_read(const char *path, struct gt_imagefile *f, char *err, size_t errlen)
{
    *f = (struct gt_imagefile){0};
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
        return GT_IMAGEFILE_GONE;
    size_t size = 0, cap = 0;
    unsigned char *data = fd >= 0 ? read_whole(fd, &size) : NULL;
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (!data) {
        gt_errf(err, errlen, "cannot read %s: %s", path, e ? strerror(e) : "not a regular file");
        return GT_IMAGEFILE_FAILED;
    }
    struct gt_elfscan s;
    int r = gt_elfscan_is_host_elf(data, size) ? gt_elfscan(data, size, &s, err, errlen)
                                               : gt_elfscan_raw(data, size, &s, err, errlen);
    if (r != 0) /* a damaged ELF file: its bytes as a whole may still be the image */
        memset(&s, 0, sizeof s);
    r = size ? add(f, &cap, gt_hash64(data, size + 1)) : 0;
    for (size_t i = 0; r == 0 && i < s.n; i++)
        r = add(f, &cap, gt_hash64(data + s.fatbins[i].offset, s.fatbins[i].size));
    gt_elfscan_free(&s);
    free(data);
    if (r != 0) {
        gt_imagefile_free(f);
        gt_errf(err, errlen, "out of memory reading %s", path);
        return GT_IMAGEFILE_FAILED;
    }
    return GT_IMAGEFILE_READ;
}

int gt_imagefile_holds(const struct gt_imagefile *f, uint64_t hash)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->hashes[i] == hash)
            return 1;
    return 0;
}

void gt_imagefile_free(struct gt_imagefile *f)
{
    free(f->hashes);
    *f = (struct gt_imagefile){0};
}
