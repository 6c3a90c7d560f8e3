/* test_elfscan.c: finding the fatbins of host files, and the whole of a
 * file's device code through devcode, on binaries built at test time. */
#include "devcode.h"
#include "elfscan.h"
#include "fixtures.h"

#include <elf.h>

static int scan(const char *name, struct gt_elfscan *s)
{
    size_t size;
    unsigned char *b = fx_read(name, &size);
    char err[128] = "";
    int r = gt_elfscan(b, size, s, err, sizeof err);
    if (r != 0)
        diag("%s: %s", name, err);
    free(b);
    return r;
}

static size_t in_section(const struct gt_elfscan *s, const char *section, int wrapper)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        n += strcmp(s->fatbins[i].section, section) == 0 && (wrapper < 0 || s->fatbins[i].wrapper == wrapper);
    return n;
}

static void test_scan(void)
{
    struct gt_elfscan s;
    is_int(scan("app_default", &s), 0, "app_default scans");
    ok(s.n == 2 && in_section(&s, ".nv_fatbin", 1) == 1 && in_section(&s, ".nv_fatbin", 2) == 1,
       "  its object's fatbin (wrapper v1) and the device link's (v2), in .nv_fatbin");
    ok(s.wrappers[1] == 1 && s.wrappers[2] == 1 && s.has_interp, "  two wrappers; an executable");
    gt_elfscan_free(&s);

    is_int(scan("app_rdc", &s), 0, "app_rdc scans");
    ok(s.n == 3 && in_section(&s, ".nv_fatbin", 2) == 1 && in_section(&s, "__nv_relfatbin", -1) == 2,
       "  the linked fatbin and two relocatable objects' fatbins");
    gt_elfscan_free(&s);

    is_int(scan("libkernels.so", &s), 0, "libkernels.so scans");
    ok(s.n == 2 && s.elf_type == ET_DYN && !s.has_interp, "  a shared library with two fatbins");
    gt_elfscan_free(&s);

    is_int(scan("kernels.o", &s), 0, "kernels.o scans");
    ok(s.n == 1 && s.elf_type == ET_REL && s.fatbins[0].wrapper == 0 && s.wrappers[1] == 1,
       "  one fatbin; its wrapper's pointer is left to the linker");
    gt_elfscan_free(&s);

    is_int(scan("embedded.o", &s), 0, "embedded.o scans");
    ok(s.n == 1 && in_section(&s, ".gpu_blob", 0) == 1, "  a fatbin in a section of its own");
    gt_elfscan_free(&s);

    size_t size;
    unsigned char *a = fx_read("libkernels.a", &size);
    char err[128];
    ok(gt_elfscan_raw(a, size, &s, err, sizeof err) == 0 && s.n == 1, "an archive scanned as bytes: one fatbin");
    gt_elfscan_free(&s);
    a[0] = 'X';
    is_int(gt_elfscan(a, size, &s, err, sizeof err), -1, "an archive is no ELF");
    free(a);

    unsigned char *so = fx_read("libkernels.so", &size);
    Elf64_Ehdr *eh = (Elf64_Ehdr *)(void *)so;
    eh->e_shoff = size - 10;
    is_int(gt_elfscan(so, size, &s, err, sizeof err), -1, "section headers past the end are an error");
    ok(strstr(err, "outside") != NULL, "  saying so: %s", err);
    free(so);
}

static size_t kernels_of(struct gt_devcode *dc, int kind, int arch, char suffix)
{
    size_t n = 0;
    for (size_t i = 0; i < dc->nentries; i++) {
        struct gt_devcode_entry *e = &dc->entries[i];
        gt_devcode_decode(dc, i);
        if (e->status != 1 || e->fe.kind != kind || e->fe.arch != arch || e->fe.suffix != suffix)
            continue;
        n += kind == GT_FATBIN_ELF ? e->cubin.nkernels : e->ptx.nentries;
        if (kind == GT_FATBIN_ELF && e->cubin.suffix != suffix)
            return 0;
    }
    return n;
}

static int open_fixture(const char *name, struct gt_devcode *dc, unsigned char **bytes)
{
    size_t size;
    char err[128] = "";
    *bytes = fx_read(name, &size);
    int r = gt_devcode_open(*bytes, size, dc, err, sizeof err);
    if (r != 0)
        diag("%s: %s", name, err);
    return r;
}

static void test_devcode(void)
{
    static const struct {
        const char *file, *format;
        int kind, arch;
        char suffix;
    } cases[] = {
        {"app_default", "executable", GT_FATBIN_ELF, 75, 0},
        {"app_default", "executable", GT_FATBIN_PTX, 75, 0},
        {"app_gencode", "executable", GT_FATBIN_ELF, 90, 'a'},
        {"app_gencode", "executable", GT_FATBIN_ELF, 120, 0},
        {"app_gencode", "executable", GT_FATBIN_PTX, 90, 0},
        {"app_compressed", "executable", GT_FATBIN_ELF, 90, 0},
        {"libkernels.so", "shared library", GT_FATBIN_PTX, 90, 0},
        {"kernels.o", "object file", GT_FATBIN_ELF, 90, 0},
        {"libkernels.a", "static library", GT_FATBIN_ELF, 90, 0},
        {"kernels.cubin", "cubin", GT_FATBIN_ELF, 90, 0},
        {"kernels.ptx", "PTX", GT_FATBIN_PTX, 90, 0},
        {"lz4.fatbin", "fatbin", GT_FATBIN_ELF, 90, 0},
        {"made.fatbin", "fatbin", GT_FATBIN_PTX, 90, 0},
        {"embedded.o", "object file", GT_FATBIN_PTX, 90, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct gt_devcode dc;
        unsigned char *b;
        char arch[32];
        gt_fatbin_arch_name(arch, sizeof arch, cases[i].kind == GT_FATBIN_PTX ? "compute" : "sm", cases[i].arch,
                            cases[i].suffix);
        if (open_fixture(cases[i].file, &dc, &b) != 0) {
            ok(0, "%s opens", cases[i].file);
            free(b);
            continue;
        }
        ok(strcmp(gt_devcode_format_name(&dc), cases[i].format) == 0, "%s is a %s (%s)", cases[i].file,
           cases[i].format, gt_devcode_format_name(&dc));
        is_int(kernels_of(&dc, cases[i].kind, cases[i].arch, cases[i].suffix), FX_NKERNELS, "%s: %s holds the kernels",
               cases[i].file, arch);
        gt_devcode_free(&dc);
        free(b);
    }
}

/* Link-time IR is listed, never inflated: its payload is no plain stream. */
static void test_ltoir(void)
{
    struct gt_devcode dc;
    unsigned char *b;
    if (open_fixture("lto.fatbin", &dc, &b) != 0) {
        ok(0, "lto.fatbin opens");
        free(b);
        return;
    }
    gt_devcode_decode(&dc, 0);
    ok(dc.nentries == 1 && dc.entries[0].fe.kind == GT_FATBIN_LTOIR && dc.entries[0].fe.arch == 90,
       "lto.fatbin: one LTO IR entry for compute_90");
    is_int(dc.entries[0].status, 1, "  listed without being decoded");
    gt_devcode_free(&dc);
    free(b);
}

static void test_not_cuda(void)
{
    struct gt_devcode dc;
    char err[128];
    static const char text[] = "just some text\n";
    is_int(gt_devcode_open((const unsigned char *)text, sizeof text, &dc, err, sizeof err), -1, "text is no device code");
    ok(strstr(err, "not CUDA") != NULL, "  %s", err);
    size_t size;
    unsigned char *b = fx_read("libkernels.so", &size);
    memset(b + 64, 0, size - 64); /* keep the ELF header, lose everything else */
    is_int(gt_devcode_open(b, size, &dc, err, sizeof err), -1, "an ELF without fatbins");
    ok(strstr(err, "no CUDA device code") != NULL, "  %s", err);
    free(b);
}

int main(void)
{
    fx_dir();
    test_scan();
    test_devcode();
    test_ltoir();
    test_not_cuda();
    return done_testing();
}
