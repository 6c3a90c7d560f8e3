/* fuzz_ptx.c: libFuzzer target for the PTX parser. */
#include "ptx.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gt_ptx_module m;
    char err[128], suffix;
    int version, target;
    gt_ptx_header((const char *)data, size, &version, &target, &suffix);
    if (gt_ptx_parse((const char *)data, size, &m, err, sizeof err) == 0)
        gt_ptx_free(&m);
    return 0;
}
