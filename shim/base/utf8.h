/* utf8.h: telling well-formed UTF-8 from other bytes (see utf8.c). */
#ifndef GT_UTF8_H
#define GT_UTF8_H

#include <stddef.h>

/* The sequence at s (s not at its terminating NUL): 1 when it is one
 * well-formed character, 0 when not; *len is the bytes it takes, or those of
 * the ill-formed part to replace with one U+FFFD. */
int gt_utf8_next(const char *s, size_t *len);

/* U+FFFD REPLACEMENT CHARACTER, as UTF-8. */
#define GT_UTF8_REPLACEMENT "\xef\xbf\xbd"

#endif
