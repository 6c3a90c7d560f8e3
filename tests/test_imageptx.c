/* test_imageptx.c: choosing the PTX of a loaded image for a device, as the
 * registry will, on images taken from binaries built at test time. */
#include "elfscan.h"
#include "fatbin.h"
#include "fixtures.h"
#include "imageptx.h"

static void test_fits(void)
{
    ok(gt_image_ptx_fits(75, 0, 90), "compute_75 runs on sm_90");
    ok(!gt_image_ptx_fits(120, 0, 90), "compute_120 does not on sm_90");
    ok(gt_image_ptx_fits(90, 'a', 90) && !gt_image_ptx_fits(90, 'a', 100), "compute_90a only on sm_90");
    ok(gt_image_ptx_fits(100, 'f', 103) && !gt_image_ptx_fits(100, 'f', 120), "compute_100f on its family");
    ok(!gt_image_ptx_fits(0, 0, 90), "no target, no fit");
}

/* An image the way the registry keeps one. */
static struct gt_image image(const unsigned char *bytes, size_t size, enum gt_format format)
{
    struct gt_image img = {0};
    img.bytes = bytes;
    img.size = size;
    img.format = format;
    return img;
}

static void test_fatbin(void)
{
    size_t size;
    unsigned char *fb = fx_read("lz4.fatbin", &size);
    struct gt_image img = image(fb, size, GT_FMT_FATBIN);
    struct gt_image_ptx *p;
    size_t n;
    char err[128] = "";
    is_int(gt_image_ptx(&img, 90, &p, &n, err, sizeof err), 0, "lz4.fatbin for sm_90 %s", err);
    ok(n == 1 && p[0].arch == 90 && p[0].suffix == 0 && !p[0].relocatable, "  one compute_90 PTX");
    ok(n == 1 && p[0].size == strlen(p[0].text) && strstr(p[0].text, ".entry scale"), "  inflated, with its kernels");
    gt_image_ptx_free(p, n);
    is_int(gt_image_ptx(&img, 120, &p, &n, err, sizeof err), 0, "for sm_120");
    ok(n == 1 && p[0].arch == 90, "  the same PTX fits");
    gt_image_ptx_free(p, n);
    is_int(gt_image_ptx(&img, 80, &p, &n, err, sizeof err), 0, "for sm_80");
    ok(n == 0 && p == NULL, "  none fits");

    /* The PTX entry's stream cut short: an error, and nothing to free. */
    struct gt_fatbin_entry e;
    size_t off = 0;
    while (gt_fatbin_next(fb, size, &off, &e) == 1 && e.kind != GT_FATBIN_PTX)
        ;
    uint32_t cut = 16;
    memcpy(fb + e.offset + 16, &cut, 4);
    err[0] = 0;
    is_int(gt_image_ptx(&img, 90, &p, &n, err, sizeof err), -1, "a damaged PTX entry is an error");
    ok(n == 0 && p == NULL && err[0], "  with nothing returned: %s", err);
    free(fb);
}

/* A fatbin of app_gencode: SASS for four architectures, PTX for one. */
static void test_gencode(void)
{
    size_t size;
    unsigned char *app = fx_read("app_gencode", &size);
    struct gt_elfscan s;
    char err[128];
    if (gt_elfscan(app, size, &s, err, sizeof err) != 0) {
        ok(0, "app_gencode scans: %s", err);
        free(app);
        return;
    }
    struct gt_image_ptx *p;
    size_t n, found = 0;
    for (size_t i = 0; i < s.n; i++) {
        struct gt_image img = image(app + s.fatbins[i].offset, s.fatbins[i].size, GT_FMT_FATBIN);
        if (gt_image_ptx(&img, 90, &p, &n, err, sizeof err) == 0 && n == 1 && p[0].arch == 90)
            found++;
        gt_image_ptx_free(p, n);
    }
    is_int(found, 1, "app_gencode: one of its fatbins has PTX for sm_90, the device link's none");
    gt_elfscan_free(&s);
    free(app);
}

/* A device-linked program: the runtime registers a version 2 wrapper whose
 * list names the objects' fatbins, and those hold the PTX. */
static void test_linked(void)
{
    size_t size;
    unsigned char *app = fx_read("app_rdc", &size);
    struct gt_elfscan s;
    char err[128];
    if (gt_elfscan(app, size, &s, err, sizeof err) != 0) {
        ok(0, "app_rdc scans: %s", err);
        free(app);
        return;
    }
    const unsigned char *linked = NULL, *objects[3] = {NULL, NULL, NULL};
    for (size_t i = 0, k = 0; i < s.n; i++) {
        if (strcmp(s.fatbins[i].section, "__nv_relfatbin") == 0 && k < 2)
            objects[k++] = app + s.fatbins[i].offset;
        else if (s.fatbins[i].wrapper == 2)
            linked = app + s.fatbins[i].offset;
    }
    struct gt_fatbin_wrapper w = {GT_FATBIN_WRAPPER_MAGIC, 2, linked, objects};
    struct gt_image img = image((const unsigned char *)&w, sizeof w, GT_FMT_WRAPPER);
    struct gt_image_ptx *p;
    size_t n;
    is_int(gt_image_ptx(&img, 90, &p, &n, err, sizeof err), 0, "app_rdc's wrapper for sm_90");
    ok(n == 2 && p[0].relocatable && p[1].relocatable, "  one relocatable PTX per object");
    ok(n == 2 && p[0].options && strstr(p[0].options, "compile-only"), "  with the options it was made with (%s)",
       n ? p[0].options : "");
    ok(n == 2 && strstr(p[0].text, "linked_apply") && strstr(p[1].text, "linked_square"), "  each its own kernels");
    gt_image_ptx_free(p, n);
    w.version = 1;
    is_int(gt_image_ptx(&img, 90, &p, &n, err, sizeof err), 0, "read as a version 1 wrapper");
    is_int(n, 0, "  the linked fatbin alone has no PTX: SASS only");
    gt_elfscan_free(&s);
    free(app);
}

static void test_bare(void)
{
    size_t size;
    unsigned char *text = fx_read("kernels.ptx", &size);
    struct gt_image img = image(text, size + 1, GT_FMT_PTX);
    struct gt_image_ptx *p;
    size_t n;
    char err[128];
    is_int(gt_image_ptx(&img, 90, &p, &n, err, sizeof err), 0, "a PTX image");
    ok(n == 1 && p[0].size == size && p[0].version == 900, "  is its own PTX");
    gt_image_ptx_free(p, n);
    is_int(gt_image_ptx(&img, 86, &p, &n, err, sizeof err), 0, "on an older device");
    is_int(n, 0, "  it does not fit");
    free(text);

    unsigned char *cubin = fx_read("kernels.cubin", &size);
    img = image(cubin, size, GT_FMT_CUBIN);
    is_int(gt_image_ptx(&img, 90, &p, &n, err, sizeof err), 0, "a cubin image");
    is_int(n, 0, "  has no PTX");
    free(cubin);
}

int main(void)
{
    fx_dir();
    test_fits();
    test_fatbin();
    test_gencode();
    test_linked();
    test_bare();
    return done_testing();
}
