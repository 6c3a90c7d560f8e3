/* utf8.c: telling well-formed UTF-8 from other bytes.
 *
 * Kernel names and paths are bytes: usually ASCII, sometimes UTF-8 (a
 * program in a user's home directory), now and then neither (a Latin-1
 * file name, a name cut inside a character).  What the shim and the tool
 * write for other programs (JSON, SVG) must be UTF-8 to parse at all, so
 * the writers keep each well-formed character as it is and put U+FFFD in
 * place of anything else, one per maximal ill-formed part as Unicode
 * (chapter 3, "U+FFFD Substitution of Maximal Subparts") and the WHATWG
 * decoder do.  Well-formed is RFC 3629's: no overlong forms, no
 * surrogates, nothing past U+10FFFF. */
#include "utf8.h"

int gt_utf8_next(const char *s, size_t *len)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned char lead = p[0], lo = 0x80, hi = 0xbf;
    size_t more;
    if (lead < 0x80) {
        *len = 1;
        return 1;
    }
    if (lead >= 0xc2 && lead <= 0xdf) {
        more = 1;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        more = 2;
        lo = lead == 0xe0 ? 0xa0 : 0x80; /* shorter forms are overlong */
        hi = lead == 0xed ? 0x9f : 0xbf; /* past it, surrogates */
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        more = 3;
        lo = lead == 0xf0 ? 0x90 : 0x80;
        hi = lead == 0xf4 ? 0x8f : 0xbf; /* past it, above U+10FFFF */
    } else {
        *len = 1; /* a continuation byte alone, or a lead byte never used */
        return 0;
    }
    for (size_t i = 1; i <= more; i++, lo = 0x80, hi = 0xbf)
        if (p[i] < lo || p[i] > hi) { /* the terminating NUL stops it too */
            *len = i;
            return 0;
        }
    *len = more + 1;
    return 1;
}
