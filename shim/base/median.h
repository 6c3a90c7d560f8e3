/* median.h: the median of measured times (see median.c). */
#ifndef GT_MEDIAN_H
#define GT_MEDIAN_H

double gt_median(double *v, int n);

#endif
