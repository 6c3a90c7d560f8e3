/* test_ptx.c: PTX declarations, variable use and loop heads, on PTX that
 * nvcc emitted at test time and on hand-written PTX with the corners the
 * compiler rarely produces. */
#include "fixtures.h"
#include "ptx.h"

static const struct gt_ptx_var *var(const struct gt_ptx_module *m, const char *name)
{
    for (size_t i = 0; i < m->nvars; i++)
        if (strcmp(m->vars[i].name, name) == 0)
            return &m->vars[i];
    return NULL;
}

/* The variables a function uses, "a,b" in module order. */
static const char *uses(const struct gt_ptx_module *m, const char *func)
{
    static char buf[256];
    const struct gt_ptx_func *f = gt_ptx_find(m, func);
    buf[0] = '\0';
    for (unsigned i = 0; f && i < f->nvars; i++) {
        strncat(buf, i ? "," : "", sizeof buf - strlen(buf) - 1);
        strncat(buf, m->vars[f->vars[i]].name, sizeof buf - strlen(buf) - 1);
    }
    return f ? buf : "(no such function)";
}

/* Loop heads of a function as "label@line,...". */
static const char *loops(const struct gt_ptx_module *m, const char *text, const char *func)
{
    static char buf[256];
    const struct gt_ptx_func *f = gt_ptx_find(m, func);
    buf[0] = '\0';
    for (unsigned i = 0; f && i < f->nloops; i++) {
        char one[64];
        const struct gt_ptx_loop *l = &f->loops[i];
        int at_label = strncmp(text + l->offset, l->label, strlen(l->label)) == 0;
        snprintf(one, sizeof one, "%s%s@%u%s", i ? "," : "", l->label, l->line, at_label ? "" : "(misplaced)");
        strncat(buf, one, sizeof buf - strlen(buf) - 1);
    }
    return f ? buf : "(no such function)";
}

static void test_compiled(void)
{
    size_t size;
    char *text = (char *)fx_read("kernels.ptx", &size);
    struct gt_ptx_module m;
    char err[128] = "";
    is_int(gt_ptx_parse(text, size, &m, err, sizeof err), 0, "kernels.ptx parses %s", err);
    is_int(m.version, 900, "  .version 9.0");
    is_int(m.target, 90, "  .target sm_90");
    is_int(m.address_size, 64, "  .address_size 64");
    is_int(m.nentries, FX_NKERNELS, "  all kernels are entries");
    int all = 1;
    for (size_t i = 0; i < FX_NKERNELS; i++)
        all &= gt_ptx_find(&m, fx_kernels[i]) && gt_ptx_find(&m, fx_kernels[i])->is_entry;
    ok(all, "  by the names of kernels.cu");
    const struct gt_ptx_func *bump = gt_ptx_find(&m, "_Z4bumpi");
    ok(bump && !bump->is_entry && !bump->is_extern, "  bump() is a defined device function");
    ok(var(&m, "hits") && var(&m, "hits")->space == GT_PTX_GLOBAL && var(&m, "hits")->size == 4,
       "  hits: .global, 4 bytes");
    ok(var(&m, "coef") && var(&m, "coef")->space == GT_PTX_CONST && var(&m, "coef")->size == 64,
       "  coef: .const, 64 bytes");
    ok(var(&m, "unused_table") && var(&m, "unused_table")->size == 32, "  unused_table: 32 bytes");
    is_str(uses(&m, "scale"), "coef", "scale uses coef");
    is_str(uses(&m, "count_hits"), "hits", "count_hits uses hits through bump()");
    is_str(uses(&m, "_Z6reduceIfEvPKT_PS0_i"), "hits", "reduce<float> uses hits");
    is_str(uses(&m, "empty_kernel"), "", "empty_kernel uses nothing");
    const struct gt_ptx_func *mixed = gt_ptx_find(&m, "mixed");
    ok(mixed && mixed->maxntid[0] == 128 && mixed->maxntid[1] == 1 && mixed->maxntid[2] == 1,
       "mixed: .maxntid 128, 1, 1");
    static const uint32_t off[] = {0, 32, 34, 40, 48, 64}, sz[] = {32, 1, 2, 8, 16, 8}, al[] = {8, 1, 2, 8, 16, 8};
    int layout = mixed && mixed->nparams == 6 && mixed->param_bytes == 72;
    for (unsigned i = 0; layout && i < 6; i++)
        layout = mixed->params[i].offset == off[i] && mixed->params[i].size == sz[i] && mixed->params[i].align == al[i];
    ok(layout, "mixed: parameter offsets, sizes and alignments");
    ok(mixed && strcmp(mixed->params[0].type, "b8") == 0 && strstr(mixed->params[0].name, "mixed_param_0"),
       "mixed: parameter 0 is .b8 mixed_param_0[32]");
    const struct gt_ptx_func *cnt = gt_ptx_find(&m, "count_hits"), *red = gt_ptx_find(&m, "_Z6reduceIfEvPKT_PS0_i");
    ok(cnt && cnt->nloops >= 1, "count_hits has its loop: %s", loops(&m, text, "count_hits"));
    ok(red && red->nloops >= 2, "reduce<float> has its two loops: %s", loops(&m, text, "_Z6reduceIfEvPKT_PS0_i"));
    ok(!strstr(loops(&m, text, "count_hits"), "misplaced") && !strstr(loops(&m, text, "_Z6reduceIfEvPKT_PS0_i"), "misplaced"),
       "loop head offsets point at their labels");
    is_str(loops(&m, text, "scale"), "", "scale has no loop");
    ok(red && text[red->body] == '{' && text[red->end - 1] == '}' && red->begin < red->body,
       "a body's offsets frame its braces");
    gt_ptx_free(&m);
    free(text);
}

static const char handmade[] =
    ".version 8.5\n"
    ".target sm_90a, debug\n"
    ".address_size 64\n"
    "// a comment with a { brace\n"
    "/* and a block comment } */\n"
    ".global .align 4 .b32 tbl[4] = {1, 2, 3, 4};\n"
    ".global .u32 a, b[2];\n"
    ".const .align 8 .v2 .f32 vv;\n"
    ".extern .global .align 1 .b8 ext[];\n"
    ".shared .align 4 .b8 sh[16];\n"
    ".extern .func (.param .b32 r) helper (.param .b32 x);\n"
    ".func (.param .b32 r) leaf (.param .b32 x)\n"
    "{\n"
    "  .reg .b32 %r<3>;\n"
    "  ld.global.u32 %r1, [ext];\n"
    "  st.param.b32 [r], %r1;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry nest (\n"
    "  .param .u64 .ptr .global .align 16 nest_p,\n"
    "  .param .align 16 .b8 nest_s[24],\n"
    "  .param .u32 nest_n\n"
    ")\n"
    ".reqntid 64, 2\n"
    ".minnctapersm 4\n"
    ".maxnreg 32\n"
    ".pragma \"nounroll\";\n"
    "{\n"
    "  .reg .pred %p<4>;\n"
    "  .reg .b32 %r<9>;\n"
    "  ld.param.u32 %r1, [nest_n];\n"
    "  @%p1 bra SKIP;\n"
    "OUTER:\n"
    "  mov.u32 %r2, 0;\n"
    "INNER :\n"
    "  ld.global.u32 %r3, [tbl];\n"
    "  add.u32 %r2, %r2, 1;\n"
    "  @!%p2 bra INNER;\n"
    "  { .reg .b32 t;\n"
    "    call.uni (t), leaf, (%r2);\n"
    "  }\n"
    "  @%p3 bra.uni OUTER;\n"
    "SKIP:\n"
    "  st.global.u32 [a], %r2;\n"
    "  ret;\n"
    "}\n"
    ".entry noparams\n"
    "{\n"
    "TOP:\n"
    "  ld.const.f32 %f1, [vv];\n"
    "  proto: .callprototype (.param .b32 _) _ (.param .b32 _);\n"
    "  call (%r1), %rd1, (%r2), proto;\n"
    "  jt: .branchtargets TOP, DOWN;\n"
    "  brx.idx %r3, jt;\n"
    "DOWN:\n"
    "  ret;\n"
    "}\n"
    ".entry declared_only (.param .u32 x);\n";

static void test_handmade(void)
{
    struct gt_ptx_module m;
    char err[128] = "";
    is_int(gt_ptx_parse(handmade, strlen(handmade), &m, err, sizeof err), 0, "hand-written PTX parses %s", err);
    ok(m.version == 805 && m.target == 90 && m.target_suffix == 'a', "  .version 8.5, .target sm_90a");
    ok(var(&m, "tbl") && var(&m, "tbl")->size == 16 && var(&m, "tbl")->has_init, "  tbl[4] with an initializer");
    ok(var(&m, "a") && var(&m, "b") && var(&m, "b")->size == 8, "  two variables in one declaration");
    ok(var(&m, "vv") && var(&m, "vv")->size == 8 && var(&m, "vv")->align == 8, "  a .v2 .f32 constant");
    ok(var(&m, "ext") && var(&m, "ext")->is_extern && var(&m, "ext")->size == 0, "  an unsized extern array");
    ok(!var(&m, "sh"), "  module-scope .shared is not a module variable");
    is_int(m.nentries, 3, "  three entries");
    const struct gt_ptx_func *nest = gt_ptx_find(&m, "nest");
    ok(nest && nest->nparams == 3 && nest->params[0].is_ptr && nest->params[0].size == 8 &&
           nest->params[0].align == 8,
       "  a .ptr parameter keeps its own size and alignment, not its pointee's");
    ok(nest && nest->params[1].offset == 16 && nest->params[1].size == 24 && nest->params[2].offset == 40 &&
           nest->param_bytes == 44,
       "  an aligned array parameter");
    ok(nest && nest->reqntid[0] == 64 && nest->reqntid[1] == 2 && nest->minnctapersm == 4 && nest->maxnreg == 32,
       "  performance directives");
    is_str(loops(&m, handmade, "nest"), "OUTER@33,INNER@35", "nested loops; a forward branch is none");
    is_str(uses(&m, "nest"), "tbl,a,ext", "variables, direct and through a call");
    is_str(uses(&m, "leaf"), "ext", "a device function's own");
    is_str(loops(&m, handmade, "noparams"), "TOP@49", "a backward branch table entry; a call prototype is no label");
    is_str(uses(&m, "noparams"), "vv", "an entry without a parameter list");
    const struct gt_ptx_func *d = gt_ptx_find(&m, "declared_only"), *h = gt_ptx_find(&m, "helper");
    ok(d && d->is_extern && h && h->is_extern && !h->is_entry, "declarations without bodies are marked");
    gt_ptx_free(&m);

    int version, target;
    char suffix;
    is_int(gt_ptx_header(handmade, strlen(handmade), &version, &target, &suffix), 0, "the header alone");
    ok(version == 805 && target == 90 && suffix == 'a', "  says the same");
}

/* Which collective instructions each function uses, its barrier-0 sites
 * and how far each loop reaches. */
static const char collectives[] =
    ".version 8.5\n"
    ".target sm_90\n"
    ".address_size 64\n"
    "\n"
    ".entry plain(.param .u32 n)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "L1:\n"
    "  ld.shared::cta.u32 %r1, [x];\n"
    "  @%p1 bra L1;\n"
    "  ret;\n"
    "}\n"
    ".entry barriers()\n"
    "{\n"
    "LOOP:\n"
    "  bar.sync 0;\n"
    "  @!%p1 barrier.sync.aligned 0;\n"
    "  bar.sync 1, 64;\n"
    "  @%p2 bra LOOP;\n"
    "  bar.sync 0;\n"
    "}\n"
    ".entry mixed()\n"
    "{\n"
    "  bar.red.or.pred %p1, 0, %p2;\n"
    "  bar.sync %r1;\n"
    "  bar.arrive 0, 64;\n"
    "}\n"
    ".entry warp()\n"
    "{\n"
    "  shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;\n"
    "  bar.warp.sync -1;\n"
    "}\n"
    ".entry copies()\n"
    "{\n"
    "  cp.async.ca.shared.global [%r1], [%rd1], 16;\n"
    "}\n"
    ".entry cluster_reg()\n"
    "{\n"
    "  mov.u32 %r1, %cluster_ctarank;\n"
    "}\n"
    ".entry cluster_space()\n"
    "{\n"
    "  ld.shared::cluster.u32 %r1, [%r2];\n"
    "}\n"
    ".entry cluster_directive() .reqnctapercluster 2, 1, 1\n"
    "{\n"
    "  ret;\n"
    "}\n";

static void test_collectives(void)
{
    struct gt_ptx_module m;
    char err[128] = "";
    is_int(gt_ptx_parse(collectives, strlen(collectives), &m, err, sizeof err), 0, "collectives parse %s", err);
    ok(m.header_end > 0 && strncmp(collectives + m.header_end, "\n\n.entry", 8) == 0,
       "  the header ends after .address_size");
    static const struct { const char *name; unsigned uses; } want[] = {
        {"plain", 0},
        {"barriers", GT_PTX_USES_BAR0 | GT_PTX_USES_BAR_NAMED},
        {"mixed", GT_PTX_USES_BAR_MIXED},
        {"warp", GT_PTX_USES_WARP},
        {"copies", GT_PTX_USES_ASYNC},
        {"cluster_reg", GT_PTX_USES_CLUSTER},
        {"cluster_space", GT_PTX_USES_CLUSTER},
        {"cluster_directive", GT_PTX_USES_CLUSTER},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const struct gt_ptx_func *f = gt_ptx_find(&m, want[i].name);
        ok(f && f->uses == want[i].uses, "  %s uses 0x%x (0x%x)", want[i].name, want[i].uses, f ? f->uses : 0);
    }
    const struct gt_ptx_func *b = gt_ptx_find(&m, "barriers");
    ok(b && b->nbarriers == 3, "barriers: three barrier-0 sites, the counted one is not");
    ok(b && b->nbarriers == 3 && strncmp(collectives + b->barriers[0].begin, "bar.sync 0;", 11) == 0 &&
           b->barriers[0].end - b->barriers[0].begin == 11,
       "  a site spans its statement");
    ok(b && b->nbarriers == 3 && strncmp(collectives + b->barriers[1].begin, "@!%p1 barrier.sync.aligned 0;", 29) == 0 &&
           strncmp(collectives + b->barriers[1].opcode, "barrier.sync.aligned", b->barriers[1].opcode_len) == 0 &&
           b->barriers[1].opcode_len == 20,
       "  a guarded site starts at its guard; its opcode is found");
    ok(b && b->nloops == 1 && strncmp(collectives + b->loops[0].back, "LOOP;", 5) == 0,
       "  the loop reaches back from its branch");
    ok(b && b->nloops == 1 && b->barriers[1].end < b->loops[0].back && b->barriers[2].begin > b->loops[0].back,
       "  two sites inside the loop, one after it");
    const struct gt_ptx_func *p = gt_ptx_find(&m, "plain");
    ok(p && p->nloops == 1 && p->nvars == 0, "an opcode with a sub-space is one word, not a label");
    gt_ptx_free(&m);
}

static void test_errors(void)
{
    struct gt_ptx_module m;
    char err[128] = "";
    static const char cut[] = ".version 8.0\n.target sm_80\n.entry k()\n{\n  ret;\n";
    is_int(gt_ptx_parse(cut, strlen(cut), &m, err, sizeof err), -1, "an unterminated body is an error");
    ok(strstr(err, "line") && strstr(err, "k"), "  naming where: %s", err);
    is_int(gt_ptx_parse("hello world", 11, &m, err, sizeof err), -1, "text that is not PTX");
    ok(strstr(err, "not PTX") != NULL, "  says so: %s", err);
    is_int(gt_ptx_parse("", 0, &m, err, sizeof err), -1, "nothing at all");
    static const char twice[] = ".version 8.0\n.target sm_80\n.entry k() { ret; }\n.entry k() { ret; }\n";
    is_int(gt_ptx_parse(twice, strlen(twice), &m, err, sizeof err), -1, "a function defined twice");
    static const char nul[] = ".version 8.0\n.target sm_80\n.entry k() { ret; }\n\0garbage {";
    is_int(gt_ptx_parse(nul, sizeof nul, &m, err, sizeof err), 0, "text ends at a NUL");
    gt_ptx_free(&m);
}

int main(void)
{
    fx_dir();
    test_compiled();
    test_handmade();
    test_collectives();
    test_errors();
    return done_testing();
}
