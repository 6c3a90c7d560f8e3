/* registry.h: every image, module, library and kernel the application loads (see registry.c). */
#ifndef GT_REGISTRY_H
#define GT_REGISTRY_H

#include "image.h"
#include "map.h"
#include "recipe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

enum gt_handle_kind { GT_HANDLE_FUNCTION, GT_HANDLE_KERNEL }; /* CUfunction, CUkernel */

/* The driver entry point a launch came through. */
enum gt_entry {
    GT_ENTRY_LAUNCH, GT_ENTRY_LAUNCH_PTSZ,
    GT_ENTRY_EX, GT_ENTRY_EX_PTSZ,
    GT_ENTRY_COOP, GT_ENTRY_COOP_PTSZ,
    GT_NENTRIES
};

struct gt_geom {
    unsigned grid[3], block[3], smem;
};

/* Tells launches' geometries apart at every launch, so it is a few
 * multiplies, not a hash of the bytes (a collision, at odds of about 2^-64,
 * only leaves a geometry out of the report's count).  The per-launch caches
 * index their slots by its low bits, so every input bit must reach them:
 * the words are folded in, then the whole is mixed (SplitMix64's finalizer).
 * Without that last mix, the grid's x reached the low bits through two of
 * its bits only, and a framework's geometries, which differ mostly there,
 * fell into a handful of slots and took the slow path at most launches.
 * Never 0 or all ones, the keys a gt_map reserves. */
static inline uint64_t gt_reg_geom_fingerprint(const struct gt_geom *g)
{
    const uint64_t m = 0x9e3779b97f4a7c15ULL;
    uint64_t f = ((uint64_t)g->grid[0] << 32 | g->grid[1]) * m;
    f = (f ^ ((uint64_t)g->grid[2] << 32 | g->block[0])) * m;
    f = (f ^ ((uint64_t)g->block[1] << 32 | g->block[2])) * m;
    f ^= g->smem;
    f = (f ^ (f >> 30)) * 0xbf58476d1ce4e5b9ULL;
    f = (f ^ (f >> 27)) * 0x94d049bb133111ebULL;
    f ^= f >> 31;
    return f == 0 || f == UINT64_MAX ? 1 : f;
}

/* Something the application set on a function or kernel, to be set again on
 * any variant that replaces it. */
#define GT_SET_CACHE_CONFIG (-1) /* cuFuncSetCacheConfig / cuKernelSetCacheConfig */
#define GT_SET_SHMEM_CONFIG (-2) /* cuFuncSetSharedMemConfig */
#define GT_MAX_SETTINGS 16

struct gt_setting {
    int attr;   /* a CUfunction_attribute or GT_SET_* */
    int value;
    int device; /* -1: every device (set through a CUfunction) */
};

struct gt_kernel {
    /* What every launch reads, first, so that it takes one cache line: a
     * framework's own work between two launches evicts the shim's data, and
     * each line the launch path touches then costs a miss. */
    atomic_int planned;      /* 0: not decided, 1: plan holds a configuration to apply, -1: none */
    atomic_int nparams;      /* -1 until the first launch asks the driver */
    struct gt_plan *plan;
    struct gt_map geomset;   /* the fingerprints of geoms, read at every launch without the lock */
    char *name;              /* mangled, as the driver knows it */
    struct gt_image *image;  /* NULL if first met at a launch, loaded by a path the shim missed */
    atomic_ulong launches[GT_NENTRIES][2]; /* by entry point, by handle kind: one increment a launch */
    atomic_ulong captured;   /* launches recorded into a graph, not run */
    atomic_ulong cooperative;
    atomic_ulong applied;    /* launches that ran a variant instead */
    atomic_ulong nodes;      /* graph kernel nodes given a variant (launch/apply.c: gt_apply_node) */
    pthread_mutex_t lock;    /* guards geoms and params */
    struct gt_geom *geoms;
    size_t ngeoms, capgeoms;
    struct gt_param *params;
    struct gt_setting settings[GT_MAX_SETTINGS];
    int nsettings;
    struct gt_kernel *next;  /* all kernels, newest first */
    struct gt_kernel *same_key;
    struct gt_handle *as_kernel; /* its first CUkernel handle, if any (gt_reg_node_function) */
};

struct gt_owner;
struct gt_plan;

struct gt_handle {
    void *h;
    enum gt_handle_kind kind;
    struct gt_kernel *kernel;
    struct gt_owner *owner;
    struct gt_handle *owner_next;
    atomic_int cache_now;     /* the cache preference the shim put on it (enum gt_cache), 0: the application's */
    atomic_int unplanned;     /* its kernel has no plan: launches need nothing more (apply.c) */
};

/* A CUmodule or a CUlibrary: what unloading takes away. */
struct gt_owner {
    void *h;
    int is_library;
    struct gt_image *image;
    struct gt_owner *parent;   /* the library a module was taken from */
    struct gt_owner *children; /* modules taken from this library */
    struct gt_owner *sibling;
    struct gt_handle *handles;
    struct gt_owner *dead_next;
};

struct gt_image *gt_reg_image(const void *image, enum gt_origin origin, const char *path);
void gt_reg_owner(void *h, int is_library, struct gt_image *img, void *parent);
void gt_reg_owner_drop(void *h);
struct gt_image *gt_reg_owner_image(void *h);
struct gt_handle *gt_reg_handle(void *h, enum gt_handle_kind kind, void *owner, const char *name);
struct gt_handle *gt_reg_lookup(void *h);
struct gt_handle *gt_reg_adopt(void *h);
/* The handle of a graph node's function: one the application has, or the
 * context's function of a CUkernel it has (a capture records that). */
struct gt_handle *gt_reg_node_function(void *f);
/* What else a launch was, for gt_reg_note_launch(). */
#define GT_LAUNCH_CAPTURED 1u    /* recorded into a graph under capture */
#define GT_LAUNCH_COOPERATIVE 2u /* cooperative: never tuned */
#define GT_LAUNCH_APPLIED 4u     /* a variant ran in its place */

void gt_reg_learn_params(struct gt_handle *hd);
void gt_reg_note_launch(struct gt_handle *hd, const struct gt_geom *g, enum gt_entry entry, unsigned flags);
/* Launches of k counted at info through entry point `entry` (-1: any) with
 * handle kind `kind` (-1: any). */
unsigned long gt_reg_launches(struct gt_kernel *k, int entry, int kind);
void gt_reg_note_setting(void *h, int attr, int value, int device);
/* The cache preference (a CUfunc_cache) the application set on kernel k for
 * device `device`: CU_FUNC_CACHE_PREFER_NONE where it set none. */
int gt_reg_own_cache(struct gt_kernel *k, int device);
const char *gt_reg_entry_name(enum gt_entry e);

#endif
