/* errmsg.c: an error message written into the caller's buffer.
 *
 * Library code reports a failure once, to its caller, as text in a buffer
 * the caller owns; the caller decides whether and how to say it.  Both
 * functions return -1 so that `return gt_errf(err, len, ...)` ends a
 * failing function. */
#include "errmsg.h"

#include <stdio.h>

int gt_verrf(char *err, size_t errlen, const char *fmt, va_list ap)
{
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    return -1;
}

int gt_errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gt_verrf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}
