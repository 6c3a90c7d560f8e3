/* test_fatbin.c: fatbin entries, their compression, wrappers, on fatbins
 * that nvcc and fatbinary made at test time. */
#include "cubin.h"
#include "decompress.h"
#include "elfscan.h"
#include "fatbin.h"
#include "fixtures.h"
#include "ptx.h"

#include <stdint.h>

struct entries {
    struct gt_fatbin_entry e[32];
    int n;
};

static int walk(const unsigned char *fb, size_t size, struct entries *out)
{
    size_t off = 0;
    int r;
    out->n = 0;
    while (out->n < 32 && (r = gt_fatbin_next(fb, size, &off, &out->e[out->n])) == 1)
        out->n++;
    return r;
}

static const struct gt_fatbin_entry *find(const struct entries *es, int kind, int arch, char suffix)
{
    for (int i = 0; i < es->n; i++)
        if (es->e[i].kind == kind && es->e[i].arch == arch && es->e[i].suffix == suffix)
            return &es->e[i];
    return NULL;
}

static int same_file(const unsigned char *p, size_t n, const char *fixture)
{
    size_t size;
    unsigned char *want = fx_read(fixture, &size);
    int same = n == size && memcmp(p, want, n) == 0;
    free(want);
    return same;
}

/* Inflates an entry; 1 when it comes out exactly as `fixture` or, for PTX,
 * as its text. */
static int payload_is(const struct gt_fatbin_entry *e, const char *fixture)
{
    const unsigned char *p;
    unsigned char *owned;
    size_t n;
    char err[128];
    if (!e || gt_decompress_entry(e, &p, &n, &owned, err, sizeof err) != 0)
        return 0;
    if (e->kind == GT_FATBIN_PTX)
        n = strnlen((const char *)p, n);
    int same = same_file(p, n, fixture);
    free(owned);
    return same;
}

/* Inflates an entry and parses it; 1 when it holds exactly the kernels of
 * kernels.cu.  (Cubins differ from build to build in their notes, and
 * fatbinary strips the comments of PTX, so bytes are not compared.) */
static int holds_kernels(const struct gt_fatbin_entry *e)
{
    const unsigned char *p;
    unsigned char *owned;
    size_t n, found = 0, total = 0;
    char err[128];
    if (!e || gt_decompress_entry(e, &p, &n, &owned, err, sizeof err) != 0)
        return 0;
    if (e->kind == GT_FATBIN_ELF) {
        struct gt_cubin c;
        if (gt_cubin_parse(p, n, &c, err, sizeof err) == 0) {
            for (size_t i = 0; i < c.nkernels; i++, total++)
                for (size_t k = 0; k < FX_NKERNELS; k++)
                    found += strcmp(c.kernels[i].name, fx_kernels[k]) == 0;
            gt_cubin_free(&c);
        }
    } else {
        struct gt_ptx_module m;
        if (gt_ptx_parse((const char *)p, strnlen((const char *)p, n), &m, err, sizeof err) == 0) {
            for (size_t i = 0; i < m.nfuncs; i++)
                for (size_t k = 0; k < FX_NKERNELS && m.funcs[i].is_entry; k++)
                    found += strcmp(m.funcs[i].name, fx_kernels[k]) == 0;
            total = m.nentries;
            gt_ptx_free(&m);
        }
    }
    free(owned);
    return found == FX_NKERNELS && total == FX_NKERNELS;
}

static void test_fatbinary(void)
{
    size_t size;
    unsigned char *fb = fx_read("made.fatbin", &size);
    struct entries es;
    is_int(gt_fatbin_size(fb, size), size, "made.fatbin: the fatbin spans the file");
    is_int(walk(fb, size, &es), 0, "made.fatbin: entries walk to the end");
    is_int(es.n, 2, "made.fatbin: an ELF and a PTX entry");
    const struct gt_fatbin_entry *elf = find(&es, GT_FATBIN_ELF, 90, 0), *ptx = find(&es, GT_FATBIN_PTX, 90, 0);
    ok(elf && ptx, "made.fatbin: sm_90 ELF and compute_90 PTX");
    ok(payload_is(elf, "kernels.cubin"), "made.fatbin: the ELF entry is the cubin given to fatbinary");
    ok(holds_kernels(ptx), "made.fatbin: the PTX entry declares the kernels of kernels.cu");
    ok(ptx && ptx->version >= 800, "made.fatbin: PTX ISA version %d", ptx ? ptx->version : 0);
    free(fb);
}

static void test_compression(void)
{
    size_t size;
    unsigned char *lz4 = fx_read("lz4.fatbin", &size);
    struct entries es;
    is_int(walk(lz4, size, &es), 0, "lz4.fatbin: entries walk to the end");
    int all_lz4 = es.n == 2;
    for (int i = 0; i < es.n; i++)
        all_lz4 &= (es.e[i].flags & GT_FATBIN_FLAG_LZ4) && es.e[i].compressed_size <= es.e[i].size &&
                   es.e[i].uncompressed_size > es.e[i].compressed_size;
    ok(all_lz4, "lz4.fatbin: both entries LZ4-compressed, sizes consistent");
    ok(holds_kernels(find(&es, GT_FATBIN_ELF, 90, 0)), "lz4.fatbin: the ELF inflates to a cubin of the kernels");
    ok(holds_kernels(find(&es, GT_FATBIN_PTX, 90, 0)), "lz4.fatbin: the PTX inflates to PTX of the kernels");

    /* A stream that stops early, and sizes no LZ4 stream can reach. */
    struct gt_fatbin_entry cut = *find(&es, GT_FATBIN_ELF, 90, 0), big = cut;
    cut.compressed_size /= 2;
    const unsigned char *p;
    unsigned char *owned;
    size_t n;
    char err[128] = "";
    is_int(gt_decompress_entry(&cut, &p, &n, &owned, err, sizeof err), -1, "a cut LZ4 stream is an error");
    ok(strstr(err, "LZ4") != NULL, "  saying so: %s", err);
    big.uncompressed_size = (size_t)1 << 40;
    is_int(gt_decompress_entry(&big, &p, &n, &owned, err, sizeof err), -1, "a forged size is refused");
    ok(strstr(err, "implausible") != NULL, "  before allocating: %s", err);
    free(lz4);

    unsigned char *plain = fx_read("plain.fatbin", &size);
    is_int(walk(plain, size, &es), 0, "plain.fatbin: entries walk to the end");
    const struct gt_fatbin_entry *ptx = find(&es, GT_FATBIN_PTX, 90, 0);
    ok(ptx && !(ptx->flags & (GT_FATBIN_FLAG_LZ4 | GT_FATBIN_FLAG_ZSTD)) && ptx->uncompressed_size == 0,
       "plain.fatbin: PTX stored as is");
    ok(holds_kernels(ptx), "plain.fatbin: PTX text of the kernels");
    free(plain);
}

/* The entries of a host binary's fatbins, through the ELF scan, leaving out
 * the device link's (whose wrapper is version 2): here it links nothing. */
static int host_fatbins(const unsigned char *file, size_t size, struct entries *all)
{
    struct gt_elfscan s;
    char err[128];
    all->n = 0;
    if (gt_elfscan(file, size, &s, err, sizeof err) != 0)
        return -1;
    for (size_t i = 0; i < s.n; i++) {
        struct entries es;
        if (s.fatbins[i].wrapper == 2)
            continue;
        if (walk(file + s.fatbins[i].offset, s.fatbins[i].size, &es) != 0)
            return -1;
        for (int j = 0; j < es.n && all->n < 32; j++)
            all->e[all->n++] = es.e[j];
    }
    gt_elfscan_free(&s);
    return 0;
}

static void test_gencode(void)
{
    size_t size;
    unsigned char *app = fx_read("app_gencode", &size);
    struct entries es;
    is_int(host_fatbins(app, size, &es), 0, "app_gencode: fatbins found and walked");
    ok(find(&es, GT_FATBIN_ELF, 75, 0) && find(&es, GT_FATBIN_ELF, 90, 0) && find(&es, GT_FATBIN_ELF, 90, 'a') &&
           find(&es, GT_FATBIN_ELF, 120, 0),
       "app_gencode: SASS for sm_75, sm_90, sm_90a and sm_120");
    const struct gt_fatbin_entry *ptx = find(&es, GT_FATBIN_PTX, 90, 0);
    ok(ptx && (ptx->flags & GT_FATBIN_FLAG_ZSTD), "app_gencode: compute_90 PTX, ZSTD-compressed by default");
    ok(holds_kernels(ptx), "app_gencode: its PTX inflates to PTX of the kernels");
    ok(holds_kernels(find(&es, GT_FATBIN_ELF, 90, 'a')), "app_gencode: the sm_90a cubin holds the kernels");
    ok(!find(&es, GT_FATBIN_PTX, 75, 0), "app_gencode: no compute_75 PTX");
    free(app);

    app = fx_read("app_compressed", &size);
    is_int(host_fatbins(app, size, &es), 0, "app_compressed: fatbins found and walked");
    const struct gt_fatbin_entry *elf = find(&es, GT_FATBIN_ELF, 90, 0);
    ok(elf && (elf->flags & GT_FATBIN_FLAG_ZSTD), "app_compressed: -compress-all compresses the cubin with ZSTD");
    ok(holds_kernels(elf), "app_compressed: the cubin inflates to a cubin of the kernels");
    free(app);
}

static void test_rdc_options(void)
{
    size_t size;
    unsigned char *app = fx_read("app_rdc", &size);
    struct entries es;
    is_int(host_fatbins(app, size, &es), 0, "app_rdc: fatbins found and walked");
    const struct gt_fatbin_entry *ptx = find(&es, GT_FATBIN_PTX, 90, 0);
    ok(ptx && ptx->options && memmem(ptx->options, ptx->options_size, "compile-only", 12),
       "app_rdc: relocatable PTX carries its JIT options (%.*s)", ptx && ptx->options ? (int)ptx->options_size : 0,
       ptx && ptx->options ? ptx->options : "");
    free(app);
}

static void test_damage(void)
{
    size_t size;
    unsigned char *fb = fx_read("plain.fatbin", &size);
    struct entries es;
    is_int(gt_fatbin_size(fb, size - 1), 0, "a fatbin claiming more than there is has no size");
    is_int(gt_fatbin_size(fb, 15), 0, "nor does a cut header");
    unsigned char *copy = malloc(size);
    memcpy(copy, fb, size);
    uint32_t huge = 0xfffffff0u;
    memcpy(copy + 16 + 4, &huge, 4); /* first entry's header size */
    is_int(walk(copy, size, &es), -1, "an entry header larger than the fatbin is an error");
    free(copy);
    free(fb);

    char name[32];
    gt_fatbin_arch_name(name, sizeof name, "sm", 90, 'a');
    is_str(name, "sm_90a", "architecture names carry their suffix");
    gt_fatbin_arch_name(name, sizeof name, "compute", 120, 0);
    is_str(name, "compute_120", "and go without one");
}

static void test_wrapper(void)
{
    static const unsigned char a[16], b[16], c[16];
    const unsigned char *list[] = {b, c, NULL};
    struct gt_fatbin_wrapper w1 = {GT_FATBIN_WRAPPER_MAGIC, 1, a, NULL};
    struct gt_fatbin_wrapper w2 = {GT_FATBIN_WRAPPER_MAGIC, 2, a, list};
    const unsigned char *out[4];
    is_int(gt_fatbin_wrapper_fatbins(&w1, out, 4), 1, "a version 1 wrapper stands for its fatbin");
    is_int(gt_fatbin_wrapper_fatbins(&w2, out, 4), 3, "a version 2 wrapper also for its prelinked ones");
    ok(out[0] == a && out[1] == b && out[2] == c, "  in order: linked, then each object's");
    w2.magic = 0;
    is_int(gt_fatbin_wrapper_fatbins(&w2, out, 4), 0, "no wrapper, no fatbins");
}

int main(void)
{
    fx_dir();
    test_fatbinary();
    test_compression();
    test_gencode();
    test_rdc_options();
    test_damage();
    test_wrapper();
    return done_testing();
}
