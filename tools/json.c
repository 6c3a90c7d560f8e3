/* json.c: writing JSON text.
 *
 * Names in device code are bytes, not necessarily UTF-8: anything outside
 * printable ASCII is escaped, so the output always parses. */
#include "json.h"

/* `s` as a quoted JSON string; NULL as null. */
void gt_json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    putc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            putc('\\', f);
            putc(*p, f);
        } else if (*p == '\n') {
            fputs("\\n", f);
        } else if (*p == '\t') {
            fputs("\\t", f);
        } else if (*p < 0x20 || *p >= 0x7f) {
            fprintf(f, "\\u%04x", *p);
        } else {
            putc(*p, f);
        }
    }
    putc('"', f);
}
