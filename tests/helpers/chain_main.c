/* chain_main: prints chain_value() and what dlsym(RTLD_NEXT) finds from the
 * main program; see chain_lib.c. */
#include <dlfcn.h>
#include <stdio.h>

int chain_value(void);

int main(void)
{
    int (*next)(void) = (int (*)(void))dlsym(RTLD_NEXT, "chain_value");
    printf("value %d next %d\n", chain_value(), next ? next() : -1);
    return 0;
}
