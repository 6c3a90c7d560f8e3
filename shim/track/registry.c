/* registry.c: every image, module, library and kernel the application loads.
 *
 * The loading hooks describe what they saw (an image, the module or library
 * made from it, the function and kernel handles looked up in it); launches
 * then find their kernel from the handle alone, without a lock.  A kernel is
 * one (image, name) pair whatever handle reaches it: a CUkernel, the
 * CUfunction of each context, a function of the library's module all share
 * one record.  Unloading removes handles, never records: the exit report
 * still lists what ran, and a launch racing an unload keeps a valid record.
 * Images that live in a loaded object (the runtime's fatbins) are only
 * pointed at; images in the application's heap are copied, since the
 * application may free them once loaded. */
#include "registry.h"
#include "alloc.h"
#include "state.h"
#include "fatbin.h"
#include "hash.h"
#include "rtcprog.h"
#include "triton.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const entry_names[GT_NENTRIES] = {
    "cuLaunchKernel", "cuLaunchKernel_ptsz", "cuLaunchKernelEx",
    "cuLaunchKernelEx_ptsz", "cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel_ptsz",
};

const char *gt_reg_entry_name(enum gt_entry e)
{
    return entry_names[e];
}

static int in_loaded_object(const void *p)
{
    Dl_info info;
    return dladdr(p, &info) != 0;
}

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = gt_malloc((size_t)n + 1)) != NULL) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = '\0'; /* PTX files need not end in NUL */
            *size = (size_t)n + 1;
        }
    }
    fclose(f);
    return buf;
}

/* Fills img->bytes, size and format from what the driver was given. */
static int capture_bytes(struct gt_image *img, const void *image, const char *path)
{
    if (path) {
        img->bytes = read_file(path, &img->size);
        img->owned = 1;
        img->format = img->bytes ? gt_image_format(img->bytes) : GT_FMT_UNKNOWN;
        /* PTX text is counted with its NUL, as loaded from memory; any
         * other image is the file's bytes, so that a cubin compares with
         * its copies (triton.c) and hashes as when loaded from memory. */
        if (img->bytes && img->format != GT_FMT_PTX)
            img->size--;
        return img->bytes ? 0 : -1;
    }
    img->format = gt_image_format(image);
    if (img->format == GT_FMT_WRAPPER) {
        const struct gt_fatbin_wrapper *w = image;
        if (in_loaded_object(w->data)) {
            img->bytes = image;
            img->size = gt_image_size(image, img->format);
            return 0;
        }
        image = w->data; /* a wrapper built at run time: keep its fatbin */
        img->format = GT_FMT_FATBIN;
    }
    img->size = gt_image_size(image, img->format);
    if (img->size == 0)
        return -1;
    if (in_loaded_object(image)) {
        img->bytes = image;
        return 0;
    }
    unsigned char *copy = gt_malloc(img->size);
    if (!copy)
        return -1;
    memcpy(copy, image, img->size);
    img->bytes = copy;
    img->owned = 1;
    img->hash = gt_hash64(copy, img->size);
    return 0;
}

static struct gt_image *find_same(const struct gt_image *img)
{
    for (struct gt_image *o = gt.track.reg.images; o; o = o->next) {
        if (img->owned ? (o->owned && o->hash == img->hash && o->size == img->size &&
                          memcmp(o->bytes, img->bytes, img->size) == 0)
                       : o->bytes == img->bytes)
            return o;
    }
    return NULL;
}

static void log_image(const struct gt_image *img)
{
    if (!gt_log_enabled(GT_LOG_DEBUG))
        return;
    char source[1024] = "";
    if (img->path)
        snprintf(source, sizeof source, ", file %s", img->path);
    if (img->sibling_path)
        snprintf(source, sizeof source, ", PTX from %s", img->sibling_path);
    if (img->nvrtc) {
        size_t n = (size_t)snprintf(source, sizeof source, ", NVRTC program %s, options:", img->nvrtc->name);
        for (int i = 0; i < img->nvrtc->noptions && n < sizeof source; i++)
            n += (size_t)snprintf(source + n, sizeof source - n, " %s", img->nvrtc->options[i]);
    }
    size_t size = img->size;
    if (img->format == GT_FMT_WRAPPER)
        gt_image_container(img, &size);
    gt_debug("image: %s %s, %zu bytes, ptx %d, sass %d%s", gt_origin_name(img->origin), gt_format_name(img->format),
             size, img->ptx_arch, img->sass_arch, source);
}

/* The executable or library, as an absolute path, whose mapped data holds
 * p; NULL when p lies in none. */
static char *object_file(const void *p)
{
    Dl_info info;
    struct link_map *lm = NULL;
    char real[PATH_MAX];
    if (!dladdr1(p, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
        return NULL;
    return realpath(lm->l_name[0] ? lm->l_name : "/proc/self/exe", real) ? gt_strdup(real) : NULL;
}

/* The file a cache entry names for img, so that `gputune cache prune` can
 * tell later whether the image is still there: the file loaded, or the
 * object whose data holds a fatbin (found again by scanning it).  NULL for
 * the rest (copies, cubins and PTX in memory), which no file is known to
 * hold. */
static char *image_file(const struct gt_image *img, const char *path)
{
    char real[PATH_MAX];
    if (path)
        return realpath(path, real) ? gt_strdup(real) : NULL;
    if (img->owned || !img->bytes)
        return NULL;
    if (img->format == GT_FMT_WRAPPER)
        return object_file(((const struct gt_fatbin_wrapper *)(const void *)img->bytes)->data);
    return img->format == GT_FMT_FATBIN ? object_file(img->bytes) : NULL;
}

/* Records an image the driver has just accepted (or the file it read). */
struct gt_image *gt_reg_image(const void *image, enum gt_origin origin, const char *path)
{
    struct gt_image *img = gt_calloc(1, sizeof *img);
    if (!img)
        return NULL;
    if (capture_bytes(img, image, path) != 0) {
        gt_debug("could not keep the bytes of an image loaded from %s", path ? path : "memory");
        img->bytes = NULL;
        img->size = 0;
    }
    img->origin = origin;
    if (img->format == GT_FMT_WRAPPER)
        img->origin = GT_FROM_RUNTIME;
    if (img->owned && img->bytes) {
        img->nvrtc = gt_rtcprog_find(img->hash, img->size);
        if (img->nvrtc)
            img->origin = GT_FROM_NVRTC;
    }
    if (img->bytes)
        gt_image_describe(img);
    gt_triton_find(img, path);
    img->path = path ? gt_strdup(path) : NULL;
    img->file = image_file(img, path);

    pthread_mutex_lock(&gt.track.reg.lock);
    struct gt_image *same = img->bytes ? find_same(img) : NULL;
    if (!same) {
        img->next = gt.track.reg.images;
        gt.track.reg.images = img;
        gt.track.reg.nimages++;
    }
    pthread_mutex_unlock(&gt.track.reg.lock);
    if (same) {
        if (img->owned)
            free((void *)img->bytes);
        free(img->path);
        free(img->file);
        free(img->sibling_ptx);
        free(img->sibling_path);
        free(img);
        return same;
    }
    log_image(img);
    return img;
}

void gt_reg_owner(void *h, int is_library, struct gt_image *img, void *parent)
{
    struct gt_owner *o = gt_calloc(1, sizeof *o);
    if (!o)
        return;
    o->h = h;
    o->is_library = is_library;
    o->image = img;
    pthread_mutex_lock(&gt.track.reg.lock);
    o->parent = parent ? gt_map_get(&gt.track.reg.owners, (uintptr_t)parent) : NULL;
    if (o->parent) {
        o->image = o->parent->image;
        o->sibling = o->parent->children;
        o->parent->children = o;
    }
    if (gt_map_get(&gt.track.reg.owners, (uintptr_t)h) || gt_map_put(&gt.track.reg.owners, (uintptr_t)h, o) != 0) {
        free(o); /* already known: cuLibraryGetModule asked twice */
    }
    pthread_mutex_unlock(&gt.track.reg.lock);
}

struct gt_image *gt_reg_owner_image(void *h)
{
    pthread_mutex_lock(&gt.track.reg.lock);
    struct gt_owner *o = gt_map_get(&gt.track.reg.owners, (uintptr_t)h);
    struct gt_image *img = o ? o->image : NULL;
    pthread_mutex_unlock(&gt.track.reg.lock);
    return img;
}

/* Caller holds the lock. */
static void drop_handles(struct gt_owner *o)
{
    while (o->handles) {
        struct gt_handle *hd = o->handles;
        o->handles = hd->owner_next;
        if (gt_map_get(&gt.track.reg.handles, (uintptr_t)hd->h) == hd)
            gt_map_del(&gt.track.reg.handles, (uintptr_t)hd->h);
        hd->owner_next = gt.track.reg.dead_handles;
        gt.track.reg.dead_handles = hd;
    }
}

void gt_reg_owner_drop(void *h)
{
    pthread_mutex_lock(&gt.track.reg.lock);
    struct gt_owner *o = gt_map_del(&gt.track.reg.owners, (uintptr_t)h);
    if (o) {
        for (struct gt_owner *c = o->children; c; c = c->sibling) {
            gt_map_del(&gt.track.reg.owners, (uintptr_t)c->h);
            drop_handles(c);
        }
        drop_handles(o);
        o->dead_next = gt.track.reg.dead_owners;
        gt.track.reg.dead_owners = o;
    }
    pthread_mutex_unlock(&gt.track.reg.lock);
}

static uintptr_t kernel_key(const struct gt_image *img, const char *name)
{
    uintptr_t k = (uintptr_t)(gt_hash64(name, strlen(name)) ^ ((uint64_t)(uintptr_t)img * 0x9e3779b97f4a7c15ULL));
    return k == 0 || k == UINTPTR_MAX ? 1 : k;
}

/* The record of (img, name), created on first sight.  Caller holds the lock. */
static struct gt_kernel *kernel_for(struct gt_image *img, const char *name)
{
    uintptr_t key = kernel_key(img, name);
    struct gt_kernel *head = gt_map_get(&gt.track.reg.by_key, key);
    for (struct gt_kernel *k = head; k; k = k->same_key)
        if (k->image == img && strcmp(k->name, name) == 0)
            return k;
    struct gt_kernel *k = gt_calloc(1, sizeof *k);
    if (!k || !(k->name = gt_strdup(name))) {
        free(k);
        return NULL;
    }
    k->image = img;
    atomic_init(&k->nparams, -1);
    pthread_mutex_init(&k->lock, NULL);
    gt_map_init(&k->geomset);
    k->same_key = head;
    if (gt_map_put(&gt.track.reg.by_key, key, k) != 0) {
        free(k->name);
        free(k);
        return NULL;
    }
    k->next = gt.track.reg.kernels;
    gt.track.reg.kernels = k;
    gt.track.reg.nkernels++;
    return k;
}

struct gt_handle *gt_reg_handle(void *h, enum gt_handle_kind kind, void *owner, const char *name)
{
    if (!h || !name)
        return NULL;
    pthread_mutex_lock(&gt.track.reg.lock);
    struct gt_handle *hd = gt_map_get(&gt.track.reg.handles, (uintptr_t)h);
    struct gt_owner *o = owner ? gt_map_get(&gt.track.reg.owners, (uintptr_t)owner) : NULL;
    struct gt_kernel *k = hd ? NULL : kernel_for(o ? o->image : NULL, name);
    if (!hd && k && (hd = gt_calloc(1, sizeof *hd)) != NULL) {
        *hd = (struct gt_handle){.h = h, .kind = kind, .kernel = k, .owner = o};
        if (gt_map_put(&gt.track.reg.handles, (uintptr_t)h, hd) != 0) {
            free(hd);
            hd = NULL;
        } else if (o) {
            hd->owner_next = o->handles;
            o->handles = hd;
        }
        if (hd && kind == GT_HANDLE_KERNEL && !k->as_kernel)
            k->as_kernel = hd;
    }
    pthread_mutex_unlock(&gt.track.reg.lock);
    return hd;
}

struct gt_handle *gt_reg_lookup(void *h)
{
    return gt_map_get(&gt.track.reg.handles, (uintptr_t)h);
}

/* A handle first met at a launch: obtained by a path the shim does not hook.
 * The launch succeeded, so the handle is valid to ask about. */
struct gt_handle *gt_reg_adopt(void *h)
{
    const char *name = NULL;
    CUmodule mod = NULL;
    enum gt_handle_kind kind = GT_HANDLE_FUNCTION;
    if (!gt.drv.cuFuncGetName || gt.drv.cuFuncGetName(&name, (CUfunction)h) != CUDA_SUCCESS || !name) {
        kind = GT_HANDLE_KERNEL;
        if (!gt.drv.cuKernelGetName || gt.drv.cuKernelGetName(&name, (CUkernel)h) != CUDA_SUCCESS)
            name = NULL;
    }
    if (kind == GT_HANDLE_FUNCTION && gt.drv.cuFuncGetModule)
        gt.drv.cuFuncGetModule(&mod, (CUfunction)h);
    gt_debug("kernel %s (handle %p) first seen at a launch", name ? name : "?", h);
    return gt_reg_handle(h, kind, mod, name ? name : "?");
}

struct gt_handle *gt_reg_node_function(void *f)
{
    struct gt_handle *hd = gt_reg_lookup(f), *of = NULL;
    const char *name = NULL;
    if (hd || !gt.drv.cuFuncGetName || gt.drv.cuFuncGetName(&name, (CUfunction)f) != CUDA_SUCCESS || !name)
        return hd;
    pthread_mutex_lock(&gt.track.reg.lock);
    for (struct gt_kernel *k = gt.track.reg.kernels; k && !of; k = k->next) {
        CUfunction fk;
        if (k->as_kernel && strcmp(k->name, name) == 0 &&
            gt.drv.cuKernelGetFunction(&fk, (CUkernel)k->as_kernel->h) == CUDA_SUCCESS && fk == (CUfunction)f)
            of = k->as_kernel;
    }
    pthread_mutex_unlock(&gt.track.reg.lock);
    return of ? gt_reg_handle(f, GT_HANDLE_FUNCTION, of->owner ? of->owner->h : NULL, name) : NULL;
}

/* Asks the driver for the parameter layout, once per kernel.  Out of
 * memory, the layout stays unknown (a part of it would pass for all of it)
 * and a later launch asks again. */
void gt_reg_learn_params(struct gt_handle *hd)
{
    struct gt_kernel *k = hd->kernel;
    pthread_mutex_lock(&k->lock);
    if (atomic_load(&k->nparams) < 0) {
        size_t off, size;
        int n = 0, cap = 0, nomem = 0;
        struct gt_param *p = NULL;
        for (;;) {
            CUresult r = hd->kind == GT_HANDLE_KERNEL
                ? (gt.drv.cuKernelGetParamInfo ? gt.drv.cuKernelGetParamInfo((CUkernel)hd->h, (size_t)n, &off, &size) : CUDA_ERROR_NOT_FOUND)
                : (gt.drv.cuFuncGetParamInfo ? gt.drv.cuFuncGetParamInfo((CUfunction)hd->h, (size_t)n, &off, &size) : CUDA_ERROR_NOT_FOUND);
            if (r != CUDA_SUCCESS)
                break;
            if (n == cap) {
                struct gt_param *q = gt_realloc(p, (size_t)(cap = cap ? cap * 2 : 8) * sizeof *p);
                if (!q) {
                    nomem = 1;
                    break;
                }
                p = q;
            }
            p[n++] = (struct gt_param){(uint32_t)off, (uint32_t)size};
        }
        if (nomem) {
            free(p);
        } else {
            k->params = p;
            atomic_store(&k->nparams, n);
        }
    }
    pthread_mutex_unlock(&k->lock);
}

/* Geometry g, of fingerprint f, added to the kernel's list unless another
 * thread did first; not at all where memory runs out (the report's count
 * then misses it, and a later launch tries again). */
static void note_geometry(struct gt_kernel *k, const struct gt_geom *g, uint64_t f)
{
    pthread_mutex_lock(&k->lock);
    if (!gt_map_get(&k->geomset, f)) {
        if (k->ngeoms == k->capgeoms) {
            size_t cap = k->capgeoms ? k->capgeoms * 2 : 4;
            struct gt_geom *q = gt_realloc(k->geoms, cap * sizeof *q);
            if (q) {
                k->geoms = q;
                k->capgeoms = cap;
            }
        }
        if (k->ngeoms < k->capgeoms && gt_map_put(&k->geomset, f, k) == 0)
            k->geoms[k->ngeoms++] = *g;
    }
    pthread_mutex_unlock(&k->lock);
}

unsigned long gt_reg_launches(struct gt_kernel *k, int entry, int kind)
{
    unsigned long n = 0;
    for (int i = 0; i < GT_NENTRIES; i++)
        for (int j = 0; j < 2; j++)
            if ((entry < 0 || entry == i) && (kind < 0 || kind == j))
                n += atomic_load(&k->launches[i][j]);
    return n;
}

/* Only the exit report reads what is counted here, and only at info: below
 * it a launch that ran a variant costs nothing more for it either. */
void gt_reg_note_launch(struct gt_handle *hd, const struct gt_geom *g, enum gt_entry entry, unsigned flags)
{
    if (!gt_log_enabled(GT_LOG_INFO))
        return;
    struct gt_kernel *k = hd->kernel;
    atomic_fetch_add_explicit(&k->launches[entry][hd->kind], 1, memory_order_relaxed);
    if (flags & GT_LAUNCH_CAPTURED)
        atomic_fetch_add_explicit(&k->captured, 1, memory_order_relaxed);
    if (flags & GT_LAUNCH_COOPERATIVE)
        atomic_fetch_add_explicit(&k->cooperative, 1, memory_order_relaxed);
    if (flags & GT_LAUNCH_APPLIED)
        atomic_fetch_add_explicit(&k->applied, 1, memory_order_relaxed);
    if (atomic_load_explicit(&k->nparams, memory_order_relaxed) < 0)
        gt_reg_learn_params(hd);
    uint64_t f = gt_reg_geom_fingerprint(g);
    if (!gt_map_get(&k->geomset, f))
        note_geometry(k, g, f);
}

int gt_reg_own_cache(struct gt_kernel *k, int device)
{
    int v = CU_FUNC_CACHE_PREFER_NONE;
    pthread_mutex_lock(&k->lock);
    for (int i = 0; i < k->nsettings; i++)
        if (k->settings[i].attr == GT_SET_CACHE_CONFIG && (k->settings[i].device < 0 || k->settings[i].device == device))
            v = k->settings[i].value;
    pthread_mutex_unlock(&k->lock);
    return v;
}

void gt_reg_note_setting(void *h, int attr, int value, int device)
{
    struct gt_handle *hd = gt_reg_lookup(h);
    if (!hd && !(hd = gt_reg_adopt(h)))
        return;
    struct gt_kernel *k = hd->kernel;
    if (attr == GT_SET_CACHE_CONFIG)
        atomic_store(&hd->cache_now, 0); /* the application's own is on it again */
    pthread_mutex_lock(&k->lock);
    int i = 0;
    while (i < k->nsettings && !(k->settings[i].attr == attr && k->settings[i].device == device))
        i++;
    if (i < GT_MAX_SETTINGS) {
        k->settings[i] = (struct gt_setting){attr, value, device};
        if (i == k->nsettings)
            k->nsettings++;
    } else {
        gt_warn("kernel %s: more than %d settings; a variant may miss some", k->name, GT_MAX_SETTINGS);
    }
    pthread_mutex_unlock(&k->lock);
}
