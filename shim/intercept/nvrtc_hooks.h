/* nvrtc_hooks.h: sources the application compiles with NVRTC (see nvrtc_hooks.c). */
#ifndef GT_NVRTC_HOOKS_H
#define GT_NVRTC_HOOKS_H

#include <stddef.h>
#include <stdint.h>

struct gt_nvrtc_program {
    char *name;          /* the name given to nvrtcCreateProgram */
    char *source;
    int nheaders;
    char **headers, **include_names;
    int noptions;        /* of the last nvrtcCompileProgram */
    char **options;
    int nnames;          /* name expressions (template instantiations) it asked for */
    char **names;
    struct gt_nvrtc_program *next;
};

void *gt_nvrtc_symbol(const char *name, void *p);
const struct gt_nvrtc_program *gt_nvrtc_find(uint64_t hash, size_t size);

#endif
