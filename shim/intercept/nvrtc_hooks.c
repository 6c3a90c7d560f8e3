/* nvrtc_hooks.c: sources the application compiles with NVRTC.
 *
 * A kernel compiled at run time can be rebuilt with other macro values only
 * if the shim kept its source and the options the application used.  The
 * hooks record both per program and, when the application takes the PTX or
 * cubin out, remember a hash of those bytes: the registry later recognizes
 * them when they are loaded as a module and links the module to its source.
 * Programs outlive nvrtcDestroyProgram for that reason.
 *
 * libnvrtc is reached through exported symbols (programs linked with it) or
 * through dlsym (programs that dlopen it); each hook remembers the first real
 * function it was given and hands itself out only in place of that one, so a
 * process holding two libnvrtc versions keeps working. */
#include "state.h"
#include "hash.h"
#include "image.h"
#include "interpose.h"
#include "nvrtc_hooks.h"

#include <dlfcn.h>
#include <nvrtc.h>
#include <stdlib.h>
#include <string.h>

struct output {
    uint64_t hash;
    size_t size;
    const struct gt_nvrtc_program *prog;
    struct output *next;
};

static struct {
    pthread_mutex_t lock;
    struct gt_map live;               /* nvrtcProgram -> gt_nvrtc_program */
    int live_ready;
    struct gt_nvrtc_program *programs;
    struct output *outputs;
} nv = {.lock = PTHREAD_MUTEX_INITIALIZER};

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
        void *next = gt_real_dlsym(RTLD_NEXT, table[i].name);
        void *expected = NULL;
        if (next)
            atomic_compare_exchange_strong(&table[i].real, &expected, next);
        p = atomic_load(&table[i].real);
    }
    return p;
}

#define REAL(f) ((__typeof__(&f))real(I_##f))

static char **copy_strings(int n, const char *const *v)
{
    if (n <= 0 || !v)
        return NULL;
    char **c = calloc((size_t)n, sizeof *c);
    for (int i = 0; c && i < n; i++)
        c[i] = v[i] ? strdup(v[i]) : NULL;
    return c;
}

static void free_strings(int n, char **v)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

static struct gt_nvrtc_program *program_of(nvrtcProgram prog)
{
    pthread_mutex_lock(&nv.lock);
    struct gt_nvrtc_program *p = nv.live_ready ? gt_map_get(&nv.live, (uintptr_t)prog) : NULL;
    pthread_mutex_unlock(&nv.lock);
    return p;
}

GT_EXPORT nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name, int nheaders,
                               const char *const *headers, const char *const *include_names)
{
    if (!REAL(nvrtcCreateProgram))
        return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcResult r = REAL(nvrtcCreateProgram)(prog, src, name, nheaders, headers, include_names);
    if (r != NVRTC_SUCCESS || gt.mode == GT_MODE_OFF)
        return r;
    struct gt_nvrtc_program *p = calloc(1, sizeof *p);
    if (!p)
        return r;
    p->name = strdup(name ? name : "default_program");
    p->source = strdup(src ? src : "");
    p->nheaders = nheaders > 0 ? nheaders : 0;
    p->headers = copy_strings(nheaders, headers);
    p->include_names = copy_strings(nheaders, include_names);
    pthread_mutex_lock(&nv.lock);
    if (!nv.live_ready) {
        gt_map_init(&nv.live);
        nv.live_ready = 1;
    }
    gt_map_put(&nv.live, (uintptr_t)*prog, p);
    p->next = nv.programs;
    nv.programs = p;
    pthread_mutex_unlock(&nv.lock);
    return r;
}

GT_EXPORT nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int noptions, const char *const *options)
{
    if (!REAL(nvrtcCompileProgram))
        return NVRTC_ERROR_INTERNAL_ERROR;
    struct gt_nvrtc_program *p = program_of(prog);
    if (p) {
        free_strings(p->noptions, p->options);
        p->options = copy_strings(noptions, options);
        p->noptions = p->options ? noptions : 0;
    }
    return REAL(nvrtcCompileProgram)(prog, noptions, options);
}

GT_EXPORT nvrtcResult nvrtcAddNameExpression(nvrtcProgram prog, const char *const name)
{
    if (!REAL(nvrtcAddNameExpression))
        return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcResult r = REAL(nvrtcAddNameExpression)(prog, name);
    struct gt_nvrtc_program *p = r == NVRTC_SUCCESS && name ? program_of(prog) : NULL;
    char **names = p ? realloc(p->names, (size_t)(p->nnames + 1) * sizeof *names) : NULL;
    if (names) {
        p->names = names;
        if ((names[p->nnames] = strdup(name)) != NULL)
            p->nnames++;
    }
    return r;
}

static void remember_output(nvrtcProgram prog, const char *bytes, enum gt_format format)
{
    const struct gt_nvrtc_program *p = program_of(prog);
    size_t size = p ? gt_image_size(bytes, format) : 0;
    struct output *o = size ? malloc(sizeof *o) : NULL;
    if (!o)
        return;
    *o = (struct output){gt_hash64(bytes, size), size, p, NULL};
    pthread_mutex_lock(&nv.lock);
    o->next = nv.outputs;
    nv.outputs = o;
    pthread_mutex_unlock(&nv.lock);
}

GT_EXPORT nvrtcResult nvrtcGetPTX(nvrtcProgram prog, char *ptx)
{
    if (!REAL(nvrtcGetPTX))
        return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcResult r = REAL(nvrtcGetPTX)(prog, ptx);
    if (r == NVRTC_SUCCESS && ptx)
        remember_output(prog, ptx, GT_FMT_PTX);
    return r;
}

GT_EXPORT nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin)
{
    if (!REAL(nvrtcGetCUBIN))
        return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcResult r = REAL(nvrtcGetCUBIN)(prog, cubin);
    if (r == NVRTC_SUCCESS && cubin)
        remember_output(prog, cubin, GT_FMT_CUBIN);
    return r;
}

GT_EXPORT nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog)
{
    if (!REAL(nvrtcDestroyProgram))
        return NVRTC_ERROR_INTERNAL_ERROR;
    if (prog) {
        pthread_mutex_lock(&nv.lock);
        if (nv.live_ready)
            gt_map_del(&nv.live, (uintptr_t)*prog);
        pthread_mutex_unlock(&nv.lock);
    }
    return REAL(nvrtcDestroyProgram)(prog);
}

const struct gt_nvrtc_program *gt_nvrtc_find(uint64_t hash, size_t size)
{
    const struct gt_nvrtc_program *p = NULL;
    pthread_mutex_lock(&nv.lock);
    for (struct output *o = nv.outputs; o && !p; o = o->next)
        if (o->hash == hash && o->size == size)
            p = o->prog;
    pthread_mutex_unlock(&nv.lock);
    return p;
}
