/* modvars.h: the module-scope variables a kernel uses (see modvars.c). */
#ifndef GT_MODVARS_H
#define GT_MODVARS_H

#include <stddef.h>

struct gt_modvar {
    char *name;
    int writable; /* .global (a __device__ variable); 0 for .const */
};

int gt_modvars(const unsigned char *code, size_t size, const char *ptx, const char *kernel, int arch,
               struct gt_modvar **out, int *n);
void gt_modvars_free(struct gt_modvar *v, int n);

#endif
