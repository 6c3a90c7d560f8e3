/* arena.h: bump allocation for parse results freed all at once, and the
 * parsers' growable arrays (see arena.c). */
#ifndef GT_ARENA_H
#define GT_ARENA_H

#include <stddef.h>

struct gt_arena;

struct gt_arena *gt_arena_new(void);
void *gt_arena_alloc(struct gt_arena *a, size_t size);
char *gt_arena_strndup(struct gt_arena *a, const char *s, size_t n);
void *gt_arena_memdup(struct gt_arena *a, const void *src, size_t size);
void gt_arena_free(struct gt_arena *a);

/* Makes *v (of *cap elements of elem bytes) hold at least need, doubling:
 * 0, or -1 without memory (*v unchanged). */
int gt_grow(void **v, size_t *cap, size_t need, size_t elem);

#endif
