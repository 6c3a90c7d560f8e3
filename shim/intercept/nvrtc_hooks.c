/* nvrtc_hooks.c: the application's calls to NVRTC.
 *
 * Each hook calls NVRTC and tells track/rtcprog.c what succeeded: the
 * source, headers and options of each program and the PTX or cubin taken
 * out of it, so that a kernel compiled at run time can be rebuilt with
 * other macro values.
 *
 * libnvrtc is reached through exported symbols (programs linked with it) or
 * through dlsym (programs that dlopen it); each hook remembers the first real
 * function it was given and hands itself out only in place of that one, so a
 * process holding two libnvrtc versions keeps working. */
#include "nvrtc_hooks.h"
#include "elfsym.h"
#include "rtcprog.h"
#include "state.h"

#include <dlfcn.h>
#include <nvrtc.h>
#include <stdlib.h>
#include <string.h>

#define NVRTC_HOOKS(X) X(nvrtcCreateProgram) X(nvrtcCompileProgram) X(nvrtcGetPTX) \
                       X(nvrtcGetCUBIN) X(nvrtcDestroyProgram) X(nvrtcAddNameExpression)

struct nvrtc_hook {
    const char *name;
    void *hook;
    void *_Atomic real;
};

#define TABLE_ROW(f) {#f, (void *)f, NULL},
static struct nvrtc_hook table[] = {NVRTC_HOOKS(TABLE_ROW)};
enum {
#define INDEX(f) I_##f,
    NVRTC_HOOKS(INDEX)
};

void *gt_nvrtc_symbol(const char *name, void *p)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(table[i].name, name) != 0)
            continue;
        void *expected = NULL;
        atomic_compare_exchange_strong(&table[i].real, &expected, p);
        return atomic_load(&table[i].real) == p ? table[i].hook : p;
    }
    return p;
}

/* The real function behind hook i, for programs linked with libnvrtc. */
static void *real(int i)
{
    void *p = atomic_load(&table[i].real);
    if (!p) {
        void *next = gt_elfsym_dlsym(RTLD_NEXT, table[i].name);
        void *expected = NULL;
        if (next)
            atomic_compare_exchange_strong(&table[i].real, &expected, next);
        p = atomic_load(&table[i].real);
    }
    return p;
}

#define REAL(f) ((__typeof__(&f))real(I_##f))

GT_EXPORT nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name, int nheaders,
                               const char *const *headers, const char *const *include_names)
{
    if (!REAL(nvrtcCreateProgram))
        return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcResult r = REAL(nvrtcCreateProgram)(prog, src, name, nheaders, headers, include_names);
    if (r != NVRTC_SUCCESS || gt.mode == GT_MODE_OFF)
        return r;
    gt_rtcprog_create(*prog, src, name, nheaders, headers, include_names);
    return r;
}

GT_EXPORT nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int noptions, const char *const *options)
{
    if (!REAL(nvrtcCompileProgram))
        return NVRTC_ERROR_INTERNAL_ERROR;
    gt_rtcprog_options(prog, noptions, options);
    return REAL(nvrtcCompileProgram)(prog, noptions, options);
}

GT_EXPORT nvrtcResult nvrtcAddNameExpression(nvrtcProgram prog, const char *const name)
{
    if (!REAL(nvrtcAddNameExpression))
        return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcResult r = REAL(nvrtcAddNameExpression)(prog, name);
    if (r == NVRTC_SUCCESS && name)
        gt_rtcprog_name(prog, name);
    return r;
}

GT_EXPORT nvrtcResult nvrtcGetPTX(nvrtcProgram prog, char *ptx)
{
    if (!REAL(nvrtcGetPTX))
        return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcResult r = REAL(nvrtcGetPTX)(prog, ptx);
    if (r == NVRTC_SUCCESS && ptx)
        gt_rtcprog_output(prog, ptx, GT_FMT_PTX);
    return r;
}

GT_EXPORT nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin)
{
    if (!REAL(nvrtcGetCUBIN))
        return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcResult r = REAL(nvrtcGetCUBIN)(prog, cubin);
    if (r == NVRTC_SUCCESS && cubin)
        gt_rtcprog_output(prog, cubin, GT_FMT_CUBIN);
    return r;
}

GT_EXPORT nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog)
{
    if (!REAL(nvrtcDestroyProgram))
        return NVRTC_ERROR_INTERNAL_ERROR;
    if (prog)
        gt_rtcprog_destroy(*prog);
    return REAL(nvrtcDestroyProgram)(prog);
}

