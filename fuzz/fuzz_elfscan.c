/* fuzz_elfscan.c: libFuzzer target for finding fatbins in host files. */
#include "elfscan.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gt_elfscan s;
    char err[128];
    if (gt_elfscan(data, size, &s, err, sizeof err) == 0)
        gt_elfscan_free(&s);
    if (gt_elfscan_raw(data, size, &s, err, sizeof err) == 0)
        gt_elfscan_free(&s);
    return 0;
}
