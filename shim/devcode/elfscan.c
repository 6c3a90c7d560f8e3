/* elfscan.c: the fatbins embedded in a host file.
 *
 * nvcc puts the fatbins of an executable or shared library in .nv_fatbin
 * (device-linked code) and __nv_relfatbin (relocatable objects of an -rdc
 * build), and a 24-byte runtime wrapper per fatbin in .nvFatBinSegment.
 * Libraries that load code themselves keep more fatbins wherever they
 * like (cuBLASLt: .cask_resource), so every allocated data section is
 * searched for the fatbin magic, and only what parses as a complete fatbin
 * is kept.  Executable sections are skipped: code is not data.
 *
 * The section headers are read by hand, bounded by the file size, so that
 * a damaged file yields an error instead of a wild read. */
#include "elfscan.h"
#include "alloc.h"
#include "errmsg.h"
#include "fatbin.h"

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WRAPPER_SIZE 24
#define MAX_SECTIONS 65536

static uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* A fatbin whose entries all parse and that holds at least one. */
static int complete_fatbin(const unsigned char *p, size_t size)
{
    struct gt_fatbin_entry e;
    size_t off = 0;
    int r, n = 0;
    while ((r = gt_fatbin_next(p, size, &off, &e)) == 1)
        n++;
    return r == 0 && n > 0;
}

static int add(struct gt_elfscan *s, size_t offset, size_t size, const char *section)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        struct gt_elfscan_fatbin *f = gt_realloc(s->fatbins, cap * sizeof *f);
        if (!f)
            return -1;
        s->fatbins = f;
        s->cap = cap;
    }
    struct gt_elfscan_fatbin *f = &s->fatbins[s->n++];
    f->offset = offset;
    f->size = size;
    f->wrapper = 0;
    snprintf(f->section, sizeof f->section, "%s", section);
    return 0;
}

/* Every complete fatbin in file[start, end). */
static int scan_region(const unsigned char *file, size_t start, size_t end, const char *section,
                       struct gt_elfscan *s)
{
    static const unsigned char magic[4] = {0x50, 0xed, 0x55, 0xba};
    size_t p = start;
    while (p < end) {
        const unsigned char *hit = memmem(file + p, end - p, magic, sizeof magic);
        if (!hit)
            break;
        size_t at = (size_t)(hit - file);
        size_t size = gt_fatbin_size(hit, end - at);
        if (size && complete_fatbin(hit, size)) {
            if (add(s, at, size, section) != 0)
                return -1;
            p = at + size;
        } else {
            p = at + 1;
        }
    }
    return 0;
}

int gt_elfscan_is_host_elf(const unsigned char *file, size_t size)
{
    return size >= sizeof(Elf64_Ehdr) && memcmp(file, ELFMAG, SELFMAG) == 0 &&
           file[EI_CLASS] == ELFCLASS64 && file[EI_DATA] == ELFDATA2LSB;
}

struct sections {
    Elf64_Shdr *sh;         /* a copy: the file's table need not be aligned */
    size_t n;
    const char *names;
    size_t names_size;
};

static int read_sections(const unsigned char *file, size_t size, struct sections *S, char *err, size_t errlen)
{
    Elf64_Ehdr eh;
    memcpy(&eh, file, sizeof eh);
    S->n = eh.e_shnum;
    if (S->n == 0)
        return 0;
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || S->n > MAX_SECTIONS || eh.e_shoff > size ||
        S->n * sizeof(Elf64_Shdr) > size - eh.e_shoff)
        return gt_errf(err, errlen, "section headers lie outside the file");
    S->sh = gt_malloc(S->n * sizeof *S->sh);
    if (!S->sh)
        return gt_errf(err, errlen, "out of memory");
    memcpy(S->sh, file + eh.e_shoff, S->n * sizeof *S->sh);
    if (eh.e_shstrndx < S->n) {
        const Elf64_Shdr *st = &S->sh[eh.e_shstrndx];
        if (st->sh_offset <= size && st->sh_size <= size - st->sh_offset) {
            S->names = (const char *)file + st->sh_offset;
            S->names_size = st->sh_size;
        }
    }
    return 0;
}

/* A section's name, copied so that an unterminated table cannot overrun. */
static void section_name(const struct sections *S, const Elf64_Shdr *sh, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!S->names || sh->sh_name >= S->names_size)
        return;
    size_t avail = S->names_size - sh->sh_name;
    size_t n = strnlen(S->names + sh->sh_name, avail < len - 1 ? avail : len - 1);
    memcpy(buf, S->names + sh->sh_name, n);
    buf[n] = '\0';
}

static int scan_sections(const unsigned char *file, size_t size, const struct sections *S, struct gt_elfscan *s)
{
    char name[32];
    for (size_t i = 0; i < S->n; i++) {
        const Elf64_Shdr *sh = &S->sh[i];
        if (sh->sh_type == SHT_NOBITS || sh->sh_type == SHT_NULL || (sh->sh_flags & SHF_EXECINSTR) ||
            sh->sh_offset > size || sh->sh_size > size - sh->sh_offset || sh->sh_size < 16)
            continue;
        if (sh->sh_type != SHT_PROGBITS && !(sh->sh_flags & SHF_ALLOC))
            continue;
        section_name(S, sh, name, sizeof name);
        if (scan_region(file, sh->sh_offset, sh->sh_offset + sh->sh_size, name, s) != 0)
            return -1;
    }
    return 0;
}

/* The file offset of a virtual address, through the section holding it. */
static int address_offset(const struct sections *S, size_t size, uint64_t va, size_t *off)
{
    for (size_t i = 0; i < S->n; i++) {
        const Elf64_Shdr *sh = &S->sh[i];
        if (sh->sh_type == SHT_NOBITS || !(sh->sh_flags & SHF_ALLOC) || va < sh->sh_addr ||
            va - sh->sh_addr >= sh->sh_size)
            continue;
        uint64_t o = sh->sh_offset + (va - sh->sh_addr);
        if (o >= size)
            return -1;
        *off = (size_t)o;
        return 0;
    }
    return -1;
}

static void mark_wrapped(struct gt_elfscan *s, size_t off, int version)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->fatbins[i].offset == off)
            s->fatbins[i].wrapper = version;
}

/* The runtime's wrappers: which fatbins it registers, and how. */
static void read_wrappers(const unsigned char *file, size_t size, const struct sections *S, struct gt_elfscan *s)
{
    char name[32];
    for (size_t i = 0; i < S->n; i++) {
        const Elf64_Shdr *sh = &S->sh[i];
        section_name(S, sh, name, sizeof name);
        if (strcmp(name, ".nvFatBinSegment") != 0 || sh->sh_type == SHT_NOBITS || sh->sh_offset > size ||
            sh->sh_size > size - sh->sh_offset)
            continue;
        for (uint64_t o = 0; o + WRAPPER_SIZE <= sh->sh_size; o += WRAPPER_SIZE) {
            const unsigned char *w = file + sh->sh_offset + o;
            if (rd32(w) != GT_FATBIN_WRAPPER_MAGIC)
                continue;
            uint32_t version = rd32(w + 4);
            s->wrappers[version <= 2 ? version : 0]++;
            size_t off;
            uint64_t va = rd64(w + 8);
            if (va && address_offset(S, size, va, &off) == 0)
                mark_wrapped(s, off, (int)version);
        }
    }
}

static int has_interp(const unsigned char *file, size_t size, const Elf64_Ehdr *eh)
{
    if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > size ||
        (size_t)eh->e_phnum * sizeof(Elf64_Phdr) > size - eh->e_phoff)
        return 0;
    for (size_t i = 0; i < eh->e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, file + eh->e_phoff + i * sizeof ph, sizeof ph);
        if (ph.p_type == PT_INTERP)
            return 1;
    }
    return 0;
}

/* Finds the fatbins of a 64-bit little-endian ELF file.  A file without
 * section headers is searched whole. */
int gt_elfscan(const unsigned char *file, size_t size, struct gt_elfscan *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (!gt_elfscan_is_host_elf(file, size))
        return gt_errf(err, errlen, "not a 64-bit little-endian ELF file");
    Elf64_Ehdr eh;
    memcpy(&eh, file, sizeof eh);
    s->elf_type = eh.e_type;
    s->has_interp = has_interp(file, size, &eh);
    struct sections S = {0};
    int r = read_sections(file, size, &S, err, errlen);
    if (r == 0) {
        r = S.n ? scan_sections(file, size, &S, s) : scan_region(file, 0, size, "", s);
        if (r != 0)
            gt_errf(err, errlen, "out of memory");
        else
            read_wrappers(file, size, &S, s);
    }
    free(S.sh);
    if (r != 0)
        gt_elfscan_free(s);
    return r;
}

/* Finds the fatbins in bytes of any other kind (an archive, a blob). */
int gt_elfscan_raw(const unsigned char *data, size_t size, struct gt_elfscan *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (scan_region(data, 0, size, "", s) != 0) {
        gt_elfscan_free(s);
        return gt_errf(err, errlen, "out of memory");
    }
    return 0;
}

void gt_elfscan_free(struct gt_elfscan *s)
{
    free(s->fatbins);
    memset(s, 0, sizeof *s);
}
