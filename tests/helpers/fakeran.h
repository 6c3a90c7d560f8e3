/* fakeran.h: what the stand-in driver (fakecuda.c) tells the stand-in CUPTI
 * (fake_libcupti.c) of the launches it ran, so that CUPTI's kernel records
 * can be made of them.  Kept only while FAKECUPTI_US is set. */
#ifndef FAKERAN_H
#define FAKERAN_H

#include <stddef.h>

struct fakecuda_ran {
    char name[128];
    int from_module; /* a function of a module loaded by cuModuleLoadData: a variant the shim built */
    int l1;          /* it prefers L1 */
};

/* The launches run since the last call, the oldest first, at most max of
 * them into out; the rest are forgotten.  Returns how many. */
typedef size_t fakecuda_take_ran_fn(struct fakecuda_ran *out, size_t max);

#endif
