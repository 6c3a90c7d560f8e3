/* chain_lib.c: two libraries defining chain_value(), to test RTLD_NEXT.
 *
 * Built plainly it is libtarget.so (returns 10); built with CHAIN_WRAPPER it
 * is libchain.so, a wrapper preloaded after the shim that finds the next
 * definition with dlsym(RTLD_NEXT) and adds 1.  If the shim's dlsym forgot
 * who called it, the wrapper would find itself and recurse forever. */
#include <dlfcn.h>

int chain_value(void);

#ifdef CHAIN_WRAPPER
int chain_value(void)
{
    int (*next)(void) = (int (*)(void))dlsym(RTLD_NEXT, "chain_value");
    return next ? 1 + next() : -1000;
}
#else
int chain_value(void)
{
    return 10;
}
#endif
