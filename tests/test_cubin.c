/* test_cubin.c: kernels, resources and parameter layouts read from cubins
 * compiled at test time, checked against what ptxas -v reported and
 * against the PTX of the same source. */
#include "cubin.h"
#include "fixtures.h"
#include "modvars.h"
#include "ptx.h"

static struct gt_cubin load(const char *name)
{
    size_t size;
    unsigned char *b = fx_read(name, &size);
    struct gt_cubin c;
    char err[128] = "";
    if (gt_cubin_parse(b, size, &c, err, sizeof err) != 0) {
        printf("Bail out! %s: %s\n", name, err);
        exit(1);
    }
    free(b);
    return c;
}

static const struct gt_cubin_kernel *kernel(const struct gt_cubin *c, const char *name)
{
    for (size_t i = 0; i < c->nkernels; i++)
        if (strcmp(c->kernels[i].name, name) == 0)
            return &c->kernels[i];
    return NULL;
}

static void test_kernels(const struct gt_cubin *c, const char *what)
{
    int all = c->nkernels == FX_NKERNELS;
    for (size_t i = 0; i < FX_NKERNELS; i++)
        all &= kernel(c, fx_kernels[i]) != NULL;
    ok(all, "%s: exactly the kernels of kernels.cu (%zu)", what, c->nkernels);
    ok(c->nfunctions > c->nkernels, "%s: and a device function besides (%zu functions)", what, c->nfunctions);
}

/* Registers, static shared memory and stack frame as ptxas -v gave them. */
static void test_resources(const struct gt_cubin *c, const char *ptxas, const char *what)
{
    for (size_t i = 0; i < FX_NKERNELS; i++) {
        struct fx_resources r;
        const struct gt_cubin_kernel *k = kernel(c, fx_kernels[i]);
        if (!fx_ptxas(ptxas, fx_kernels[i], &r) || !k) {
            ok(0, "%s: ptxas reported on %s", what, fx_kernels[i]);
            continue;
        }
        ok(k->regs == r.regs && (int)k->shared == r.smem && (int)k->local == r.stack,
           "%s %s: %d registers, %u B shared, %u B stack (ptxas: %d, %d, %d)", what, k->name, k->regs, k->shared,
           k->local, r.regs, r.smem, r.stack);
    }
}

static void test_params(const struct gt_cubin *c)
{
    const struct gt_cubin_kernel *k = kernel(c, "mixed");
    /* mixed(Pack, char, short, long long, float4, float *) */
    static const uint32_t off[] = {0, 32, 34, 40, 48, 64}, size[] = {32, 1, 2, 8, 16, 8};
    int same = k && k->nparams == 6 && k->param_bytes == 72;
    for (unsigned i = 0; same && i < 6; i++)
        same = k->params[i].ordinal == i && k->params[i].offset == off[i] && k->params[i].size == size[i];
    ok(same, "mixed: six parameters at the offsets and sizes of their C types, 72 bytes");
    ok(k && k->max_threads[0] == 128 && k->max_threads[1] == 1, "mixed: __launch_bounds__(128) read back");
    ok(k && k->param_base > 0 && k->const0 >= k->param_base + k->param_bytes,
       "mixed: parameters lie inside constant bank 0 (at %u of %u)", k ? k->param_base : 0, k ? k->const0 : 0);
    const struct gt_cubin_kernel *e = kernel(c, "empty_kernel");
    ok(e && e->nparams == 0 && e->param_bytes == 0, "empty_kernel: no parameters");
    const struct gt_cubin_kernel *r = kernel(c, "_Z6reduceIfEvPKT_PS0_i");
    ok(r && r->barriers == 1, "reduce<float>: one barrier");
}

/* The cubin's layout of each kernel's parameters is the PTX's. */
static void test_against_ptx(const struct gt_cubin *c)
{
    size_t size;
    char *text = (char *)fx_read("kernels.ptx", &size);
    struct gt_ptx_module m;
    char err[128];
    if (gt_ptx_parse(text, size, &m, err, sizeof err) != 0) {
        ok(0, "kernels.ptx parses: %s", err);
        free(text);
        return;
    }
    for (size_t i = 0; i < FX_NKERNELS; i++) {
        const struct gt_ptx_func *f = gt_ptx_find(&m, fx_kernels[i]);
        const struct gt_cubin_kernel *k = kernel(c, fx_kernels[i]);
        int same = f && k && f->nparams == k->nparams && f->param_bytes == k->param_bytes;
        for (unsigned j = 0; same && j < f->nparams; j++)
            same = f->params[j].offset == k->params[j].offset && f->params[j].size == k->params[j].size;
        ok(same, "%s: .nv.info parameter layout equals the PTX's (%u params, %u bytes)", fx_kernels[i],
           k ? k->nparams : 0, k ? k->param_bytes : 0);
    }
    gt_ptx_free(&m);
    free(text);
}

static void test_variables(const struct gt_cubin *c)
{
    int hits = 0, coef = 0, unused = 0;
    for (size_t i = 0; i < c->nvars; i++) {
        hits += strcmp(c->vars[i].name, "hits") == 0 && c->vars[i].space == GT_CUBIN_GLOBAL && c->vars[i].size == 4;
        coef += strcmp(c->vars[i].name, "coef") == 0 && c->vars[i].space == GT_CUBIN_CONST && c->vars[i].size == 64;
        unused += strcmp(c->vars[i].name, "unused_table") == 0 && c->vars[i].size == 32;
    }
    ok(c->nvars == 3 && hits && coef && unused, "module variables: hits (global), coef (constant), unused_table");
    ok(!kernel(c, "scale")->vars_known, "a linked cubin does not say which kernel uses which");
}

/* The names gt_modvars gives kernel in kernels.cubin, with the PTX or
 * without, as "name:writable ...". */
static const char *modvars_of(const unsigned char *cubin, size_t size, const char *ptx, const char *kernel)
{
    static char out[256];
    struct gt_modvar *v;
    int n;
    if (gt_modvars(cubin, size, ptx, kernel, 90, &v, &n) != 0)
        return "error";
    out[0] = 0;
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s:%d", i ? " " : "", v[i].name, v[i].writable);
    gt_modvars_free(v, n);
    return out;
}

/* A linked cubin names no variables per kernel: all count, unless the PTX
 * it was compiled from says which the kernel reaches. */
static void test_modvars(void)
{
    size_t size, psize;
    unsigned char *b = fx_read("kernels.cubin", &size);
    char *ptx = (char *)fx_read("kernels.ptx", &psize);
    is_str(modvars_of(b, size, NULL, "scale"), "hits:1 coef:0 unused_table:1", "without the PTX: every variable");
    is_str(modvars_of(b, size, ptx, "scale"), "coef:0", "with it: scale reads coef alone");
    is_str(modvars_of(b, size, ptx, "count_hits"), "hits:1", "  count_hits writes hits");
    is_str(modvars_of(b, size, ptx, "empty_kernel"), "", "  empty_kernel reaches none");
    is_str(modvars_of(b, size, ptx, "no_such_kernel"), "hits:1 coef:0 unused_table:1",
           "  a kernel the PTX does not define: every variable");
    is_str(modvars_of(b, size, "not PTX", "scale"), "hits:1 coef:0 unused_table:1",
           "  PTX that does not parse: the same");
    free(ptx);
    free(b);
}

static void test_relocatable(void)
{
    struct gt_cubin c = load("linked_a.cubin");
    ok(c.relocatable, "linked_a.cubin: relocatable");
    const struct gt_cubin_kernel *a = kernel(&c, "linked_apply"), *u = kernel(&c, "linked_unreferenced");
    ok(c.nkernels == 2 && a && u, "linked_a.cubin: both kernels");
    ok(a && a->vars_known && u && u->vars_known, "relocations say which variables they use");
    gt_cubin_free(&c);
}

static void test_suffix(void)
{
    size_t size;
    unsigned char *b = fx_read("kernels.cubin", &size);
    int arch = 0;
    is_int(gt_cubin_arch(b, size, &arch), 0, "the architecture is read from the header alone");
    is_int(arch, 90, "  sm_90");
    struct gt_cubin c;
    char err[128] = "";
    is_int(gt_cubin_parse(b, 40, &c, err, sizeof err), -1, "a cut header is an error");
    b[18] = 62; /* EM_X86_64 */
    is_int(gt_cubin_parse(b, size, &c, err, sizeof err), -1, "so is a host ELF");
    ok(strstr(err, "CUDA") != NULL, "  saying what is wrong: %s", err);
    is_int(gt_cubin_parse((const unsigned char *)"hello", 5, &c, err, sizeof err), -1, "and text");
    free(b);
}

int main(void)
{
    fx_dir();
    struct gt_cubin c = load("kernels.cubin");
    is_int(c.arch, 90, "kernels.cubin: sm_90");
    ok(!c.relocatable && c.suffix == 0, "kernels.cubin: linked, no architecture suffix");
    test_kernels(&c, "kernels.cubin");
    test_resources(&c, "kernels.ptxas", "sm_90");
    test_params(&c);
    test_against_ptx(&c);
    test_variables(&c);
    gt_cubin_free(&c);

    c = load("kernels75.cubin");
    is_int(c.arch, 75, "kernels75.cubin: sm_75");
    test_kernels(&c, "kernels75.cubin");
    test_resources(&c, "kernels75.ptxas", "sm_75");
    gt_cubin_free(&c);

    test_relocatable();
    test_modvars();
    test_suffix();
    return done_testing();
}
