/* alloc.h: the shim's allocations, counted when they fail (see alloc.c). */
#ifndef GT_ALLOC_H
#define GT_ALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *gt_malloc(size_t n);
void *gt_calloc(size_t n, size_t size);
void *gt_realloc(void *p, size_t n);
void *gt_aligned_alloc(size_t align, size_t n);
char *gt_strdup(const char *s);
char *gt_strndup(const char *s, size_t n);
int gt_asprintf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int gt_vasprintf(char **out, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* How many of them have failed in this process, from any thread. */
unsigned long gt_alloc_failures(void);

#endif
