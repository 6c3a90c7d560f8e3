/* elfsym.h: RTLD_NEXT without the dynamic loader's help (see elfsym.c). */
#ifndef GT_ELFSYM_H
#define GT_ELFSYM_H

/* Keeps code that runs while a sanitizer runtime starts uninstrumented. */
#define GT_EARLY __attribute__((no_sanitize("address", "undefined")))

int gt_elfsym_next(const void *caller, const char *name, void **found);

#endif
