/* strtab.h: a string-keyed table of indices for the parsers (see strtab.c). */
#ifndef GT_STRTAB_H
#define GT_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct gt_strtab_slot {
    const char *s;      /* not copied: the parsed text outlives the table */
    uint32_t n, hash, gen;
    uint32_t val;
};

/* Zero-initialized: empty. */
struct gt_strtab {
    struct gt_strtab_slot *slots;
    size_t cap, count;
    uint32_t gen;
};

uint32_t gt_strtab_hash(const char *s, size_t n);
/* 1 and *val for the key s[0..n) of hash h, 0 when absent. */
int gt_strtab_get(struct gt_strtab *t, const char *s, size_t n, uint32_t h, uint32_t *val);
/* Sets the key's value: 0, or -1 without memory. */
int gt_strtab_put(struct gt_strtab *t, const char *s, size_t n, uint32_t h, uint32_t val);
/* Empties the table in O(1), keeping its memory. */
void gt_strtab_clear(struct gt_strtab *t);
void gt_strtab_free(struct gt_strtab *t);

#endif
