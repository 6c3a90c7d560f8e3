/* map.h: pointer-keyed hash map with lock-free lookups (see map.c). */
#ifndef GT_MAP_H
#define GT_MAP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct gt_map_table;

struct gt_map {
    struct gt_map_table *_Atomic table;
    pthread_mutex_t lock;          /* serializes writers */
    struct gt_map_table *retired;  /* old tables readers may still hold */
};

void gt_map_init(struct gt_map *m);
void gt_map_destroy(struct gt_map *m);
void *gt_map_get(struct gt_map *m, uintptr_t key);
int gt_map_put(struct gt_map *m, uintptr_t key, void *value);
void *gt_map_del(struct gt_map *m, uintptr_t key);
size_t gt_map_count(struct gt_map *m);

#endif
