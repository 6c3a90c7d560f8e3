/* modvars.c: the module-scope variables a kernel uses.
 *
 * A variant has its own copies of the __device__ and __constant__
 * variables of its module, and a trial must restore those the kernel may
 * write: both need the names of the variables a kernel reaches.  They come
 * from the code itself: the cubin for the device when it holds one (its
 * relocations say which variables each kernel touches), else its PTX (which
 * says the same of each entry and what it calls).  A linked cubin names no
 * variables per kernel: there the PTX it was compiled from, when known,
 * says (Triton's cubins hold a string for the math library's
 * configuration query that no kernel reads; counting it would copy it
 * around every launch of a variant).  When nothing can tell, every
 * variable of the module counts. */
#include "modvars.h"
#include "alloc.h"
#include "devcode.h"

#include <stdlib.h>
#include <string.h>

static int add(struct gt_modvar *v, int *n, const char *name, int writable)
{
    if (!(v[*n].name = gt_strdup(name)))
        return -1;
    v[(*n)++].writable = writable;
    return 0;
}

static int from_cubin(const struct gt_cubin *c, const char *kernel, struct gt_modvar *v, int *n)
{
    const struct gt_cubin_kernel *k = gt_cubin_find(c, kernel);
    size_t count = k && k->vars_known ? k->nvars : c->nvars;
    for (size_t i = 0; i < count; i++) {
        const struct gt_cubin_var *var = &c->vars[k && k->vars_known ? k->vars[i] : i];
        if (add(v, n, var->name, var->space == GT_CUBIN_GLOBAL) != 0)
            return -1;
    }
    return 0;
}

static int from_ptx(const struct gt_ptx_module *m, const char *kernel, struct gt_modvar *v, int *n)
{
    const struct gt_ptx_func *f = gt_ptx_find(m, kernel);
    for (size_t i = 0; i < (f ? f->nvars : m->nvars); i++) {
        const struct gt_ptx_var *var = &m->vars[f ? f->vars[i] : i];
        if (!var->is_extern && add(v, n, var->name, var->space == GT_PTX_GLOBAL) != 0)
            return -1;
    }
    return 0;
}

/* From `ptx`, the text a cubin was compiled from, when it defines kernel:
 * 1 with *out and *n, else 0. */
static int from_source(const char *ptx, const char *kernel, struct gt_modvar **out, int *n)
{
    struct gt_ptx_module m;
    char err[128];
    if (!ptx || gt_ptx_parse(ptx, strlen(ptx), &m, err, sizeof err) != 0)
        return 0;
    const struct gt_ptx_func *f = gt_ptx_find(&m, kernel);
    int found = f && f->is_entry;
    if (found && f->nvars && !(*out = gt_calloc(f->nvars, sizeof **out)))
        found = 0;
    if (found && from_ptx(&m, kernel, *out, n) != 0) {
        gt_modvars_free(*out, *n);
        *out = NULL;
        *n = 0;
        found = 0;
    }
    gt_ptx_free(&m);
    return found;
}

static int cubin_knows(const struct gt_cubin *c, const char *kernel)
{
    const struct gt_cubin_kernel *k = gt_cubin_find(c, kernel);
    return k && k->vars_known;
}

/* The variables `kernel` uses in code (a cubin, PTX or fatbin) as the
 * driver would load it on a device of architecture `arch`; `ptx`, when not
 * NULL, is the PTX text the code was compiled from.  Returns 0 with *out
 * (free with gt_modvars_free) and *n, or -1 if the code cannot be read. */
int gt_modvars(const unsigned char *code, size_t size, const char *ptx, const char *kernel, int arch,
               struct gt_modvar **out, int *n)
{
    struct gt_devcode dc;
    char err[128];
    *out = NULL;
    *n = 0;
    if (gt_devcode_open(code, size, &dc, err, sizeof err) != 0)
        return -1;
    size_t pick = gt_devcode_pick(&dc, arch);
    int rc = 0;
    if (pick < dc.nentries) {
        struct gt_devcode_entry *e = &dc.entries[pick];
        gt_devcode_decode(&dc, pick);
        size_t cap = e->status != 1 ? 0 : e->fe.kind == GT_FATBIN_ELF ? e->cubin.nvars : e->ptx.nvars;
        if (cap && e->fe.kind == GT_FATBIN_ELF && !cubin_knows(&e->cubin, kernel) && from_source(ptx, kernel, out, n))
            cap = 0;
        if (cap && !(*out = gt_calloc(cap, sizeof **out)))
            rc = -1;
        else if (cap && e->fe.kind == GT_FATBIN_ELF)
            rc = from_cubin(&e->cubin, kernel, *out, n);
        else if (cap)
            rc = from_ptx(&e->ptx, kernel, *out, n);
    }
    gt_devcode_free(&dc);
    if (rc != 0) {
        gt_modvars_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

void gt_modvars_free(struct gt_modvar *v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i].name);
    free(v);
}
