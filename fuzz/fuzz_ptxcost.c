/* fuzz_ptxcost.c: libFuzzer target for the PTX interpreter of ptxcost.c,
 * on the module's first entry with every parameter's bytes at hand. */
#include "ptx.h"
#include "ptxcost.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Up to eight parameters of up to 512 bytes, each 8 bytes holding 3:
     * small trip counts, so that loops finish. */
    static const uint64_t bytes[64] = {[0 ... 63] = 3};
    static const void *const args[8] = {bytes, bytes, bytes, bytes, bytes, bytes, bytes, bytes};
    struct gt_ptx_module m;
    char err[128];
    if (gt_ptx_parse((const char *)data, size, &m, err, sizeof err) != 0)
        return 0;
    const struct gt_ptx_func *f = NULL;
    for (size_t i = 0; i < m.nfuncs && !f; i++)
        if (m.funcs[i].is_entry)
            f = &m.funcs[i];
    unsigned nargs = f && f->nparams <= 8 ? f->nparams : 0; /* 0 for more: an error */
    for (unsigned i = 0; i < nargs; i++)
        if (f->params[i].size > sizeof bytes)
            nargs = 0;
    struct gt_ptxcost_launch l = {args, nargs, {32, 2, 1}, {4, 1, 1}, 100000};
    struct gt_ptxcost c;
    gt_ptxcost((const char *)data, size, f ? f->name : NULL, &l, &c, err, sizeof err);
    gt_ptx_free(&m);
    return 0;
}
