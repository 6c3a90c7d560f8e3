/* fatbin.c: the containers nvcc puts device code in.
 *
 * A fatbin is a 16-byte header (magic, version, header size, size of what
 * follows) and a run of entries, each a 64-byte-or-longer header and its
 * payload: PTX text or an ELF cubin, for one architecture, possibly LZ4- or
 * ZSTD-compressed.  Every read is bounded by the size the caller vouches
 * for, so a damaged container yields an error, never a stray read. */
#include "fatbin.h"

#include <string.h>

static uint16_t rd16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* Size of the fatbin at `fb` (header included), or 0 if it is not one or
 * claims more than `avail` bytes. */
size_t gt_fatbin_size(const unsigned char *fb, size_t avail)
{
    if (avail < 16 || rd32(fb) != GT_FATBIN_MAGIC)
        return 0;
    size_t header = rd16(fb + 6);
    uint64_t body = rd64(fb + 8);
    if (header < 16 || header > avail || body > avail - header)
        return 0;
    return header + (size_t)body;
}

/* Reads the entry at *offset (start with 0) and advances *offset.
 * Returns 1 for an entry, 0 at the end, -1 on a malformed container. */
int gt_fatbin_next(const unsigned char *fb, size_t size, size_t *offset, struct gt_fatbin_entry *e)
{
    size_t total = gt_fatbin_size(fb, size);
    if (!total)
        return -1;
    size_t off = *offset ? *offset : rd16(fb + 6);
    if (off == total)
        return 0;
    if (off > total || total - off < 64)
        return -1;
    const unsigned char *h = fb + off;
    uint32_t header = rd32(h + 4);
    uint64_t payload = rd64(h + 8);
    if (header < 64 || header > total - off || payload > total - off - header)
        return -1;
    e->kind = rd16(h);
    e->arch = (int)rd32(h + 28);
    e->flags = rd64(h + 40);
    e->data = h + header;
    e->size = (size_t)payload;
    e->uncompressed_size = (e->flags & (GT_FATBIN_FLAG_LZ4 | GT_FATBIN_FLAG_ZSTD)) ? (size_t)rd64(h + 56) : 0;
    *offset = off + header + (size_t)payload;
    return 1;
}
