/* strtab.c: a string-keyed table of indices, open addressing with FNV-1a
 * hashes computed once by the caller (a name is often looked up in several
 * tables).  Slots of older generations count as empty, so a per-function
 * table is cleared by bumping the generation instead of wiping it. */
#include "strtab.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

uint32_t gt_strtab_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static struct gt_strtab_slot *find(struct gt_strtab *t, const char *s, size_t n, uint32_t h)
{
    if (!t->cap)
        return NULL;
    size_t mask = t->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        struct gt_strtab_slot *sl = &t->slots[i];
        if (sl->gen != t->gen)
            return sl;
        if (sl->hash == h && sl->n == n && memcmp(sl->s, s, n) == 0)
            return sl;
    }
}

int gt_strtab_get(struct gt_strtab *t, const char *s, size_t n, uint32_t h, uint32_t *val)
{
    struct gt_strtab_slot *sl = find(t, s, n, h);
    if (!sl || sl->gen != t->gen)
        return 0;
    *val = sl->val;
    return 1;
}

static int resize(struct gt_strtab *t)
{
    size_t cap = t->cap ? t->cap * 2 : 64;
    struct gt_strtab_slot *old = t->slots;
    size_t oldcap = t->cap;
    uint32_t gen = t->gen;
    t->slots = gt_calloc(cap, sizeof *t->slots);
    if (!t->slots) {
        t->slots = old;
        return -1;
    }
    t->cap = cap;
    t->gen = 1;
    for (size_t i = 0; i < oldcap; i++) {
        if (old[i].gen == gen) {
            struct gt_strtab_slot *sl = find(t, old[i].s, old[i].n, old[i].hash);
            *sl = old[i];
            sl->gen = 1;
        }
    }
    free(old);
    return 0;
}

int gt_strtab_put(struct gt_strtab *t, const char *s, size_t n, uint32_t h, uint32_t val)
{
    if ((t->count + 1) * 2 > t->cap && resize(t) != 0)
        return -1;
    struct gt_strtab_slot *sl = find(t, s, n, h);
    if (sl->gen != t->gen)
        t->count++;
    *sl = (struct gt_strtab_slot){s, (uint32_t)n, h, t->gen, val};
    return 0;
}

void gt_strtab_clear(struct gt_strtab *t)
{
    t->gen++;
    t->count = 0;
}

void gt_strtab_free(struct gt_strtab *t)
{
    free(t->slots);
    *t = (struct gt_strtab){0};
}
