/* recipe.h: how to rebuild one kernel with another configuration (see recipe.c). */
#ifndef GT_RECIPE_H
#define GT_RECIPE_H

#include "jit.h"
#include "space.h"

#include <stdint.h>

struct gt_image;

/* A program the application compiled with NVRTC (recorded by track/rtcprog.c). */
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

struct gt_recipe {
    enum gt_jit_input input;
    char *text;          /* CUDA source or PTX, NUL-terminated */
    char *name;          /* file or program name */
    char **options;      /* NVRTC options every variant gets (source only) */
    int noptions;
    char **link_options; /* nvJitLink options every variant gets */
    int nlink_options;
    int nheaders;
    char **headers, **include_names;
    char *kernel;        /* mangled name of the kernel in the built cubin */
    int nnames;          /* name expressions to instantiate (the application's NVRTC program's) */
    char **names;
    char from[160];      /* what it is built from, for the log */
    int arch;            /* 90 for sm_90 */
};

/* One configuration's compilation: the job and the strings it points at. */
struct gt_variant_job {
    struct gt_jit_job job;
    char **own;          /* strings made for this configuration */
    int nown;
    const char **options, **link_options;
    const char **headers, **include_names; /* when the job adds one */
};

int gt_recipe_from_file(struct gt_recipe *r, const char *path, char *const *options, int noptions,
                        char *const *link_options, int nlink_options, const char *kernel, int arch, char *err,
                        size_t errlen);
int gt_recipe_from_nvrtc(struct gt_recipe *r, const struct gt_nvrtc_program *p, const char *kernel, int arch,
                         char *err, size_t errlen);
int gt_recipe_from_image(struct gt_recipe *r, const struct gt_image *img, const char *kernel, int arch, char *err,
                         size_t errlen);
void gt_recipe_free(struct gt_recipe *r);

int gt_recipe_job(const struct gt_recipe *r, const struct gt_space *s, const uint32_t *cfg, const unsigned block[3],
                  const char *name_expr, struct gt_variant_job *vj);
int gt_recipe_watchdog(const struct gt_recipe *r, int mode, struct gt_variant_job *vj);
void gt_variant_job_free(struct gt_variant_job *vj);

/* Where a kernel parameter lies in the argument buffer. */
struct gt_param {
    uint32_t offset, size;
};

int gt_recipe_check(const struct gt_jit_job *job, const char *kernel, const struct gt_param *params, int nparams,
                    char *err, size_t errlen);

#endif
