/* json.c: JSON strings that always parse.
 *
 * Names in device code and the paths of files are bytes, not necessarily
 * UTF-8, and JSON text must be (RFC 8259, section 8.1).  A string is
 * written as UTF-8: well-formed characters as they are, so that a reader
 * gets back the name it would print; the quote, the backslash and the
 * control characters escaped; and each ill-formed part (utf8.c) as U+FFFD,
 * which is the one change a reader can see. */
#include "json.h"
#include "utf8.h"

static void put_escaped(FILE *f, unsigned char c)
{
    switch (c) {
    case '"':
        fputs("\\\"", f);
        break;
    case '\\':
        fputs("\\\\", f);
        break;
    case '\n':
        fputs("\\n", f);
        break;
    case '\t':
        fputs("\\t", f);
        break;
    default:
        if (c < 0x20 || c == 0x7f) /* DEL may stand as it is, but no one wants it raw */
            fprintf(f, "\\u%04x", c);
        else
            putc(c, f);
    }
}

void gt_json_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    putc('"', f);
    for (size_t len; *s; s += len) {
        int ok = gt_utf8_next(s, &len);
        if (!ok)
            fputs(GT_UTF8_REPLACEMENT, f);
        else if (len == 1)
            put_escaped(f, (unsigned char)*s);
        else
            fwrite(s, 1, len, f);
    }
    putc('"', f);
}
