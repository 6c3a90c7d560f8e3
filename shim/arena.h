/* arena.h: bump allocation for parse results freed all at once (see arena.c). */
#ifndef GT_ARENA_H
#define GT_ARENA_H

#include <stddef.h>

struct gt_arena;

struct gt_arena *gt_arena_new(void);
void *gt_arena_alloc(struct gt_arena *a, size_t size);
char *gt_arena_strndup(struct gt_arena *a, const char *s, size_t n);
void *gt_arena_memdup(struct gt_arena *a, const void *src, size_t size);
void gt_arena_free(struct gt_arena *a);

#endif
