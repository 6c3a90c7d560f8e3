/* interpose.h: how the application's calls reach the shim (see interpose.c). */
#ifndef GT_INTERPOSE_H
#define GT_INTERPOSE_H

void gt_interpose_report(void);
void gt_interpose_check_bypass(void);

#endif
