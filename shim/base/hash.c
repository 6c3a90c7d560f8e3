/* hash.c: a fast 64-bit content hash for images and compiled code.
 *
 * Not cryptographic: it names images (dedupe, cache keys, the on-disk store)
 * where the size and the kernel name are compared too.  Eight bytes a step,
 * so that hashing a large fatbin costs little next to loading it. */
#include "hash.h"

#include <string.h>

uint64_t gt_hash_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

uint64_t gt_hash64(const void *data, size_t size)
{
    return gt_hash64_seeded(data, size, 0x243f6a8885a308d3ULL);
}

uint64_t gt_hash64_seeded(const void *data, size_t size, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = seed ^ (uint64_t)size;
    size_t i = 0;
    for (; i + 8 <= size; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ gt_hash_mix(w)) * 0x9e3779b97f4a7c15ULL;
        h = (h << 29) | (h >> 35);
    }
    uint64_t tail = 0;
    memcpy(&tail, p + i, size - i);
    return gt_hash_mix(h ^ gt_hash_mix(tail ^ 0x1234567ULL));
}
