/* fatbin.h: the containers nvcc puts device code in (see fatbin.c). */
#ifndef GT_FATBIN_H
#define GT_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#define GT_FATBIN_WRAPPER_MAGIC 0x466243B1u /* __fatBinC_Wrapper_t, from the runtime */
#define GT_FATBIN_MAGIC 0xBA55ED50u

/* Entry kinds; 4 and 8 hold NVVM IR for link-time optimization. */
enum gt_fatbin_kind { GT_FATBIN_PTX = 1, GT_FATBIN_ELF = 2, GT_FATBIN_NVVM = 4, GT_FATBIN_LTOIR = 8 };

#define GT_FATBIN_FLAG_64BIT 0x1u
#define GT_FATBIN_FLAG_DEBUG 0x2u
#define GT_FATBIN_FLAG_LZ4 0x2000u
#define GT_FATBIN_FLAG_ZSTD 0x8000u
#define GT_FATBIN_FLAG_ARCH_A 0x100000u /* sm_90a: this exact architecture only */
#define GT_FATBIN_FLAG_ARCH_F 0x200000u /* sm_100f: the architecture's family */

struct gt_fatbin_entry {
    int kind;                  /* GT_FATBIN_PTX, GT_FATBIN_ELF, or other */
    int arch;                  /* e.g. 90 for sm_90 / compute_90 */
    char suffix;               /* 'a', 'f' or 0: see GT_FATBIN_FLAG_ARCH_* */
    int version;               /* PTX ISA or ELF format, major * 100 + minor (900: PTX 9.0) */
    uint64_t flags;
    const unsigned char *data; /* payload, compressed if flags say so */
    size_t size;               /* payload bytes stored */
    size_t compressed_size;    /* exact bytes of the compressed stream, <= size; 0 when not compressed */
    size_t uncompressed_size;  /* 0 when the entry is not compressed */
    const char *options;       /* JIT options of a PTX entry (not terminated), or NULL */
    size_t options_size;
    size_t offset;             /* of the entry header from the start of the fatbin */
};

/* The runtime's wrapper around a fatbin. */
struct gt_fatbin_wrapper {
    uint32_t magic;
    uint32_t version;          /* 1, or 2 for a device-linked (-rdc) image */
    const unsigned char *data;
    const void *filename_or_fatbins; /* version 2: NULL-terminated list of the prelinked objects' fatbins */
};

size_t gt_fatbin_size(const unsigned char *fb, size_t avail);
int gt_fatbin_next(const unsigned char *fb, size_t size, size_t *offset, struct gt_fatbin_entry *e);
const char *gt_fatbin_kind_name(int kind);
int gt_fatbin_arch_name(char *buf, size_t len, const char *prefix, int arch, char suffix);
size_t gt_fatbin_wrapper_fatbins(const struct gt_fatbin_wrapper *w, const unsigned char **out, size_t max);

#endif
