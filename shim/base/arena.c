/* arena.c: bump allocation for parse results freed all at once, and the
 * growable arrays parsers fill.
 *
 * A parsed module owns thousands of small names and tables; keeping them in
 * a few large blocks makes parsing cheaper and freeing a parse one call,
 * whichever error path it left by. */
#include "arena.h"
#include "alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_SIZE ((size_t)64 << 10)
#define ALIGN 16

struct block {
    struct block *next;
    size_t used, size;
    _Alignas(ALIGN) unsigned char data[];
};

struct gt_arena {
    struct block *head;
};

struct gt_arena *gt_arena_new(void)
{
    return gt_calloc(1, sizeof(struct gt_arena));
}

static struct block *new_block(struct gt_arena *a, size_t need)
{
    size_t size = need > BLOCK_SIZE ? need : BLOCK_SIZE;
    struct block *b = gt_malloc(sizeof *b + size);
    if (!b)
        return NULL;
    b->used = 0;
    b->size = size;
    b->next = a->head;
    a->head = b;
    return b;
}

/* Zeroed memory aligned for any type, or NULL when out of memory. */
void *gt_arena_alloc(struct gt_arena *a, size_t size)
{
    if (size > SIZE_MAX - ALIGN)
        return NULL;
    size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    struct block *b = a->head;
    if (!b || b->size - b->used < size) {
        b = new_block(a, size);
        if (!b)
            return NULL;
    }
    void *p = b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

char *gt_arena_strndup(struct gt_arena *a, const char *s, size_t n)
{
    if (n == SIZE_MAX)
        return NULL;
    char *d = gt_arena_alloc(a, n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* A copy of size bytes (src may be NULL when size is 0). */
void *gt_arena_memdup(struct gt_arena *a, const void *src, size_t size)
{
    void *d = gt_arena_alloc(a, size);
    if (d && size)
        memcpy(d, src, size);
    return d;
}

void gt_arena_free(struct gt_arena *a)
{
    if (!a)
        return;
    for (struct block *b = a->head, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(a);
}

int gt_grow(void **v, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t cap2 = *cap ? *cap * 2 : 16;
    while (cap2 < need)
        cap2 *= 2;
    void *p = cap2 > SIZE_MAX / elem ? NULL : gt_realloc(*v, cap2 * elem);
    if (!p)
        return -1;
    *v = p;
    *cap = cap2;
    return 0;
}
