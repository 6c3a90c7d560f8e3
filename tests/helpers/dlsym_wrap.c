/* dlsym_wrap.c: a dlsym wrapper preloaded before the shim, as profilers and
 * tracing tools preload theirs.  It counts lookups and passes them to "the
 * real dlsym": found as dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34"), which leads
 * to the shim's; built with WRAP_BY_HANDLE, found in libc's own handle,
 * which passes the shim by (dlmopen: a sanitizer's runtime intercepts dlopen
 * and looks its own functions up with dlsym before it can serve one). */
#include <dlfcn.h>
#include <stddef.h>

static void *(*real)(void *, const char *);
static long lookups;

static void *find_real(void)
{
#ifdef WRAP_BY_HANDLE
    void *libc = dlmopen(LM_ID_BASE, "libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    return libc ? dlvsym(libc, "dlsym", "GLIBC_2.34") : NULL;
#else
    return dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
#endif
}

void *dlsym(void *handle, const char *name)
{
    if (!real)
        real = (void *(*)(void *, const char *))find_real();
    lookups++;
    return real ? real(handle, name) : NULL;
}
