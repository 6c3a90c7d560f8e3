/* hook_load.c: the application loading, looking into and unloading code.
 *
 * Each hook calls the driver first and tells the registry only what
 * succeeded, so a failing call returns exactly the driver's error and leaves
 * nothing behind.  In off mode the hooks only forward. */
#include "registry.h"
#include "state.h"

static int watching(CUresult r)
{
    return r == CUDA_SUCCESS && gt.mode != GT_MODE_OFF;
}

static CUresult loaded(CUresult r, void *h, int is_library, const void *image, enum gt_origin origin,
                       const char *path)
{
    if (watching(r))
        gt_reg_owner(h, is_library, gt_reg_image(image, origin, path), NULL);
    return r;
}

CUresult cuModuleLoad(CUmodule *m, const char *path)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuModuleLoad(m, path);
    return loaded(r, r == CUDA_SUCCESS ? *m : NULL, 0, NULL, GT_FROM_FILE, path);
}

CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuModuleLoadData(m, image);
    return loaded(r, r == CUDA_SUCCESS ? *m : NULL, 0, image, GT_FROM_MEMORY, NULL);
}

CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n, CUjit_option *opts, void **vals)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuModuleLoadDataEx(m, image, n, opts, vals);
    return loaded(r, r == CUDA_SUCCESS ? *m : NULL, 0, image, GT_FROM_MEMORY, NULL);
}

CUresult cuModuleLoadFatBinary(CUmodule *m, const void *fatbin)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuModuleLoadFatBinary(m, fatbin);
    return loaded(r, r == CUDA_SUCCESS ? *m : NULL, 0, fatbin, GT_FROM_MEMORY, NULL);
}

CUresult cuLibraryLoadData(CUlibrary *lib, const void *code, CUjit_option *jit_opts, void **jit_vals,
                           unsigned njit, CUlibraryOption *lib_opts, void **lib_vals, unsigned nlib)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuLibraryLoadData(lib, code, jit_opts, jit_vals, njit, lib_opts, lib_vals, nlib);
    return loaded(r, r == CUDA_SUCCESS ? *lib : NULL, 1, code, GT_FROM_MEMORY, NULL);
}

CUresult cuLibraryLoadFromFile(CUlibrary *lib, const char *path, CUjit_option *jit_opts, void **jit_vals,
                               unsigned njit, CUlibraryOption *lib_opts, void **lib_vals, unsigned nlib)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuLibraryLoadFromFile(lib, path, jit_opts, jit_vals, njit, lib_opts, lib_vals, nlib);
    return loaded(r, r == CUDA_SUCCESS ? *lib : NULL, 1, NULL, GT_FROM_FILE, path);
}

CUresult cuModuleUnload(CUmodule m)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuModuleUnload(m);
    if (watching(r))
        gt_reg_owner_drop(m);
    return r;
}

CUresult cuLibraryUnload(CUlibrary lib)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuLibraryUnload(lib);
    if (watching(r))
        gt_reg_owner_drop(lib);
    return r;
}

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuModuleGetFunction(f, m, name);
    if (watching(r))
        gt_reg_handle(*f, GT_HANDLE_FUNCTION, m, name);
    return r;
}

CUresult cuLibraryGetKernel(CUkernel *k, CUlibrary lib, const char *name)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuLibraryGetKernel(k, lib, name);
    if (watching(r))
        gt_reg_handle(*k, GT_HANDLE_KERNEL, lib, name);
    return r;
}

CUresult cuLibraryGetModule(CUmodule *m, CUlibrary lib)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuLibraryGetModule(m, lib);
    if (watching(r))
        gt_reg_owner(*m, 0, NULL, lib);
    return r;
}

CUresult cuKernelGetFunction(CUfunction *f, CUkernel k)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuKernelGetFunction(f, k);
    if (watching(r)) {
        struct gt_handle *hd = gt_reg_lookup(k);
        if (!hd)
            hd = gt_reg_adopt(k);
        if (hd)
            gt_reg_handle(*f, GT_HANDLE_FUNCTION, hd->owner ? hd->owner->h : NULL, hd->kernel->name);
    }
    return r;
}

CUresult cuModuleEnumerateFunctions(CUfunction *fns, unsigned n, CUmodule m)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuModuleEnumerateFunctions(fns, n, m);
    for (unsigned i = 0; watching(r) && i < n; i++) {
        const char *name = NULL;
        if (gt.drv.cuFuncGetName && gt.drv.cuFuncGetName(&name, fns[i]) == CUDA_SUCCESS)
            gt_reg_handle(fns[i], GT_HANDLE_FUNCTION, m, name);
    }
    return r;
}

CUresult cuLibraryEnumerateKernels(CUkernel *ks, unsigned n, CUlibrary lib)
{
    GT_REQUIRE_DRIVER();
    CUresult r = gt.drv.cuLibraryEnumerateKernels(ks, n, lib);
    for (unsigned i = 0; watching(r) && i < n; i++) {
        const char *name = NULL;
        if (gt.drv.cuKernelGetName && gt.drv.cuKernelGetName(&name, ks[i]) == CUDA_SUCCESS)
            gt_reg_handle(ks[i], GT_HANDLE_KERNEL, lib, name);
    }
    return r;
}
