/* inspect.h: the model behind `gputune inspect` (see inspect.c, inspect_out.c). */
#ifndef GT_INSPECT_H
#define GT_INSPECT_H

#include "devcode.h"

#include <stdio.h>

/* One build of a kernel: SASS for an architecture, or PTX for a target. */
struct gt_inspect_build {
    int arch;
    char suffix;
    size_t entry;                          /* in the file's devcode */
    const struct gt_cubin *cubin;          /* SASS */
    const struct gt_cubin_kernel *kernel;
    const struct gt_ptx_module *ptx;       /* PTX */
    const struct gt_ptx_func *func;
};

/* A kernel of one container: all its builds. */
struct gt_inspect_kernel {
    const char *name;                      /* mangled */
    char *demangled;
    size_t container;
    struct gt_inspect_build *sass, *ptx;
    unsigned nsass, nptx, capsass, capptx;
};

struct gt_inspect_file {
    const char *path;
    const unsigned char *map;
    size_t size;
    struct gt_devcode dc;
    struct gt_inspect_kernel *kernels;
    size_t nkernels, capkernels;
    size_t failed;                         /* entries that could not be decoded */
    char error[256];                       /* why the file could not be read at all */
};

struct gt_inspect_options {
    int json, wide, jobs;
    int arch;                              /* the device the tuning column is for; 0: any */
};

int gt_inspect_main(int argc, char **argv);
void gt_inspect_table(FILE *out, const struct gt_inspect_file *f, const struct gt_inspect_options *o);
void gt_inspect_json(FILE *out, const struct gt_inspect_file *f, const struct gt_inspect_options *o);
const struct gt_inspect_build *gt_inspect_best_sass(const struct gt_inspect_kernel *k);
void gt_inspect_tuning(const struct gt_inspect_file *f, const struct gt_inspect_kernel *k, int device, char *buf,
                       size_t len);

#endif
