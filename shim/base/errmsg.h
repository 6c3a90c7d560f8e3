/* errmsg.h: an error message written into the caller's buffer (see errmsg.c). */
#ifndef GT_ERRMSG_H
#define GT_ERRMSG_H

#include <stdarg.h>
#include <stddef.h>

int gt_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int gt_verrf(char *err, size_t errlen, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

#endif
