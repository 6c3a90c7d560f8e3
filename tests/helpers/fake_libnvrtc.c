/* fake_libnvrtc.c: a stand-in NVRTC of CUDA FAKE_MAJOR (12.2 or 13.0), for
 * tests/cudalibs.t, built once per version with the soname the real one has.
 *
 * What a test sees is which library the shim opened (its debug log names
 * the file and the version nvrtcVersion reports); nothing compiles: every
 * program fails with a log that names this stand-in. */
#include <stddef.h>
#include <string.h>

#define FAKE_MINOR (FAKE_MAJOR == 12 ? 2 : 0)
#define FAILED 11 /* NVRTC_ERROR_INTERNAL_ERROR */
#define LOG "stand-in NVRTC compiles nothing"

int nvrtcVersion(int *major, int *minor)
{
    *major = FAKE_MAJOR;
    *minor = FAKE_MINOR;
    return 0;
}

int nvrtcCreateProgram(void **prog, const char *src, const char *name, int n, const char *const *h,
                       const char *const *names)
{
    (void)src, (void)name, (void)n, (void)h, (void)names;
    static int program;
    *prog = &program;
    return 0;
}

int nvrtcCompileProgram(void *prog, int n, const char *const *options)
{
    (void)prog, (void)n, (void)options;
    return FAILED;
}

int nvrtcGetProgramLogSize(void *prog, size_t *size)
{
    (void)prog;
    *size = sizeof LOG;
    return 0;
}

int nvrtcGetProgramLog(void *prog, char *log)
{
    (void)prog;
    memcpy(log, LOG, sizeof LOG);
    return 0;
}

int nvrtcGetPTXSize(void *prog, size_t *size) { (void)prog, (void)size; return FAILED; }
int nvrtcGetPTX(void *prog, char *ptx) { (void)prog, (void)ptx; return FAILED; }
int nvrtcAddNameExpression(void *prog, const char *expr) { (void)prog, (void)expr; return 0; }
int nvrtcGetLoweredName(void *prog, const char *expr, const char **lowered) { (void)prog, (void)expr, (void)lowered; return FAILED; }
int nvrtcDestroyProgram(void **prog) { *prog = NULL; return 0; }
