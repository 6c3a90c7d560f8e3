/* fuzz_expr: any bytes as an expression: compiling never crashes, every
 * refusal has exactly one located message, and whatever compiles evaluates
 * without undefined behaviour for values taken from the input. */
#include "../expr.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static const char *const dims[] = {"A", "B", "cache"};
    static const unsigned char opaque[] = {0, 0, 1};
    struct gt_names names = {0};
    struct gt_expr_scope sc = {dims, opaque, 3, GT_USES_DIM | GT_USES_ORIG | GT_USES_ARG | GT_USES_BLOCK, &names, "x"};
    struct gt_srcpiece pieces[2] = {{0, 1, 1}, {size / 2, 2, 5}};
    struct gt_srcmap map = {"f.ini", pieces, 2};
    struct gt_diags d = {0};
    struct gt_expr *e = NULL;
    int r = gt_expr_compile((const char *)data, size, 0, &map, &sc, &e, &d);
    if ((r < 0) != (e == NULL) || (r < 0 && d.n != 1) || (r == 0 && d.n != 0))
        abort();
    if (e) {
        int64_t v[16] = {0};
        memcpy(v, data, size < sizeof v ? size : sizeof v);
        int64_t args[4] = {v[3], v[4], v[5], v[6]}, block[3] = {v[7], v[8], v[9]}, out;
        unsigned char ok[4] = {1, 0, 1, 1};
        int argpos[8] = {0, 1, 2, 3, -1, 0, 1, 2};
        struct gt_launch l = {{v[10], v[11], v[12], v[13], v[14], v[15], v[0]}, 4, args, ok, argpos, 8};
        struct gt_expr_env env = {v, size % 2 ? &l : NULL, size % 3 ? block : NULL};
        struct gt_expr_err err;
        if (gt_expr_eval(e, &env, &out, &err) < 0) {
            char msg[256];
            gt_expr_error_text(e, &err, msg, sizeof msg);
            struct gt_loc loc = gt_expr_error_loc(e, &err);
            if (loc.line < 1 || loc.col < 1)
                abort();
        }
        gt_expr_free(e);
    }
    gt_diags_clear(&d);
    gt_names_clear(&names);
    return 0;
}
