/* fuzz_imageptx.c: libFuzzer target for choosing an image's PTX, on fatbin
 * and PTX images (the formats whose size the registry knows). */
#include "fatbin.h"
#include "imageptx.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    int device = 50 + data[0] % 80;
    data++;
    size--;
    uint32_t magic;
    memcpy(&magic, data, 4);
    struct gt_image img = {0};
    unsigned char *text = NULL;
    if (magic == GT_FATBIN_MAGIC) {
        img.bytes = data;
        img.size = size;
        img.format = GT_FMT_FATBIN;
    } else {
        text = malloc(size + 1);
        if (!text)
            return 0;
        memcpy(text, data, size);
        text[size] = 0;
        img.bytes = text;
        img.size = size + 1;
        img.format = GT_FMT_PTX;
    }
    struct gt_image_ptx *p;
    size_t n;
    char err[128];
    if (gt_image_ptx(&img, device, &p, &n, err, sizeof err) == 0)
        gt_image_ptx_free(p, n);
    free(text);
    return 0;
}
