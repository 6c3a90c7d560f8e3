/* interpose.h: how the application's calls reach the shim (see interpose.c). */
#ifndef GT_INTERPOSE_H
#define GT_INTERPOSE_H

void *gt_real_dlsym(void *handle, const char *name);
void gt_interpose_build(void);
void gt_interpose_report(void);

#endif
