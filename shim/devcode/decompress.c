/* decompress.c: inflating compressed fatbin entries.
 *
 * nvcc compresses PTX (and, with -Xfatbin -compress-all, cubins) with ZSTD
 * since CUDA 12.8 and with LZ4 before, or with -compress-mode=speed.  The
 * entry header states both sizes; the output must come out exactly as long
 * as stated.  Stated sizes are checked against what each codec can reach
 * from the input before anything is allocated, so a forged header cannot
 * make a small input claim gigabytes. */
#include "decompress.h"
#include "alloc.h"
#include "errmsg.h"

#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

#define LZ4_MAX_RATIO 256   /* an LZ4 block cannot expand more than ~255 times */
#define ZSTD_MAX_RATIO 4096 /* beyond what cubins and PTX reach; guards forged sizes */

static int plausible(size_t in, size_t out, size_t ratio)
{
    return out > 0 && out <= GT_DECOMPRESS_MAX && out / ratio <= in;
}

static int inflate_lz4(const unsigned char *in, size_t in_size, unsigned char *out, size_t out_size)
{
    if (in_size > (size_t)LZ4_MAX_INPUT_SIZE || out_size > (size_t)INT32_MAX)
        return -1;
    int n = LZ4_decompress_safe((const char *)in, (char *)out, (int)in_size, (int)out_size);
    return n >= 0 && (size_t)n == out_size ? 0 : -1;
}

static int inflate_zstd(const unsigned char *in, size_t in_size, unsigned char *out, size_t out_size)
{
    /* The stream may be followed by padding when the exact size is unknown. */
    size_t frame = ZSTD_findFrameCompressedSize(in, in_size);
    if (ZSTD_isError(frame))
        return -1;
    unsigned long long stated = ZSTD_getFrameContentSize(in, frame);
    if (stated != ZSTD_CONTENTSIZE_UNKNOWN && stated != out_size)
        return -1;
    size_t n = ZSTD_decompress(out, out_size, in, frame);
    return !ZSTD_isError(n) && n == out_size ? 0 : -1;
}

/* The payload of an entry as its consumer reads it: *out points into the
 * entry when it is stored plain, or to a buffer returned in *owned (for the
 * caller to free) when it had to be inflated.  A terminating NUL follows an
 * inflated payload, so PTX can be read as a string either way once checked. */
int gt_decompress_entry(const struct gt_fatbin_entry *e, const unsigned char **out, size_t *out_size,
                        unsigned char **owned, char *err, size_t errlen)
{
    *owned = NULL;
    int lz4 = (e->flags & GT_FATBIN_FLAG_LZ4) != 0, zstd = (e->flags & GT_FATBIN_FLAG_ZSTD) != 0;
    if (!lz4 && !zstd) {
        *out = e->data;
        *out_size = e->size;
        return 0;
    }
    if (lz4 && zstd)
        return gt_errf(err, errlen, "entry claims both LZ4 and ZSTD compression");
    size_t in = e->compressed_size, n = e->uncompressed_size;
    if (!plausible(in, n, lz4 ? LZ4_MAX_RATIO : ZSTD_MAX_RATIO))
        return gt_errf(err, errlen, "implausible sizes: %zu bytes said to inflate to %zu", in, n);
    unsigned char *buf = gt_malloc(n + 1);
    if (!buf)
        return gt_errf(err, errlen, "out of memory inflating %zu bytes", n);
    int r = lz4 ? inflate_lz4(e->data, in, buf, n) : inflate_zstd(e->data, in, buf, n);
    if (r != 0) {
        free(buf);
        return gt_errf(err, errlen, "corrupt %s stream", lz4 ? "LZ4" : "ZSTD");
    }
    buf[n] = '\0';
    *out = *owned = buf;
    *out_size = n;
    return 0;
}
