/* report.h: what the shim tells the user at exit (see report.c). */
#ifndef GT_REPORT_H
#define GT_REPORT_H

void gt_report_exit(void);

#endif
