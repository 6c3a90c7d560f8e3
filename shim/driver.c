/* driver.c: the real CUDA driver behind the shim.
 *
 * The shim never links libcuda and never loads a driver the application did
 * not load itself: it looks up the libcuda.so.1 already in the process
 * (RTLD_NOLOAD) and resolves from it every entry point of driver.def by its
 * exact ABI name.  If there is none, the shim stays inert and the
 * application sees exactly what it would see without it.  Drivers of CUDA
 * 12 and 13 are served alike: what a CUDA 12 driver lacks is either
 * replaced by its older version (driver.def's GT_USE_OR) or turns tuning
 * off, said once either way. */
#include "state.h"
#include "elfsym.h"

#include <dlfcn.h>
#include <pthread.h>

struct gt_driver *const gt_drv = &gt.drv;

/* Every entry point of driver.def, from the driver's handle h.  One that an
 * older driver lacks (cuEventElapsedTime_v2 came with CUDA 12.8) is
 * replaced by its older version where driver.def names one, said once. */
static void resolve(void *h)
{
#define GT_HOOK(name, type) gt.drv.name = (type)gt_elfsym_dlsym(h, #name);
#define GT_USE(name, type) \
    if (!(gt.drv.name = (type)gt_elfsym_dlsym(h, #name)) && !gt.drv.lacks) gt.drv.lacks = #name;
#define GT_USE_OR(name, type, older)                                                  \
    if (!(gt.drv.name = (type)gt_elfsym_dlsym(h, #name)) &&                           \
        (gt.drv.name = (type)gt_elfsym_dlsym(h, #older)) != NULL)                     \
        gt_info("the driver has no %s; the shim calls %s in its place", #name, #older); \
    else if (!gt.drv.name && !gt.drv.lacks)                                           \
        gt.drv.lacks = #name;
#include "driver.def"
#undef GT_HOOK
#undef GT_USE
#undef GT_USE_OR
}

/* The driver's own version, which cache entries are keyed by: from the
 * name of the libcuda file the process loaded, else from the kernel
 * module (cudalibs.c says why not NVML). */
static void read_release(void)
{
    Dl_info info;
    const char *file = gt.drv.cuDriverGetVersion && dladdr((void *)gt.drv.cuDriverGetVersion, &info)
                           ? info.dli_fname : NULL;
    gt_cudalib_driver_version(file, "/proc/driver/nvidia/version", gt.drv.release, sizeof gt.drv.release);
}

static void open_once(void)
{
    gt_init();
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!h) {
        gt_debug("libcuda.so.1 is not loaded; the shim stays inert");
        atomic_store(&gt.drv.status, -1);
        return;
    }
    gt.drv.handle = h;
    resolve(h);
    if (gt.drv.cuDriverGetVersion)
        gt.drv.cuDriverGetVersion(&gt.drv.cuda);
    read_release();
    gt_debug("driver opened: CUDA %d.%d, driver %s", gt.drv.cuda / 1000, gt.drv.cuda % 1000 / 10,
             gt.drv.release[0] ? gt.drv.release : "version not known (neither the libcuda file name nor "
                                                  "/proc/driver/nvidia/version says)");
    if (gt.drv.lacks)
        gt_info("the driver has no %s: kernels are watched but not tuned", gt.drv.lacks);
    atomic_store_explicit(&gt.drv.status, 1, memory_order_release);
}

int gt_driver_open(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, open_once);
    return atomic_load(&gt.drv.status) > 0;
}

const char *gt_cu_error(CUresult r)
{
    const char *s = NULL;
    if (gt.drv.cuGetErrorName)
        gt.drv.cuGetErrorName(r, &s);
    return s ? s : "unknown CUDA error";
}
