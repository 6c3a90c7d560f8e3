/* ptxcost.h: a kernel's dynamic instruction count and blocking regions, estimated from its PTX (see ptxcost.c). */
#ifndef GT_PTXCOST_H
#define GT_PTXCOST_H

#include <stddef.h>

struct gt_ptxcost_launch {
    const void *const *args;   /* one pointer per kernel parameter, in order, as cuLaunchKernel's kernelParams; each points at the parameter's bytes (size as the PTX declares it) */
    unsigned nargs;
    unsigned block[3], grid[3];
    long max_steps;            /* instructions to interpret at most (<= 0: a default of 200 million) */
};

struct gt_ptxcost {
    double instr;        /* PTX instructions thread 0 of block 0 executed (labels and directives not counted) */
    double regions;      /* 1 + blocking events: first uses of global loads, barriers, asynchronous waits */
    unsigned guessed;    /* conditional branches (and ret, exit) whose predicate was unknown (taken as: not taken) */
    int complete;        /* 1: reached ret/exit; 0: stopped at max_steps (counts so far) */
};

/* 0, or -1 with err set (no such entry, PTX it cannot read, a parameter
 * missing or not matching, out of memory).  entry: the .entry's name; NULL
 * means the module's only entry. */
int gt_ptxcost(const char *ptx, size_t size, const char *entry, const struct gt_ptxcost_launch *l,
               struct gt_ptxcost *out, char *err, size_t errlen);

#endif
