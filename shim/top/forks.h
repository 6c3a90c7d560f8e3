/* forks.h: what a child made by fork() keeps of the shim (see forks.c). */
#ifndef GT_FORKS_H
#define GT_FORKS_H

void gt_forks_init(void);

#endif
