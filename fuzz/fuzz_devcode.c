/* fuzz_devcode.c: libFuzzer target for the whole path from file bytes to
 * parsed kernels, as gputune inspect takes it. */
#include "devcode.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gt_devcode dc;
    char err[128];
    if (gt_devcode_open(data, size, &dc, err, sizeof err) != 0)
        return 0;
    for (size_t i = 0; i < dc.nentries; i++)
        gt_devcode_decode(&dc, i);
    gt_devcode_free(&dc);
    return 0;
}
