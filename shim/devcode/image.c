/* image.c: what a loaded image is and where it came from.
 *
 * The driver accepts PTX text, cubins, fatbins and the runtime's fatbin
 * wrapper through one `const void *image`.  This file tells them apart,
 * measures them (the shim keeps a copy of images that live in the
 * application's heap) and summarizes what they hold: the PTX target and the
 * SASS architectures.  It is only ever handed images the driver has just
 * accepted, so their headers can be trusted to be readable; sizes read from
 * them are still bounded before use. */
#include "image.h"
#include "fatbin.h"
#include "hash.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#define ELF_SANE_LIMIT ((size_t)1 << 34) /* no cubin is 16 GiB */

static const char *const format_names[] = {"unknown", "fatbin", "fatbin", "cubin", "ptx"};
static const char *const origin_names[] = {"runtime", "file", "memory", "nvrtc"};

const char *gt_format_name(enum gt_format f)
{
    return format_names[f];
}

const char *gt_origin_name(enum gt_origin o)
{
    return origin_names[o];
}

enum gt_format gt_image_format(const void *p)
{
    uint32_t magic;
    memcpy(&magic, p, 4);
    if (magic == GT_FATBIN_WRAPPER_MAGIC)
        return GT_FMT_WRAPPER;
    if (magic == GT_FATBIN_MAGIC)
        return GT_FMT_FATBIN;
    if (memcmp(p, ELFMAG, SELFMAG) == 0)
        return GT_FMT_CUBIN;
    return GT_FMT_PTX;
}

/* The end of the furthest thing an ELF header and its tables point at. */
static size_t elf_size(const unsigned char *p)
{
    Elf64_Ehdr eh;
    memcpy(&eh, p, sizeof eh);
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr))
        return 0;
    size_t end = (size_t)eh.e_shoff + (size_t)eh.e_shnum * sizeof(Elf64_Shdr);
    if (eh.e_shoff > ELF_SANE_LIMIT || end > ELF_SANE_LIMIT)
        return 0;
    size_t ph_end = (size_t)eh.e_phoff + (size_t)eh.e_phnum * eh.e_phentsize;
    if (ph_end > end && ph_end < ELF_SANE_LIMIT)
        end = ph_end;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, p + eh.e_shoff + i * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_NOBITS && sh.sh_offset < ELF_SANE_LIMIT && sh.sh_size < ELF_SANE_LIMIT &&
            sh.sh_offset + sh.sh_size > end)
            end = (size_t)(sh.sh_offset + sh.sh_size);
    }
    return end;
}

/* Bytes readable at an image the driver accepted; for a wrapper, the size of
 * the wrapper itself (its fatbin is measured by gt_image_container). */
size_t gt_image_size(const void *p, enum gt_format format)
{
    switch (format) {
    case GT_FMT_WRAPPER:
        return sizeof(struct gt_fatbin_wrapper);
    case GT_FMT_FATBIN:
        return gt_fatbin_size(p, SIZE_MAX);
    case GT_FMT_CUBIN:
        return elf_size(p);
    case GT_FMT_PTX:
        return strlen(p) + 1;
    default:
        return 0;
    }
}

/* The fatbin inside an image, or NULL if it has none. */
const unsigned char *gt_image_container(const struct gt_image *img, size_t *size)
{
    const unsigned char *fb = img->bytes;
    if (img->format == GT_FMT_WRAPPER)
        fb = ((const struct gt_fatbin_wrapper *)(const void *)img->bytes)->data;
    else if (img->format != GT_FMT_FATBIN)
        return NULL;
    *size = gt_fatbin_size(fb, SIZE_MAX);
    return *size ? fb : NULL;
}

/* The device code of an image as the parsers take it: its fatbin, or the
 * cubin or PTX itself; NULL when it holds none. */
const unsigned char *gt_image_code(const struct gt_image *img, size_t *size)
{
    if (img->format == GT_FMT_CUBIN || img->format == GT_FMT_PTX) {
        *size = img->size;
        return img->bytes;
    }
    return gt_image_container(img, size);
}

/* The PTX text the image's code was compiled from, when it is at hand
 * whole: the image itself, or a cubin's PTX found beside it (Triton's). */
const char *gt_image_ptx_text(const struct gt_image *img)
{
    return img->format == GT_FMT_PTX ? (const char *)img->bytes
           : img->format == GT_FMT_CUBIN ? img->sibling_ptx
                                         : NULL;
}

static int ptx_target(const unsigned char *text, size_t size)
{
    const char *end = (const char *)text + size;
    for (const char *p = (const char *)text; p + 12 < end; p++) {
        if (*p == '.' && strncmp(p, ".target", 7) == 0) {
            p += 7;
            while (p < end && (*p == ' ' || *p == '\t'))
                p++;
            if (p + 3 < end && strncmp(p, "sm_", 3) == 0)
                return atoi(p + 3);
            return 0;
        }
    }
    return 0;
}

static int cubin_arch(const unsigned char *p)
{
    Elf64_Ehdr eh;
    memcpy(&eh, p, sizeof eh);
    /* From ELF ABI version 8 on, the architecture sits in bits 8..15 of
     * e_flags; before, in bits 0..7. */
    if (eh.e_ident[EI_ABIVERSION] >= 8)
        return (int)((eh.e_flags >> 8) & 0xff);
    return (int)(eh.e_flags & 0xff);
}

void gt_image_describe(struct gt_image *img)
{
    img->ptx_arch = img->sass_arch = 0;
    if (img->format == GT_FMT_PTX) {
        img->ptx_arch = ptx_target(img->bytes, img->size);
        return;
    }
    if (img->format == GT_FMT_CUBIN) {
        img->sass_arch = cubin_arch(img->bytes);
        return;
    }
    size_t size, off = 0;
    const unsigned char *fb = gt_image_container(img, &size);
    struct gt_fatbin_entry e;
    while (fb && gt_fatbin_next(fb, size, &off, &e) == 1) {
        if (e.kind == GT_FATBIN_PTX && e.arch > img->ptx_arch)
            img->ptx_arch = e.arch;
        if (e.kind == GT_FATBIN_ELF && e.arch > img->sass_arch)
            img->sass_arch = e.arch;
    }
}

/* The content hash that names the image in the cache file: of its fatbin
 * for the runtime's wrappers, of its bytes otherwise.  Computed once. */
uint64_t gt_image_hash(struct gt_image *img)
{
    if (!img->hash && img->bytes) {
        size_t size = img->size;
        const unsigned char *data = img->format == GT_FMT_WRAPPER ? gt_image_container(img, &size) : img->bytes;
        img->hash = data ? gt_hash64(data, size) : 0;
    }
    return img->hash;
}
