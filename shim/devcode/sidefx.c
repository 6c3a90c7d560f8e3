/* sidefx.c: what a kernel does that outlives its run.
 *
 * Tune mode runs a kernel many times for one launch of the application and
 * restores the memory it writes between runs.  Some effects no restore
 * undoes: device printf (vprintf) prints once per run, a failing assert
 * (__assertfail) prints and leaves the context unusable, and the device
 * heap (malloc, free) leaks or runs out.  All are calls to functions the
 * driver provides, which the code names: in PTX, `.extern .func`
 * declarations the kernel calls, itself or through its functions; in a
 * cubin, undefined symbols, per kernel where the cubin says which kernel
 * calls which (cubin.c), else for the whole module.  The code read is what
 * the device runs: its SASS when the image holds some, else its PTX. */
#include "sidefx.h"
#include "alloc.h"
#include "devcode.h"
#include "errmsg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The functions whose effects trials would repeat: bit i of a result is targets[i]. */
static const struct {
    const char *name, *what;
} targets[] = {
    {"vprintf", "device printf"},
    {"__assertfail", "device assert"},
    {"malloc", "device malloc"},
    {"__nv_aligned_device_malloc", "device malloc"},
    {"__cuda_syscall_aligned_malloc", "device malloc"}, /* __nv_aligned_device_malloc in PTX */
    {"free", "device free"},
};
#define NTARGETS (sizeof targets / sizeof *targets)

static unsigned effect_of(const char *name)
{
    for (size_t i = 0; i < NTARGETS; i++)
        if (strcmp(targets[i].name, name) == 0)
            return 1u << i;
    return 0;
}

/* The kernel's calls, or the whole module's when it does not define the kernel. */
static int from_ptx(const struct gt_ptx_module *m, const char *kernel, unsigned *found)
{
    const struct gt_ptx_func *f = gt_ptx_find(m, kernel);
    unsigned char *in = gt_calloc(m->nfuncs ? m->nfuncs : 1, 1);
    if (!in || (f && gt_ptx_reach(m, (size_t)(f - m->funcs), in) != 0)) {
        free(in);
        return -1;
    }
    for (size_t i = 0; i < m->nfuncs; i++)
        if ((!f || in[i]) && m->funcs[i].is_extern)
            *found |= effect_of(m->funcs[i].name);
    free(in);
    return 0;
}

static void from_cubin(const struct gt_cubin *c, const char *kernel, unsigned *found)
{
    const struct gt_cubin_kernel *k = gt_cubin_find(c, kernel);
    int known = k && k->externs_known;
    for (size_t i = 0; i < (known ? k->nexterns : c->nexterns); i++)
        *found |= effect_of(c->externs[known ? k->externs[i] : i]);
}

/* Which of the functions above `kernel` can call in one decoded entry: a
 * bit each in *found, which gt_sidefx_describe names.  -1 when out of memory. */
int gt_sidefx_entry(const struct gt_devcode_entry *e, const char *kernel, unsigned *found)
{
    *found = 0;
    if (e->fe.kind == GT_FATBIN_ELF) {
        from_cubin(&e->cubin, kernel, found);
        return 0;
    }
    return from_ptx(&e->ptx, kernel, found);
}

/* The same in code (a cubin, PTX or fatbin) as a device of architecture
 * `arch` loads it.  Returns 0, or -1 with a message in err when the code
 * cannot be read. */
int gt_sidefx(const unsigned char *code, size_t size, const char *kernel, int arch, unsigned *found, char *err,
              size_t errlen)
{
    struct gt_devcode dc;
    *found = 0;
    if (gt_devcode_open(code, size, &dc, err, errlen) != 0)
        return -1;
    size_t pick = gt_devcode_pick(&dc, arch);
    int rc = 0;
    if (pick == dc.nentries) {
        rc = gt_errf(err, errlen, "it holds neither SASS for sm_%d nor PTX", arch);
    } else {
        gt_devcode_decode(&dc, pick);
        const struct gt_devcode_entry *e = &dc.entries[pick];
        if (e->status != 1)
            rc = gt_errf(err, errlen, "%s", e->error);
        else if (gt_sidefx_entry(e, kernel, found) != 0)
            rc = gt_errf(err, errlen, "out of memory");
    }
    gt_devcode_free(&dc);
    return rc;
}

/* "vprintf (device printf), malloc (device malloc) and free (device free)" */
void gt_sidefx_describe(unsigned found, char *buf, size_t len)
{
    int total = 0, done = 0;
    for (size_t i = 0; i < NTARGETS; i++)
        total += (found >> i) & 1;
    size_t n = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < NTARGETS && n < len; i++) {
        if (!((found >> i) & 1))
            continue;
        done++;
        const char *sep = done == 1 ? "" : done == total ? " and " : ", ";
        int w = snprintf(buf + n, len - n, "%s%s (%s)", sep, targets[i].name, targets[i].what);
        n += w > 0 ? (size_t)w : 0;
    }
}
