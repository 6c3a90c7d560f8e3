/* hash.h: a fast 64-bit content hash for images and compiled code, and its
 * mixing step for values. */
#ifndef GT_HASH_H
#define GT_HASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t gt_hash64(const void *data, size_t size);
uint64_t gt_hash64_seeded(const void *data, size_t size, uint64_t seed);
/* SplitMix64's finalizer: every bit of x reaches every bit of the result. */
uint64_t gt_hash_mix(uint64_t x);

#endif
