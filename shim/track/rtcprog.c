/* rtcprog.c: the programs the application compiles with NVRTC.
 *
 * A kernel compiled at run time can be rebuilt with other macro values only
 * if the shim kept its source and the options the application used.  The
 * NVRTC hooks (intercept/nvrtc_hooks.c) record both here per program and,
 * when the application takes the PTX or cubin out, a hash of those bytes:
 * the registry later recognizes them when they are loaded as a module and
 * links the module to its source.  Programs outlive nvrtcDestroyProgram for
 * that reason. */
#include "rtcprog.h"
#include "alloc.h"
#include "hash.h"
#include "state.h"

#include <stdlib.h>
#include <string.h>

struct gt_rtcprog_output {
    uint64_t hash;
    size_t size;
    const struct gt_nvrtc_program *prog;
    struct gt_rtcprog_output *next;
};

static char **copy_strings(int n, const char *const *v)
{
    if (n <= 0 || !v)
        return NULL;
    char **c = gt_calloc((size_t)n, sizeof *c);
    for (int i = 0; c && i < n; i++)
        c[i] = v[i] ? gt_strdup(v[i]) : NULL;
    return c;
}

static void free_strings(int n, char **v)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

static struct gt_nvrtc_program *program_of(const void *prog)
{
    struct gt_rtcprogs *nv = &gt.track.rtc;
    pthread_mutex_lock(&nv->lock);
    struct gt_nvrtc_program *p = gt_map_get(&nv->live, (uintptr_t)prog);
    pthread_mutex_unlock(&nv->lock);
    return p;
}

/* nvrtcCreateProgram made `prog`. */
void gt_rtcprog_create(const void *prog, const char *src, const char *name, int nheaders,
                       const char *const *headers, const char *const *include_names)
{
    struct gt_rtcprogs *nv = &gt.track.rtc;
    struct gt_nvrtc_program *p = gt_calloc(1, sizeof *p);
    if (!p)
        return;
    p->name = gt_strdup(name ? name : "default_program");
    p->source = gt_strdup(src ? src : "");
    p->nheaders = nheaders > 0 ? nheaders : 0;
    p->headers = copy_strings(nheaders, headers);
    p->include_names = copy_strings(nheaders, include_names);
    pthread_mutex_lock(&nv->lock);
    gt_map_put(&nv->live, (uintptr_t)prog, p);
    p->next = nv->programs;
    nv->programs = p;
    pthread_mutex_unlock(&nv->lock);
}

/* nvrtcCompileProgram compiles `prog` with these options. */
void gt_rtcprog_options(const void *prog, int noptions, const char *const *options)
{
    struct gt_nvrtc_program *p = program_of(prog);
    if (!p)
        return;
    free_strings(p->noptions, p->options);
    p->options = copy_strings(noptions, options);
    p->noptions = p->options ? noptions : 0;
}

/* nvrtcAddNameExpression asked `prog` for `name`. */
void gt_rtcprog_name(const void *prog, const char *name)
{
    struct gt_nvrtc_program *p = program_of(prog);
    char **names = p ? gt_realloc(p->names, (size_t)(p->nnames + 1) * sizeof *names) : NULL;
    if (!names)
        return;
    p->names = names;
    if ((names[p->nnames] = gt_strdup(name)) != NULL)
        p->nnames++;
}

/* The application took PTX or a cubin out of `prog`. */
void gt_rtcprog_output(const void *prog, const char *bytes, enum gt_format format)
{
    struct gt_rtcprogs *nv = &gt.track.rtc;
    const struct gt_nvrtc_program *p = program_of(prog);
    size_t size = p ? gt_image_size(bytes, format) : 0;
    struct gt_rtcprog_output *o = size ? gt_malloc(sizeof *o) : NULL;
    if (!o)
        return;
    *o = (struct gt_rtcprog_output){gt_hash64(bytes, size), size, p, NULL};
    pthread_mutex_lock(&nv->lock);
    o->next = nv->outputs;
    nv->outputs = o;
    pthread_mutex_unlock(&nv->lock);
}

/* nvrtcDestroyProgram ends `prog`: its record stays for its outputs. */
void gt_rtcprog_destroy(const void *prog)
{
    struct gt_rtcprogs *nv = &gt.track.rtc;
    pthread_mutex_lock(&nv->lock);
    gt_map_del(&nv->live, (uintptr_t)prog);
    pthread_mutex_unlock(&nv->lock);
}

/* The program whose output these bytes (hash, size) are, NULL if none. */
const struct gt_nvrtc_program *gt_rtcprog_find(uint64_t hash, size_t size)
{
    struct gt_rtcprogs *nv = &gt.track.rtc;
    const struct gt_nvrtc_program *p = NULL;
    pthread_mutex_lock(&nv->lock);
    for (struct gt_rtcprog_output *o = nv->outputs; o && !p; o = o->next)
        if (o->hash == hash && o->size == size)
            p = o->prog;
    pthread_mutex_unlock(&nv->lock);
    return p;
}

/* A forked child's NVRTC calls still reach the hooks, so fork() takes the
 * table's lock and both sides release it. */
void gt_rtcprog_fork_hold(void)
{
    pthread_mutex_lock(&gt.track.rtc.lock);
}

/* In the child the lock belongs to a thread that no longer exists. */
void gt_rtcprog_fork_release(int child)
{
    if (child)
        pthread_mutex_init(&gt.track.rtc.lock, NULL);
    else
        pthread_mutex_unlock(&gt.track.rtc.lock);
}
