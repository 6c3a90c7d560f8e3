/* demangle.c: C++ names for people.
 *
 * Kernels are known by their mangled names; reports show them demangled.
 * The demangler is libstdc++'s, found at run time so that the shim stays a
 * C library: almost every CUDA application has libstdc++ loaded already,
 * and where none is, the mangled name is shown. */
#include "demangle.h"
#include "alloc.h"
#include "elfsym.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

static cxa_demangle_fn find_demangler(void)
{
    void *f = gt_elfsym_dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!f) {
        void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        f = h ? gt_elfsym_dlsym(h, "__cxa_demangle") : NULL;
    }
    return (cxa_demangle_fn)f;
}

/* A newly allocated readable form of `name` (a copy when it is not mangled). */
char *gt_demangle(const char *name)
{
    static cxa_demangle_fn demangle;
    static int looked;
    if (!looked) {
        demangle = find_demangler();
        looked = 1;
    }
    int status = -1;
    char *d = (demangle && name[0] == '_' && name[1] == 'Z') ? demangle(name, NULL, NULL, &status) : NULL;
    return status == 0 && d ? d : gt_strdup(name);
}
