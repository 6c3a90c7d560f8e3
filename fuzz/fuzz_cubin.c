/* fuzz_cubin.c: libFuzzer target for the cubin parser. */
#include "cubin.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gt_cubin c;
    char err[128];
    if (gt_cubin_parse(data, size, &c, err, sizeof err) == 0)
        gt_cubin_free(&c);
    return 0;
}
