/* modvars.c: the module-scope variables a kernel uses.
 *
 * A variant has its own copies of the __device__ and __constant__
 * variables of its module, and a trial must restore those the kernel may
 * write: both need the names of the variables a kernel reaches.  They come
 * from the code itself: the cubin for the device when it holds one (its
 * relocations say which variables each kernel touches), else its PTX (which
 * says the same of each entry and what it calls).  When the code cannot
 * tell, every variable of the module counts. */
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

/* The variables `kernel` uses in code (a cubin, PTX or fatbin) as the
 * driver would load it on a device of architecture `arch`.  Returns 0 with
 * *out (free with gt_modvars_free) and *n, or -1 if the code cannot be read. */
int gt_modvars(const unsigned char *code, size_t size, const char *kernel, int arch, struct gt_modvar **out, int *n)
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
