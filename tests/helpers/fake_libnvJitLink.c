/* fake_libnvJitLink.c: a stand-in nvJitLink of CUDA FAKE_MAJOR, for
 * tests/cudalibs.t, built once per version with the soname the real one has.
 *
 * Its entry points are named as the real library's: by the version of the
 * header that declares them.  The one of 13.0 has __nvJitLink*_13_0,
 * unversioned names and nvJitLinkVersion, as CUDA 13.0's has; the one of
 * 12 has two sets, _12_0 and _12_2, and nothing unversioned, as before 12.3:
 * the shim must take the newest set and tell the version from its names.
 * Every link fails, its error log naming the set that was called, so a
 * test sees which library and which entry points the shim used. */
#include <stddef.h>
#include <string.h>

#define FAILED 6 /* NVJITLINK_ERROR_INTERNAL */

static int create(void **handle, const char *set)
{
    *handle = (void *)set;
    return 0;
}

static int error_size(void *handle, size_t *size)
{
    *size = strlen(handle) + 1;
    return 0;
}

static int error_log(void *handle, char *log)
{
    memcpy(log, handle, strlen(handle) + 1);
    return 0;
}

static int none(size_t *size)
{
    *size = 0;
    return 0;
}

/* The entry points of one header version: pre##Create##sfx. */
#define ENTRY_POINTS(pre, sfx, text)                                                                                   \
    int pre##Create##sfx(void **h, unsigned n, const char **o) { (void)n, (void)o; return create(h, text); } \
    int pre##Destroy##sfx(void **h) { *h = NULL; return 0; }                                              \
    int pre##AddData##sfx(void *h, int type, const void *data, size_t size, const char *name)             \
    { (void)h, (void)type, (void)data, (void)size, (void)name; return 0; }                                      \
    int pre##Complete##sfx(void *h) { (void)h; return FAILED; }                                            \
    int pre##GetLinkedCubinSize##sfx(void *h, size_t *size) { (void)h, (void)size; return FAILED; }        \
    int pre##GetLinkedCubin##sfx(void *h, void *cubin) { (void)h, (void)cubin; return FAILED; }            \
    int pre##GetErrorLogSize##sfx(void *h, size_t *size) { return error_size(h, size); }                   \
    int pre##GetErrorLog##sfx(void *h, char *log) { return error_log(h, log); }                            \
    int pre##GetInfoLogSize##sfx(void *h, size_t *size) { (void)h; return none(size); }                    \
    int pre##GetInfoLog##sfx(void *h, char *log) { (void)h, (void)log; return 0; }

#if FAKE_MAJOR == 12
ENTRY_POINTS(__nvJitLink, _12_0, "stand-in nvJitLink: the entry points of 12.0 link nothing")
ENTRY_POINTS(__nvJitLink, _12_2, "stand-in nvJitLink: the entry points of 12.2 link nothing")
#else
ENTRY_POINTS(__nvJitLink, _13_0, "stand-in nvJitLink: the entry points of 13.0 link nothing")
ENTRY_POINTS(nvJitLink, , "stand-in nvJitLink: the unversioned entry points link nothing")

int nvJitLinkVersion(unsigned *major, unsigned *minor)
{
    *major = 13;
    *minor = 0;
    return 0;
}
#endif
