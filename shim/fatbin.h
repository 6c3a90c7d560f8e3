/* fatbin.h: the containers nvcc puts device code in (see fatbin.c). */
#ifndef GT_FATBIN_H
#define GT_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#define GT_FATBIN_WRAPPER_MAGIC 0x466243B1u /* __fatBinC_Wrapper_t, from the runtime */
#define GT_FATBIN_MAGIC 0xBA55ED50u

enum gt_fatbin_kind { GT_FATBIN_PTX = 1, GT_FATBIN_ELF = 2 };

#define GT_FATBIN_FLAG_LZ4 0x2000u
#define GT_FATBIN_FLAG_ZSTD 0x8000u

struct gt_fatbin_entry {
    int kind;                  /* GT_FATBIN_PTX, GT_FATBIN_ELF, or other */
    int arch;                  /* e.g. 90 for sm_90 / compute_90 */
    uint64_t flags;
    const unsigned char *data; /* payload, compressed if flags say so */
    size_t size;               /* payload bytes stored */
    size_t uncompressed_size;  /* 0 when the entry is not compressed */
};

/* The runtime's wrapper around a fatbin. */
struct gt_fatbin_wrapper {
    uint32_t magic;
    uint32_t version;
    const unsigned char *data;
    const void *filename_or_fatbins;
};

size_t gt_fatbin_size(const unsigned char *fb, size_t avail);
int gt_fatbin_next(const unsigned char *fb, size_t size, size_t *offset, struct gt_fatbin_entry *e);

#endif
