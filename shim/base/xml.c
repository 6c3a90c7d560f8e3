/* xml.c: text in XML that always parses.
 *
 * The SVG plots the shim writes carry kernel names, which hold '<', '>'
 * and '&' (templates, operators) and are bytes rather than UTF-8.  Text is
 * written as UTF-8: well-formed characters as they are, the five markup
 * characters as entities, and in place of what XML 1.0 cannot hold at all,
 * not even as a reference (control characters other than tab, newline and
 * carriage return; U+FFFE and U+FFFF) and of every ill-formed part
 * (utf8.c), U+FFFD. */
#include "xml.h"
#include "utf8.h"

#include <string.h>

/* A character of len bytes at s that XML 1.0 forbids. */
static int forbidden(const char *s, size_t len)
{
    unsigned char c = (unsigned char)s[0];
    if (len == 1)
        return c < 0x20 && c != '\t' && c != '\n' && c != '\r';
    return len == 3 && (!memcmp(s, "\xef\xbf\xbe", 3) || !memcmp(s, "\xef\xbf\xbf", 3));
}

static const char *entity(char c)
{
    switch (c) {
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '&':
        return "&amp;";
    case '"':
        return "&quot;";
    case '\'':
        return "&apos;";
    }
    return NULL;
}

void gt_xml_text(FILE *f, const char *s)
{
    for (size_t len; s && *s; s += len) {
        int ok = gt_utf8_next(s, &len);
        const char *e = ok && len == 1 ? entity(*s) : NULL;
        if (!ok || forbidden(s, len))
            fputs(GT_UTF8_REPLACEMENT, f);
        else if (e)
            fputs(e, f);
        else
            fwrite(s, 1, len, f);
    }
}
