/* cubin.h: kernels and their resources in a CUDA ELF (see cubin.c). */
#ifndef GT_CUBIN_H
#define GT_CUBIN_H

#include <stddef.h>
#include <stdint.h>

#define GT_EM_CUDA 190

struct gt_cubin_param {
    uint32_t ordinal, offset, size;
};

enum gt_cubin_space { GT_CUBIN_GLOBAL, GT_CUBIN_CONST };

struct gt_cubin_var {
    const char *name;
    enum gt_cubin_space space;
    uint64_t size;
};

struct gt_cubin_kernel {
    const char *name;
    int regs;                  /* -1 when the cubin does not say */
    uint32_t shared;           /* static shared memory, bytes, without what the system reserves */
    uint32_t shared_reserved;  /* bytes of the block's window the system reserves (sm_90 on) */
    uint32_t local;            /* per-thread stack frame, bytes */
    uint32_t max_stack;
    uint32_t const0;           /* constant bank 0: launch constants and parameters */
    uint32_t max_threads[3];   /* __launch_bounds__ / .maxntid, 0 if none */
    uint32_t req_threads[3];   /* .reqntid, 0 if none */
    uint32_t max_regs;         /* .maxnreg or -maxrregcount, 0 if none */
    uint32_t barriers;
    uint32_t param_base;       /* offset of the parameters in bank 0 */
    uint32_t param_bytes;
    struct gt_cubin_param *params; /* sorted by ordinal */
    unsigned nparams;
    unsigned *vars;            /* indices into the cubin's vars known to be used */
    unsigned nvars;
    int vars_known;            /* relocations tell which variables it uses */
    unsigned *externs;         /* indices into the cubin's externs it calls, itself or through what it calls */
    unsigned nexterns;
    int externs_known;         /* the cubin tells which external functions it calls */
};

struct gt_cubin {
    int arch;                  /* 90 for sm_90 */
    char suffix;               /* 'a', 'f' or 0 */
    int relocatable;           /* ET_REL: from -rdc, to be device-linked */
    int abi_version;
    struct gt_cubin_kernel *kernels;
    size_t nkernels;
    size_t nfunctions;         /* defined functions, kernels included */
    struct gt_cubin_var *vars;
    size_t nvars;
    const char **externs;      /* functions called but not defined here: the driver's (vprintf, malloc...) */
    size_t nexterns;
    struct gt_arena *arena;
};

int gt_cubin_parse(const unsigned char *data, size_t size, struct gt_cubin *c, char *err, size_t errlen);
void gt_cubin_free(struct gt_cubin *c);
const struct gt_cubin_kernel *gt_cubin_find(const struct gt_cubin *c, const char *name);
int gt_cubin_arch(const unsigned char *data, size_t size, int *arch);

#endif
