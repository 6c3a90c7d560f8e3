/* elfsym.h: symbols past the shim's own exports (see elfsym.c). */
#ifndef GT_ELFSYM_H
#define GT_ELFSYM_H

/* Keeps code that runs while a sanitizer runtime starts uninstrumented. */
#define GT_EARLY __attribute__((no_sanitize("address", "undefined")))

int gt_elfsym_next(const void *caller, const char *name, void **found);
void *gt_elfsym_dlsym(void *handle, const char *name);
int gt_elfsym_each(void *handle, int (*fn)(const char *name, void *arg), void *arg);
const char *gt_elfsym_soname(void *handle);

#endif
