/* imageptx.c: the PTX of a loaded image that best fits a device.
 *
 * Variants are rebuilt from PTX, which the driver compiles for any device at
 * least as new as its target; the "a" targets (compute_90a) only for that
 * exact architecture, the "f" targets (compute_100f) for the family sharing
 * its major version.  Among the PTX an image holds for a device, the newest
 * target wins (it may use more of the hardware), and on a tie the most
 * specific.  A device-linked (-rdc) image keeps no PTX in its linked fatbin:
 * each object it was linked from brings its own, so the answer is one PTX
 * per fatbin that has a fitting one, all needed together.  An image with
 * SASS only yields none.  Rebuilding a kernel, or reading what it does,
 * takes the one of them that defines it. */
#include "imageptx.h"
#include "alloc.h"
#include "errmsg.h"
#include "decompress.h"
#include "fatbin.h"
#include "ptx.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FATBINS 4096

/* Whether PTX for target `ptx_arch` (with its suffix) can be compiled for a
 * device of architecture `device_arch` (major * 10 + minor: 90, 103, 121). */
int gt_image_ptx_fits(int ptx_arch, char suffix, int device_arch)
{
    if (ptx_arch <= 0 || ptx_arch > device_arch)
        return 0;
    if (suffix == 'a')
        return ptx_arch == device_arch;
    if (suffix == 'f')
        return ptx_arch / 10 == device_arch / 10;
    return 1;
}

static int rank(char suffix)
{
    return suffix == 'a' ? 2 : suffix == 'f' ? 1 : 0;
}

/* The index-th entry of the best fitting PTX in a fatbin, or 0 if none fits. */
static int best_entry(const unsigned char *fb, size_t size, int device_arch, struct gt_fatbin_entry *best)
{
    struct gt_fatbin_entry e;
    size_t off = 0;
    int found = 0;
    while (gt_fatbin_next(fb, size, &off, &e) == 1) {
        if (e.kind != GT_FATBIN_PTX || !gt_image_ptx_fits(e.arch, e.suffix, device_arch))
            continue;
        if (!found || e.arch > best->arch || (e.arch == best->arch && rank(e.suffix) > rank(best->suffix))) {
            *best = e;
            found = 1;
        }
    }
    return found;
}

static int take_text(struct gt_image_ptx *p, const char *text, size_t size, char *err, size_t errlen)
{
    size_t n = strnlen(text, size);
    p->text = gt_malloc(n + 1);
    if (!p->text)
        return gt_errf(err, errlen, "out of memory");
    memcpy(p->text, text, n);
    p->text[n] = '\0';
    p->size = n;
    gt_ptx_header(p->text, n, &p->version, &p->arch, &p->suffix);
    return 0;
}

static int from_entry(struct gt_image_ptx *p, const struct gt_fatbin_entry *e, char *err, size_t errlen)
{
    const unsigned char *data;
    unsigned char *owned;
    size_t size;
    if (gt_decompress_entry(e, &data, &size, &owned, err, errlen) != 0)
        return -1;
    int r = take_text(p, (const char *)data, size, err, errlen);
    free(owned);
    if (r == 0 && e->options_size) {
        p->options = gt_strndup(e->options, e->options_size);
        if (!p->options)
            r = gt_errf(err, errlen, "out of memory");
    }
    if (r == 0 && !p->arch) {
        p->arch = e->arch;
        p->suffix = e->suffix;
    }
    return r;
}

static void clear_one(struct gt_image_ptx *p)
{
    free(p->text);
    free(p->options);
    memset(p, 0, sizeof *p);
}

/* The fatbins an image stands for; the first is its own. */
static size_t image_fatbins(const struct gt_image *img, const unsigned char **fbs, size_t *sizes)
{
    size_t n = 0;
    if (img->format == GT_FMT_WRAPPER) {
        const struct gt_fatbin_wrapper *w = (const void *)img->bytes;
        n = gt_fatbin_wrapper_fatbins(w, fbs, MAX_FATBINS);
        n = n < MAX_FATBINS ? n : MAX_FATBINS;
        for (size_t i = 0; i < n; i++)
            sizes[i] = gt_fatbin_size(fbs[i], SIZE_MAX); /* in the process, accepted by the driver */
    } else if (img->format == GT_FMT_FATBIN) {
        fbs[0] = img->bytes;
        sizes[0] = gt_fatbin_size(img->bytes, img->size);
        n = 1;
    }
    return n;
}

static int from_fatbins(const struct gt_image *img, int device_arch, struct gt_image_ptx *out, size_t *n,
                        char *err, size_t errlen)
{
    const unsigned char **fbs = gt_malloc(MAX_FATBINS * sizeof *fbs);
    size_t *sizes = gt_malloc(MAX_FATBINS * sizeof *sizes);
    int r = fbs && sizes ? 0 : gt_errf(err, errlen, "out of memory");
    size_t nfb = r == 0 ? image_fatbins(img, fbs, sizes) : 0;
    for (size_t i = 0; r == 0 && i < nfb; i++) {
        struct gt_fatbin_entry e;
        if (!sizes[i] || !best_entry(fbs[i], sizes[i], device_arch, &e))
            continue;
        r = from_entry(&out[*n], &e, err, errlen);
        if (r != 0) {
            clear_one(&out[*n]);
            break;
        }
        out[*n].relocatable = i > 0;
        (*n)++;
    }
    free(fbs);
    free(sizes);
    return r;
}

/* The PTX of `img` to build variants from for a device of architecture
 * `device_arch`: *out receives *n texts (0 when the image has SASS only or
 * nothing fits), to free with gt_image_ptx_free.  Returns -1 with a message
 * when PTX that fits cannot be read. */
int gt_image_ptx(const struct gt_image *img, int device_arch, struct gt_image_ptx **out, size_t *n, char *err,
                 size_t errlen)
{
    *out = NULL;
    *n = 0;
    int text = img->format == GT_FMT_PTX || (img->format == GT_FMT_CUBIN && img->sibling_ptx);
    if (!img->bytes || img->format == GT_FMT_UNKNOWN || (img->format == GT_FMT_CUBIN && !text))
        return 0;
    size_t cap = img->format == GT_FMT_WRAPPER ? MAX_FATBINS : 1;
    struct gt_image_ptx *p = gt_calloc(cap, sizeof *p);
    if (!p)
        return gt_errf(err, errlen, "out of memory");
    int r;
    if (text) {
        const char *t = img->format == GT_FMT_PTX ? (const char *)img->bytes : img->sibling_ptx;
        r = take_text(p, t, img->format == GT_FMT_PTX ? img->size : strlen(t), err, errlen);
        *n = r == 0 && gt_image_ptx_fits(p->arch, p->suffix, device_arch) ? 1 : 0;
        if (!*n)
            clear_one(p);
    } else {
        r = from_fatbins(img, device_arch, p, n, err, errlen);
    }
    if (r != 0 || !*n) {
        gt_image_ptx_free(p, *n);
        *n = 0;
        return r;
    }
    *out = p;
    return 0;
}

/* Whether the PTX defines `kernel` (an entry with a body). */
static int defines(const struct gt_image_ptx *p, const char *kernel)
{
    struct gt_ptx_module m;
    char err[128];
    if (gt_ptx_parse(p->text, p->size, &m, err, sizeof err) != 0)
        return 0;
    const struct gt_ptx_func *f = gt_ptx_find(&m, kernel);
    int yes = f && f->is_entry && !f->is_extern;
    gt_ptx_free(&m);
    return yes;
}

/* Of the PTX gt_image_ptx finds, the one that defines `kernel`: 0 with it
 * in *out (free with gt_image_ptx_free(*out, 1)), or -1 with why. */
int gt_image_ptx_defining(const struct gt_image *img, int device_arch, const char *kernel, struct gt_image_ptx **out,
                          char *err, size_t errlen)
{
    struct gt_image_ptx *ptx = NULL;
    size_t n = 0, found = 0;
    *out = NULL;
    if (!img)
        return gt_errf(err, errlen, "the image of %s is unknown", kernel);
    if (gt_image_ptx(img, device_arch, &ptx, &n, err, errlen) != 0)
        return -1;
    while (found < n && !defines(&ptx[found], kernel))
        found++;
    int r = 0;
    if (found == n)
        r = n ? gt_errf(err, errlen, "no PTX of the image defines %s", kernel)
              : gt_errf(err, errlen, "the image has no PTX for sm_%d (SASS only)", device_arch);
    else if ((*out = gt_calloc(1, sizeof **out)) == NULL)
        r = gt_errf(err, errlen, "out of memory");
    else {
        **out = ptx[found];
        memset(&ptx[found], 0, sizeof ptx[found]);
    }
    gt_image_ptx_free(ptx, n);
    return r;
}

void gt_image_ptx_free(struct gt_image_ptx *p, size_t n)
{
    for (size_t i = 0; p && i < n; i++)
        clear_one(&p[i]);
    free(p);
}
