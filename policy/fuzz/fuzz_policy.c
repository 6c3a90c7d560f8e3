/* fuzz_policy: any bytes as a policy file: reading never crashes, every
 * message has a place in the file, and the spaces of the sections build,
 * enumerate (bounded), print and parse back, and give a geometry. */
#include "../policy.h"

#include <stdlib.h>
#include <string.h>

static void exercise(const struct gt_section *sec, const struct gt_arch *a, struct gt_diags *d)
{
    struct gt_space *s = gt_policy_space(sec, a, sec->source ? 0 : GT_SPACE_NO_JIT, d);
    if (!s)
        return;
    int64_t args[4] = {1000, 7, 3, 1 << 20};
    int argpos[64];
    for (int i = 0; i < 64; i++)
        argpos[i] = i % 5 - 1;
    struct gt_launch l = {{4, 2, 1, 128, 2, 1, 512}, 4, args, NULL, argpos, sec->argnames.n < 64 ? sec->argnames.n : 64};
    struct gt_space_iter it;
    if (gt_space_iter_init(&it, s, &l) == 0) {
        char buf[4096], err[512];
        uint32_t back[64];
        for (int n = 0; n < 64 && gt_space_iter_next(&it) == 1; n++) {
            if (gt_space_format(s, it.cfg, buf, sizeof buf) >= (int)sizeof buf || s->ndims > 64)
                continue;
            if (gt_space_parse(s, buf, 0, back, err, sizeof err, NULL) < 0 ||
                memcmp(back, it.cfg, s->ndims * sizeof *back) != 0)
                abort(); /* every configuration must read back as itself */
            struct gt_geometry g;
            gt_policy_geometry(sec, s, it.cfg, &l, a, &g, err, sizeof err);
            gt_policy_entry(sec, s, it.cfg, buf, sizeof buf);
        }
        gt_space_iter_clear(&it);
    }
    uint64_t count;
    if (gt_space_iter_init(&it, s, NULL) == 0) {
        gt_space_count(&it, 20000, &count);
        gt_space_iter_clear(&it);
    }
    int64_t sig[8];
    char err[512];
    gt_policy_signature(sec, &l, sig, 8, err, sizeof err);
    gt_space_free(s);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    struct gt_policy *p = gt_policy_new();
    struct gt_diags d = {0};
    gt_policy_load_string(p, "fuzz.ini", (const char *)data, size, &d);
    for (size_t i = 0; i < d.n; i++)
        if (strcmp(d.v[i].file, "fuzz.ini") != 0 || (d.v[i].line < 1 && d.v[i].col != 0))
            abort();
    struct gt_arch a;
    gt_arch_for_sm(90, &a);
    for (size_t i = 0; i < p->nsections; i++)
        exercise(p->sections[i], &a, &d);
    gt_policy_find(p, "_Z5saxpyifPKfPf", "saxpy(int, float, float const*, float*)");
    gt_diags_clear(&d);
    gt_policy_free(p);
    return 0;
}
