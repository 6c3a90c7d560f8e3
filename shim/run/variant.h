/* variant.h: a variant loaded into one context (see variant.c). */
#ifndef GT_VARIANT_H
#define GT_VARIANT_H

#include "driver.h"
#include "registry.h"
#include "space.h"

/* A module-scope variable the variant has its own copy of. */
struct gt_var_pair {
    CUdeviceptr orig, copy;
    size_t size;
    int writable; /* .global: the kernel may write it; .const: it may not */
};

struct gt_variant {
    CUcontext ctx;
    unsigned block[3];   /* the block it was specialized for; 0 when not specialized */
    CUmodule module;
    CUfunction fn;
    struct gt_var_pair *vars;
    int nvars;
    struct gt_variant *next;
};

int gt_variant_load(struct gt_variant *v, const unsigned char *code, size_t size, const char *ptx, const char *kernel,
                    const struct gt_handle *orig, const struct gt_knobs *knobs, int arch, char *err, size_t errlen);
void gt_variant_mirror(const struct gt_variant *v, CUstream s, int per_thread, int back);
struct gt_call;
CUresult gt_variant_launch(const struct gt_variant *v, const struct gt_call *c, const struct gt_geom *g);
void gt_variant_unload(struct gt_variant *v);
CUmodule gt_variant_original(const struct gt_handle *orig);

#endif
