/* nvrtc_hooks.h: the application's calls to NVRTC (see nvrtc_hooks.c). */
#ifndef GT_NVRTC_HOOKS_H
#define GT_NVRTC_HOOKS_H

void *gt_nvrtc_symbol(const char *name, void *p);

#endif
