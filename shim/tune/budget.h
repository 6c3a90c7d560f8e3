/* budget.h: what tune mode spends, hottest signatures first (see budget.c). */
#ifndef GT_BUDGET_H
#define GT_BUDGET_H

#include "driver.h"

#include <stdint.h>

struct gt_plan;
struct gt_handle;
struct gt_call;

/* What a launch of a signature not tuned yet does. */
enum gt_budget_turn {
    GT_BUDGET_TUNE,     /* its session starts now */
    GT_BUDGET_WAIT,     /* it waits for its turn: the caller launches the original */
    GT_BUDGET_RAN,      /* it waits for its turn: the launch ran (timed), its result in *r */
    GT_BUDGET_SPENT,    /* the budget is spent: nothing more is tuned in this process */
};

enum gt_budget_turn gt_budget_turn(struct gt_plan *p, const struct gt_call *c, uint64_t sig, CUresult *r);
/* A graph's kernel node about to be tuned: GT_BUDGET_TUNE, counted as a
 * signature seen and tuned, or GT_BUDGET_SPENT. */
enum gt_budget_turn gt_budget_node(const struct gt_plan *p, uint64_t sig);
/* Microseconds one direct launch of the signature took, as its meter
 * timed it under a budget; 0: unknown, or no budget. */
double gt_budget_launch_us(const struct gt_plan *p, uint64_t sig);
/* Lets go of the meters' events before a context goes (see budget.c). */
void gt_budget_detach(void);
/* Seconds a session starting now may take at most, given `wanted`. */
double gt_budget_allows(double wanted);
/* A session ended after `seconds`, its winner `speedup` times as fast. */
void gt_budget_spend(double seconds, double speedup);
/* At exit: what the budget bought. */
void gt_budget_exit(void);

#endif
