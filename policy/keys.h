/* keys.h: between the policy file reader and the key interpreter (keys.c). */
#ifndef GT_KEYS_H
#define GT_KEYS_H

#include "policy.h"

/* One key of a section as read.  A value continued on indented lines is
 * one text, its lines joined by '\n'; map says where each piece came from. */
struct gt_raw {
    char *key;
    struct gt_loc keyloc;
    char *value;
    struct gt_srcmap map;
    int broken;   /* part of it could not be read: already reported */
};

/* Interprets a section's keys into sec; returns the number of messages added. */
size_t gt_keys_apply(struct gt_section *sec, int is_defaults, const char *dir, const struct gt_raw *raw, size_t n,
                     struct gt_diags *d);

void gt_settings_init(struct gt_settings *st);
void gt_settings_clear(struct gt_settings *st);
/* Fills what dst leaves unset from src. */
int gt_settings_merge(struct gt_settings *dst, const struct gt_settings *src);
void gt_section_free(struct gt_section *sec);

#endif
