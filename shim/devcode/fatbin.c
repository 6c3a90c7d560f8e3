/* fatbin.c: the containers nvcc puts device code in.
 *
 * A fatbin is a 16-byte header (magic, version, header size, size of what
 * follows) and a run of entries, each a 64-byte-or-longer header and its
 * payload: PTX text, an ELF cubin or NVVM IR, for one architecture, possibly
 * LZ4- or ZSTD-compressed (decompress.c inflates them).  Every read is
 * bounded by the size the caller vouches for, so a damaged container yields
 * an error, never a stray read.
 *
 * Entry header, as nvcc 12 and 13 write it (offsets in bytes):
 *    0 u16 kind            4 u32 header size      8 u64 payload size (padded)
 *   16 u32 compressed size (exact; the payload is padded to 8 bytes)
 *   24 u16 minor, 26 u16 major version (PTX ISA or ELF format)
 *   28 u32 architecture   40 u64 flags            56 u64 uncompressed size
 *   64 u32 offset, 68 u32 size of the options (JIT options for PTX), when
 *      the header is longer than 64 bytes. */
#include "fatbin.h"

#include <stdio.h>
#include <string.h>

#define ENTRY_MIN_HEADER 64
#define PRELINKED_MAX 65536 /* sanity bound on a version-2 wrapper's list */

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

static void read_options(const unsigned char *h, uint32_t header, struct gt_fatbin_entry *e)
{
    e->options = NULL;
    e->options_size = 0;
    if (header < 72)
        return;
    uint32_t off = rd32(h + 64), len = rd32(h + 68);
    if (len == 0 || off < 72 || off > header || len > header - off)
        return;
    e->options = (const char *)h + off;
    e->options_size = len;
    while (e->options_size && e->options[e->options_size - 1] == '\0')
        e->options_size--;
}

static void read_compression(const unsigned char *h, struct gt_fatbin_entry *e)
{
    e->compressed_size = e->uncompressed_size = 0;
    if (!(e->flags & (GT_FATBIN_FLAG_LZ4 | GT_FATBIN_FLAG_ZSTD)))
        return;
    size_t exact = rd32(h + 16);
    /* Writers before CUDA 12 left the exact size out; the stream then runs
     * to the end of the padded payload. */
    e->compressed_size = exact && exact <= e->size ? exact : e->size;
    e->uncompressed_size = (size_t)rd64(h + 56);
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
    if (off > total || total - off < ENTRY_MIN_HEADER)
        return -1;
    const unsigned char *h = fb + off;
    uint32_t header = rd32(h + 4);
    uint64_t payload = rd64(h + 8);
    if (header < ENTRY_MIN_HEADER || header > total - off || payload > total - off - header)
        return -1;
    e->kind = rd16(h);
    e->version = rd16(h + 26) * 100 + rd16(h + 24);
    e->arch = (int)rd32(h + 28);
    e->flags = rd64(h + 40);
    e->suffix = (e->flags & GT_FATBIN_FLAG_ARCH_A) ? 'a' : (e->flags & GT_FATBIN_FLAG_ARCH_F) ? 'f' : 0;
    e->data = h + header;
    e->size = (size_t)payload;
    e->offset = off;
    read_compression(h, e);
    read_options(h, header, e);
    *offset = off + header + (size_t)payload;
    return 1;
}

const char *gt_fatbin_kind_name(int kind)
{
    switch (kind) {
    case GT_FATBIN_PTX:
        return "ptx";
    case GT_FATBIN_ELF:
        return "elf";
    case GT_FATBIN_NVVM:
        return "nvvm";
    case GT_FATBIN_LTOIR:
        return "ltoir";
    default:
        return "unknown";
    }
}

/* "sm_90a", "compute_100f": prefix, architecture, suffix.  Returns what
 * snprintf returns. */
int gt_fatbin_arch_name(char *buf, size_t len, const char *prefix, int arch, char suffix)
{
    if (suffix)
        return snprintf(buf, len, "%s_%d%c", prefix, arch, suffix);
    return snprintf(buf, len, "%s_%d", prefix, arch);
}

/* The fatbins a wrapper the runtime registered stands for, in memory the
 * process owns: its own, then for version 2 those of the objects it was
 * device-linked from (they carry the PTX; the linked fatbin only SASS).
 * Fills at most `max` and returns how many there are. */
size_t gt_fatbin_wrapper_fatbins(const struct gt_fatbin_wrapper *w, const unsigned char **out, size_t max)
{
    if (w->magic != GT_FATBIN_WRAPPER_MAGIC || !w->data)
        return 0;
    size_t n = 0;
    if (n < max)
        out[n] = w->data;
    n++;
    if (w->version != 2 || !w->filename_or_fatbins)
        return n;
    const unsigned char *const *list = w->filename_or_fatbins;
    for (size_t i = 0; i < PRELINKED_MAX && list[i]; i++, n++) {
        if (n < max)
            out[n] = list[i];
    }
    return n;
}
