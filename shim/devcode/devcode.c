/* devcode.c: all the device code a file holds, parsed.
 *
 * One entry point for whatever a user or a loader hands over: a host ELF
 * (executable, shared library, object), a static archive, a fatbin, a
 * cubin or PTX text.  Opening finds the containers and their entries
 * cheaply; decoding an entry (inflating it and parsing the cubin or PTX)
 * is separate so that a caller can spread the expensive part over threads:
 * decoding distinct entries concurrently is safe. */
#include "devcode.h"
#include "alloc.h"
#include "errmsg.h"
#include "decompress.h"
#include "elfscan.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTX_SNIFF 4096

/* Text whose opening stretch is printable and declares a PTX version or target. */
int gt_devcode_looks_like_ptx(const unsigned char *data, size_t size)
{
    size_t n = size < PTX_SNIFF ? size : PTX_SNIFF;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = data[i];
        if (c == 0) {
            n = i;
            break;
        }
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f')
            return 0;
    }
    int version, target;
    char suffix;
    return gt_ptx_header((const char *)data, size, &version, &target, &suffix) == 0 ||
           (n && memmem(data, n, ".version", 8) && memmem(data, n, ".target", 7));
}

static int count_entries(const unsigned char *fb, size_t size, size_t *n)
{
    struct gt_fatbin_entry e;
    size_t off = 0;
    int r;
    *n = 0;
    while ((r = gt_fatbin_next(fb, size, &off, &e)) == 1)
        (*n)++;
    return r;
}

/* Lists the containers found by a scan, then all their entries. */
static int from_scan(struct gt_devcode *dc, const unsigned char *data, const struct gt_elfscan *s, char *err,
                     size_t errlen)
{
    size_t total = 0;
    dc->containers = gt_calloc(s->n ? s->n : 1, sizeof *dc->containers);
    if (!dc->containers)
        return gt_errf(err, errlen, "out of memory");
    for (size_t i = 0; i < s->n; i++) {
        struct gt_devcode_container *c = &dc->containers[i];
        c->data = data + s->fatbins[i].offset;
        c->size = s->fatbins[i].size;
        c->offset = s->fatbins[i].offset;
        c->wrapper = s->fatbins[i].wrapper;
        memcpy(c->section, s->fatbins[i].section, sizeof c->section);
        c->first = total;
        if (count_entries(c->data, c->size, &c->count) != 0)
            return gt_errf(err, errlen, "damaged fatbin at offset %zu", c->offset);
        total += c->count;
    }
    dc->ncontainers = s->n;
    dc->entries = gt_calloc(total ? total : 1, sizeof *dc->entries);
    if (!dc->entries)
        return gt_errf(err, errlen, "out of memory");
    for (size_t i = 0; i < s->n; i++) {
        const struct gt_devcode_container *c = &dc->containers[i];
        size_t off = 0;
        for (size_t j = 0; j < c->count; j++) {
            struct gt_devcode_entry *e = &dc->entries[c->first + j];
            e->container = i;
            if (gt_fatbin_next(c->data, c->size, &off, &e->fe) != 1)
                return gt_errf(err, errlen, "damaged fatbin at offset %zu", c->offset);
        }
    }
    dc->nentries = total;
    return 0;
}

static int scanned(struct gt_devcode *dc, const unsigned char *data, size_t size, int elf, char *err,
                   size_t errlen)
{
    struct gt_elfscan s;
    int r = elf ? gt_elfscan(data, size, &s, err, errlen) : gt_elfscan_raw(data, size, &s, err, errlen);
    if (r != 0)
        return -1;
    dc->elf_type = s.elf_type;
    dc->has_interp = s.has_interp;
    memcpy(dc->wrappers, s.wrappers, sizeof dc->wrappers);
    r = from_scan(dc, data, &s, err, errlen);
    gt_elfscan_free(&s);
    if (r == 0 && dc->ncontainers == 0)
        r = gt_errf(err, errlen, "no CUDA device code (no fatbin found)");
    return r;
}

/* A bare cubin or PTX file: one container, one entry, nothing compressed. */
static int bare(struct gt_devcode *dc, const unsigned char *data, size_t size, int kind, char *err,
                size_t errlen)
{
    dc->containers = gt_calloc(1, sizeof *dc->containers);
    dc->entries = gt_calloc(1, sizeof *dc->entries);
    if (!dc->containers || !dc->entries)
        return gt_errf(err, errlen, "out of memory");
    dc->ncontainers = dc->nentries = 1;
    dc->containers[0] = (struct gt_devcode_container){.data = data, .size = size, .count = 1};
    struct gt_fatbin_entry *fe = &dc->entries[0].fe;
    fe->kind = kind;
    fe->data = data;
    fe->size = size;
    if (kind == GT_FATBIN_ELF) {
        if (gt_cubin_arch(data, size, &fe->arch) != 0)
            return gt_errf(err, errlen, "not a 64-bit little-endian cubin");
    } else {
        gt_ptx_header((const char *)data, size, &fe->version, &fe->arch, &fe->suffix);
    }
    return 0;
}

/* Finds the device code in `data` (which must outlive dc).  Returns -1 with
 * a message when the bytes hold none or are damaged beyond reading. */
int gt_devcode_open(const unsigned char *data, size_t size, struct gt_devcode *dc, char *err, size_t errlen)
{
    memset(dc, 0, sizeof *dc);
    uint32_t magic = 0;
    if (size >= 4)
        memcpy(&magic, data, 4);
    int r;
    if (magic == GT_FATBIN_MAGIC) {
        dc->format = GT_DC_FATBIN;
        r = scanned(dc, data, size, 0, err, errlen);
        if (r == 0 && dc->containers[0].offset != 0)
            r = gt_errf(err, errlen, "damaged fatbin");
    } else if (size >= 20 && memcmp(data, ELFMAG, SELFMAG) == 0 && data[18] == GT_EM_CUDA && data[19] == 0) {
        dc->format = GT_DC_CUBIN;
        r = bare(dc, data, size, GT_FATBIN_ELF, err, errlen);
    } else if (size >= SELFMAG && memcmp(data, ELFMAG, SELFMAG) == 0) {
        dc->format = GT_DC_HOST_ELF;
        r = gt_elfscan_is_host_elf(data, size) ? scanned(dc, data, size, 1, err, errlen)
                                               : gt_errf(err, errlen, "not a 64-bit little-endian ELF file");
    } else if (size >= 8 && memcmp(data, "!<arch>\n", 8) == 0) {
        dc->format = GT_DC_ARCHIVE;
        r = scanned(dc, data, size, 0, err, errlen);
    } else if (gt_devcode_looks_like_ptx(data, size)) {
        dc->format = GT_DC_PTX;
        r = bare(dc, data, size, GT_FATBIN_PTX, err, errlen);
    } else {
        r = gt_errf(err, errlen, "not CUDA device code: no fatbin, cubin, PTX or ELF file");
    }
    if (r != 0)
        gt_devcode_free(dc);
    return r;
}

static void decode_payload(struct gt_devcode_entry *e, const unsigned char *p, size_t n)
{
    if (e->fe.kind == GT_FATBIN_ELF) {
        e->status = gt_cubin_parse(p, n, &e->cubin, e->error, sizeof e->error) == 0 ? 1 : -1;
    } else {
        size_t len = strnlen((const char *)p, n);
        e->status = gt_ptx_parse((const char *)p, len, &e->ptx, e->error, sizeof e->error) == 0 ? 1 : -1;
    }
}

/* Inflates and parses entry i; its status and error say how that went. */
void gt_devcode_decode(struct gt_devcode *dc, size_t i)
{
    struct gt_devcode_entry *e = &dc->entries[i];
    if (e->status)
        return;
    if (e->fe.kind != GT_FATBIN_ELF && e->fe.kind != GT_FATBIN_PTX) {
        /* NVVM IR is listed, not read: its payload need not even be a plain stream. */
        e->size = e->fe.uncompressed_size ? e->fe.uncompressed_size : e->fe.size;
        e->status = 1;
        return;
    }
    const unsigned char *p;
    unsigned char *owned;
    if (gt_decompress_entry(&e->fe, &p, &e->size, &owned, e->error, sizeof e->error) != 0) {
        e->status = -1;
        return;
    }
    decode_payload(e, p, e->size);
    free(owned);
}

/* Whether SASS built for sm_<arch><suffix> runs on a device of architecture
 * `device`: the same major architecture and no newer; an "a" build only on
 * its own architecture. */
int gt_devcode_sass_runs(int arch, char suffix, int device)
{
    if (suffix == 'a')
        return arch == device;
    return arch / 10 == device / 10 && arch <= device;
}

/* The entry a device of architecture `arch` runs: the newest SASS that runs
 * on it, else the first PTX; nentries when there is none. */
size_t gt_devcode_pick(const struct gt_devcode *dc, int arch)
{
    size_t sass = dc->nentries, ptx = dc->nentries;
    for (size_t i = 0; i < dc->nentries; i++) {
        const struct gt_fatbin_entry *fe = &dc->entries[i].fe;
        if (fe->kind == GT_FATBIN_ELF && gt_devcode_sass_runs(fe->arch, fe->suffix, arch) &&
            (sass == dc->nentries || fe->arch > dc->entries[sass].fe.arch))
            sass = i;
        else if (fe->kind == GT_FATBIN_PTX && ptx == dc->nentries)
            ptx = i;
    }
    return sass < dc->nentries ? sass : ptx;
}

void gt_devcode_free(struct gt_devcode *dc)
{
    for (size_t i = 0; i < dc->nentries; i++) {
        gt_cubin_free(&dc->entries[i].cubin);
        gt_ptx_free(&dc->entries[i].ptx);
    }
    free(dc->entries);
    free(dc->containers);
    memset(dc, 0, sizeof *dc);
}

const char *gt_devcode_format_name(const struct gt_devcode *dc)
{
    switch (dc->format) {
    case GT_DC_HOST_ELF:
        if (dc->elf_type == ET_REL)
            return "object file";
        return dc->elf_type == ET_DYN && !dc->has_interp ? "shared library" : "executable";
    case GT_DC_FATBIN:
        return "fatbin";
    case GT_DC_CUBIN:
        return "cubin";
    case GT_DC_PTX:
        return "PTX";
    case GT_DC_ARCHIVE:
        return "static library";
    }
    return "?";
}
