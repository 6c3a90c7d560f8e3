/* fuzz_ptxreads.c: libFuzzer target for the parameter analysis of
 * ptxreads.c, on every entry of the module. */
#include "ptx.h"
#include "ptxreads.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gt_ptx_module m;
    char err[128];
    if (gt_ptx_parse((const char *)data, size, &m, err, sizeof err) != 0)
        return 0;
    for (size_t i = 0; i < m.nfuncs; i++) {
        const struct gt_ptx_func *f = &m.funcs[i];
        unsigned char *reads = f->is_entry ? malloc(f->nparams + 1) : NULL;
        if (reads)
            gt_ptxreads((const char *)data, size, f->name, f->nparams, reads, err, sizeof err);
        free(reads);
    }
    gt_ptx_free(&m);
    return 0;
}
