/* fuzz_fatbin.c: libFuzzer target for the fatbin entry walker and inflation. */
#include "decompress.h"
#include "fatbin.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gt_fatbin_entry e;
    size_t off = 0;
    char err[128];
    while (gt_fatbin_next(data, size, &off, &e) == 1) {
        const unsigned char *p;
        unsigned char *owned;
        size_t n;
        if (gt_decompress_entry(&e, &p, &n, &owned, err, sizeof err) == 0 && n && p[0] == 0xff && p[n - 1] == 0xff)
            err[0] = 0; /* touch both ends of the payload */
        free(owned);
    }
    return 0;
}
