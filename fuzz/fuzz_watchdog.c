/* fuzz_watchdog.c: libFuzzer target for the watchdog's instrumentation:
 * every kernel of whatever parses is instrumented, and what comes out must
 * parse again with the same kernels. */
#include "policy.h"
#include "ptx.h"
#include "watchdog.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), err[256];
    struct gt_ptx_module m, again;
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if (gt_ptx_parse(text, strlen(text), &m, err, sizeof err) != 0) {
        free(text);
        return 0;
    }
    for (size_t i = 0; i < m.nfuncs; i++) {
        struct gt_wd_report rep;
        char *out = NULL;
        if (!m.funcs[i].is_entry || m.funcs[i].is_extern)
            continue;
        int mode = i % 2 ? GT_WATCHDOG_ENTRY : GT_WATCHDOG_LOOPS;
        if (gt_watchdog_instrument(text, m.funcs[i].name, mode, &out, &rep, err, sizeof err) == 0) {
            if (gt_ptx_parse(out, strlen(out), &again, err, sizeof err) != 0 || again.nentries != m.nentries)
                abort(); /* instrumentation broke a module the parser understood */
            gt_ptx_free(&again);
        }
        free(out);
    }
    gt_ptx_free(&m);
    free(text);
    return 0;
}
