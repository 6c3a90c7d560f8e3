/* demangle.h: C++ names for people (see demangle.c). */
#ifndef GT_DEMANGLE_H
#define GT_DEMANGLE_H

char *gt_demangle(const char *name);

#endif
