/* ptxtext.h: hand-written PTX modules for the unit tests of PTX readers.
 *
 * ptx_kernel_module(before, params, decls, body): a module for sm_90 with
 * `before` ahead of one kernel k(params) whose body is its register and
 * state declarations `decls`, then `body`.  Out of memory bails out. */
#ifndef GT_TEST_PTXTEXT_H
#define GT_TEST_PTXTEXT_H

#include <stdio.h>
#include <stdlib.h>

static char *ptx_kernel_module(const char *before, const char *params, const char *decls, const char *body)
{
    char *text = NULL;
    if (asprintf(&text, ".version 8.0\n.target sm_90\n.address_size 64\n\n%s.visible .entry k(%s)\n{\n%s%s}\n",
                 before, params, decls, body) < 0) {
        printf("Bail out! out of memory\n");
        exit(1);
    }
    return text;
}

#endif
