/* json.h: writing JSON text (see json.c). */
#ifndef GT_JSON_H
#define GT_JSON_H

#include <stdio.h>

void gt_json_str(FILE *f, const char *s);

#endif
