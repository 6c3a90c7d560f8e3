/* json.h: JSON strings that always parse (see json.c). */
#ifndef GT_JSON_H
#define GT_JSON_H

#include <stdio.h>

/* s as a quoted JSON string; NULL as null. */
void gt_json_string(FILE *f, const char *s);

#endif
