/* devcode.h: all the device code a file holds, parsed (see devcode.c). */
#ifndef GT_DEVCODE_H
#define GT_DEVCODE_H

#include "cubin.h"
#include "fatbin.h"
#include "ptx.h"

#include <stddef.h>

enum gt_devcode_format { GT_DC_HOST_ELF, GT_DC_FATBIN, GT_DC_CUBIN, GT_DC_PTX, GT_DC_ARCHIVE };

/* A fatbin, or the file itself when it is a bare cubin or PTX. */
struct gt_devcode_container {
    const unsigned char *data;
    size_t size, offset;       /* offset in the file */
    char section[32];          /* host ELF section it lies in */
    int wrapper;               /* version of the runtime wrapper registering it, 0 if none */
    size_t first, count;       /* its entries in gt_devcode.entries */
};

struct gt_devcode_entry {
    size_t container;
    struct gt_fatbin_entry fe; /* where it is stored; data/size cover a bare file */
    int status;                /* 0: not decoded, 1: decoded, -1: failed (see error) */
    char error[128];
    size_t size;               /* bytes once inflated */
    struct gt_cubin cubin;     /* GT_FATBIN_ELF, once decoded */
    struct gt_ptx_module ptx;  /* GT_FATBIN_PTX, once decoded */
};

struct gt_devcode {
    enum gt_devcode_format format;
    int elf_type;              /* of a host ELF */
    int has_interp;            /* a host ELF that is an executable */
    unsigned wrappers[3];      /* runtime wrappers by version (0: other) */
    struct gt_devcode_container *containers;
    size_t ncontainers;
    struct gt_devcode_entry *entries;
    size_t nentries;
};

int gt_devcode_open(const unsigned char *data, size_t size, struct gt_devcode *dc, char *err, size_t errlen);
void gt_devcode_decode(struct gt_devcode *dc, size_t i);
size_t gt_devcode_pick(const struct gt_devcode *dc, int arch);
int gt_devcode_sass_runs(int arch, char suffix, int device);
void gt_devcode_free(struct gt_devcode *dc);
const char *gt_devcode_format_name(const struct gt_devcode *dc);
int gt_devcode_looks_like_ptx(const unsigned char *data, size_t size);

#endif
