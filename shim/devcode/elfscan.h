/* elfscan.h: the fatbins embedded in a host file (see elfscan.c). */
#ifndef GT_ELFSCAN_H
#define GT_ELFSCAN_H

#include <stddef.h>

struct gt_elfscan_fatbin {
    size_t offset, size;    /* in the file */
    char section[32];       /* the section it lies in, "" when the file has none */
    int wrapper;            /* version of the runtime wrapper that registers it; 0: none does */
};

struct gt_elfscan {
    struct gt_elfscan_fatbin *fatbins;
    size_t n, cap;
    unsigned wrappers[3];   /* runtime wrappers by version (index 0: other versions) */
    int elf_type;           /* ET_EXEC, ET_DYN, ET_REL; 0 for a file scanned as raw bytes */
    int has_interp;         /* names a program interpreter: an executable, even as ET_DYN */
};

int gt_elfscan(const unsigned char *file, size_t size, struct gt_elfscan *s, char *err, size_t errlen);
int gt_elfscan_raw(const unsigned char *data, size_t size, struct gt_elfscan *s, char *err, size_t errlen);
void gt_elfscan_free(struct gt_elfscan *s);
int gt_elfscan_is_host_elf(const unsigned char *file, size_t size);

#endif
