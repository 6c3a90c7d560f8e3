/* test_sidefx.c: which kernels print, assert or use the device heap, read
 * from hand-written PTX and from cubins and a fatbin nvcc compiled at test
 * time out of tests/fixtures/sidefx_kernels.cu, whose kernels beside the
 * clean one each reach one of those. */
#include "devcode.h"
#include "fixtures.h"
#include "sidefx.h"

#include <elf.h>

static const char ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n\n"
    ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n"
    ".extern .func __assertfail(.param .b64 a0, .param .b64 a1, .param .b32 a2, .param .b64 a3, .param .b64 a4);\n"
    ".extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);\n"
    ".extern .func free(.param .b64 free_param_0);\n\n"
    ".func check(.param .b32 v)\n{\n"
    "\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n\t.reg .pred %p<2>;\n"
    "\tld.param.u32 %r1, [v];\n\tsetp.gt.s32 %p1, %r1, 0;\n\t@%p1 bra DONE;\n\tmov.u64 %rd1, 0;\n"
    "\t{\n\t.param .b64 a0;\n\tst.param.b64 [a0], %rd1;\n\t.param .b64 a1;\n\tst.param.b64 [a1], %rd1;\n"
    "\t.param .b32 a2;\n\tst.param.b32 [a2], %r1;\n\t.param .b64 a3;\n\tst.param.b64 [a3], %rd1;\n"
    "\t.param .b64 a4;\n\tst.param.b64 [a4], %rd1;\n\tcall.uni __assertfail, (a0, a1, a2, a3, a4);\n\t}\n"
    "DONE:\n\tret;\n}\n\n"
    ".visible .entry printer(.param .u64 fmt)\n{\n"
    "\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [fmt];\n"
    "\t{\n\t.param .b64 p0;\n\tst.param.b64 [p0], %rd1;\n\t.param .b64 p1;\n\tst.param.b64 [p1], %rd1;\n"
    "\t.param .b32 r;\n\tcall.uni (r), vprintf, (p0, p1);\n\t}\n\tret;\n}\n\n"
    ".visible .entry asserter(.param .u32 v)\n{\n"
    "\t.reg .b32 %r<2>;\n\tld.param.u32 %r1, [v];\n"
    "\t{\n\t.param .b32 a;\n\tst.param.b32 [a], %r1;\n\tcall.uni check, (a);\n\t}\n\tret;\n}\n\n"
    ".visible .entry heap()\n{\n"
    "\t.reg .b64 %rd<3>;\n\tmov.u64 %rd1, 16;\n"
    "\t{\n\t.param .b64 n;\n\tst.param.b64 [n], %rd1;\n\t.param .b64 r;\n"
    "\tcall.uni (r), malloc, (n);\n\tld.param.b64 %rd2, [r];\n\t}\n"
    "\t{\n\t.param .b64 q;\n\tst.param.b64 [q], %rd2;\n\tcall.uni free, (q);\n\t}\n\tret;\n}\n\n"
    ".visible .entry clean(.param .u64 out)\n{\n"
    "\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;\n\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, 1;\n"
    "\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n";

#define PRINTS "vprintf (device printf)"
#define ASSERTS "__assertfail (device assert)"
#define HEAP "malloc (device malloc) and free (device free)"
#define ALL "vprintf (device printf), __assertfail (device assert), malloc (device malloc) and free (device free)"

/* What gt_sidefx finds for one kernel, described; "(error: ...)" when it fails. */
static const char *effects(const unsigned char *code, size_t size, const char *kernel, int arch)
{
    static char buf[512];
    char err[256] = "";
    unsigned found = 1u << 31;
    if (gt_sidefx(code, size, kernel, arch, &found, err, sizeof err) != 0) {
        snprintf(buf, sizeof buf, "(error: %s)", err);
        return buf;
    }
    gt_sidefx_describe(found, buf, sizeof buf);
    return buf;
}

/* The four kernels of sidefx_kernels.cu in one piece of code. */
static void fixture_kernels(const unsigned char *code, size_t size, int arch, const char *what)
{
    is_str(effects(code, size, "sfx_print", arch), PRINTS, "%s: the kernel that prints", what);
    is_str(effects(code, size, "sfx_assert", arch), ASSERTS, "%s: the kernel whose function asserts", what);
    is_str(effects(code, size, "sfx_heap", arch), HEAP, "%s: the kernel that allocates", what);
    is_str(effects(code, size, "sfx_clean", arch), "", "%s: the clean kernel: nothing", what);
}

static void hand_written_ptx(void)
{
    const unsigned char *code = (const unsigned char *)ptx;
    size_t size = sizeof ptx - 1;
    is_str(effects(code, size, "printer", 80), PRINTS, "PTX: a kernel calling vprintf");
    is_str(effects(code, size, "asserter", 80), ASSERTS, "PTX: a kernel calling a .func that calls __assertfail");
    is_str(effects(code, size, "heap", 80), HEAP, "PTX: a kernel calling malloc and free");
    is_str(effects(code, size, "clean", 80), "", "PTX: a clean kernel beside them: nothing");
    is_str(effects(code, size, "missing", 80), ALL, "PTX: a kernel it does not define: the whole module's");
}

/* Turns the EIATTR_EXTERNS records of every .nv.info.<function> section
 * into records of an attribute nobody reads, as if the compiler had written
 * none. */
static int hide_extern_lists(unsigned char *b, size_t size)
{
    Elf64_Ehdr eh;
    Elf64_Shdr sh, names;
    int hidden = 0;
    memcpy(&eh, b, sizeof eh);
    memcpy(&names, b + eh.e_shoff + (size_t)eh.e_shstrndx * sizeof sh, sizeof names);
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        memcpy(&sh, b + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
        const char *name = (const char *)b + names.sh_offset + sh.sh_name;
        if (strncmp(name, ".nv.info.", 9) != 0 || sh.sh_offset + sh.sh_size > size)
            continue;
        for (size_t off = 0; off + 4 <= sh.sh_size;) {
            unsigned char *rec = b + sh.sh_offset + off;
            size_t len = rec[0] == 4 ? (size_t)(rec[2] | rec[3] << 8) : 0;
            if (rec[1] == 0x0f) {
                rec[1] = 0x7f;
                hidden++;
            }
            off += 4 + len;
        }
    }
    return hidden;
}

static void cubins(void)
{
    size_t size;
    unsigned char *b = fx_read("sidefx.cubin", &size);
    fixture_kernels(b, size, 90, "linked cubin (SASS only)");
    is_str(effects(b, size, "sfx_print", 75), "(error: it holds neither SASS for sm_75 nor PTX)",
           "a cubin for another architecture cannot tell, and says why");
    ok(hide_extern_lists(b, size) == 3, "the cubin lists its kernels' external functions (3 lists)");
    is_str(effects(b, size, "sfx_clean", 90), ALL, "without those lists: the whole module's, for every kernel");
    is_str(effects(b, size, "sfx_print", 90), ALL, "  the printing one too");
    free(b);

    b = fx_read("sidefx_rdc.cubin", &size);
    fixture_kernels(b, size, 90, "relocatable cubin (functions of their own)");
    free(b);

    b = fx_read("sidefx.fatbin", &size);
    fixture_kernels(b, size, 90, "fatbin read as sm_90 (its SASS)");
    fixture_kernels(b, size, 80, "fatbin read as sm_80 (its PTX)");
    free(b);

    is_str(effects((const unsigned char *)"hello", 5, "k", 90),
           "(error: not CUDA device code: no fatbin, cubin, PTX or ELF file)", "bytes that are no device code");
}

/* The entry of app_gencode (sm_75, sm_90, sm_90a, sm_120 and compute_90)
 * each device runs. */
static void pick(void)
{
    size_t size;
    unsigned char *b = fx_read("app_gencode", &size);
    struct gt_devcode dc;
    char err[128];
    if (gt_devcode_open(b, size, &dc, err, sizeof err) != 0) {
        ok(0, "app_gencode opens: %s", err);
        free(b);
        return;
    }
    static const struct {
        int device, kind, arch;
    } want[] = {
        {75, GT_FATBIN_ELF, 75}, {86, GT_FATBIN_PTX, 90}, {90, GT_FATBIN_ELF, 90}, {121, GT_FATBIN_ELF, 120},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        size_t e = gt_devcode_pick(&dc, want[i].device);
        ok(e < dc.nentries && dc.entries[e].fe.kind == want[i].kind && dc.entries[e].fe.arch == want[i].arch,
           "sm_%d runs %s %d", want[i].device, want[i].kind == GT_FATBIN_ELF ? "SASS" : "PTX", want[i].arch);
    }
    gt_devcode_free(&dc);
    free(b);
}

int main(void)
{
    fx_dir();
    hand_written_ptx();
    cubins();
    pick();
    char small[12];
    gt_sidefx_describe(3, small, sizeof small);
    is_str(small, "vprintf (de", "a description cut to its buffer stays terminated");
    return done_testing();
}
