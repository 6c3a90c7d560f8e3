/* store.h: compiled code on disk, named by what it was compiled from (see store.c). */
#ifndef GT_STORE_H
#define GT_STORE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct gt_key {
    uint64_t a, b;
};

struct gt_store {
    char dir[PATH_MAX]; /* .../cubins */
};

struct gt_key gt_key_of(const void *data, size_t size);
void gt_key_text(struct gt_key k, char out[33]);
int gt_key_parse(const char *text, struct gt_key *k);
int gt_store_default_root(const char *dir, char *out, size_t cap);
int gt_store_open(struct gt_store *s, const char *root, char *err, size_t errlen);
int gt_store_get(const struct gt_store *s, struct gt_key k, const char *ext, unsigned char **data, size_t *size);
int gt_store_put(const struct gt_store *s, struct gt_key k, const char *ext, const void *data, size_t size,
                 char *err, size_t errlen);
int gt_dir_check_private(const char *path, char *err, size_t errlen);

#endif
