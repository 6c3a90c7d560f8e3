/* recipe.c: how to rebuild one kernel with another configuration.
 *
 * A recipe is what every variant of a kernel shares: the text it is built
 * from and the options it always gets.  Three sources, best first: the CUDA
 * source a policy names, the source the application itself gave NVRTC (with
 * its options, its architecture removed), and the PTX in the loaded image
 * that best fits the device.  A configuration then adds its macros
 * (-DNAME=value for NVRTC, replacing the application's own definition of
 * NAME), and its register limit, load cache mode and launch bounds as
 * nvJitLink's options, so that neither the source nor the PTX is edited.  A
 * variant is accepted only if the kernel it yields takes its parameters
 * exactly as the original does. */
#include "recipe.h"
#include "alloc.h"
#include "errmsg.h"
#include "cubin.h"
#include "image.h"
#include "imageptx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = gt_malloc((size_t)n + 1)) != NULL) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = '\0';
        }
    }
    fclose(f);
    return buf;
}

static char **copy_strings(char *const *v, int n)
{
    char **c = gt_calloc((size_t)(n > 0 ? n : 1), sizeof *c);
    for (int i = 0; c && i < n; i++)
        if (!(c[i] = gt_strdup(v[i] ? v[i] : ""))) {
            while (i--)
                free(c[i]);
            free(c);
            return NULL;
        }
    return c;
}

static void free_strings(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

void gt_recipe_free(struct gt_recipe *r)
{
    free(r->text);
    free(r->name);
    free(r->kernel);
    free_strings(r->options, r->noptions);
    free_strings(r->link_options, r->nlink_options);
    free_strings(r->headers, r->nheaders);
    free_strings(r->include_names, r->nheaders);
    free_strings(r->names, r->nnames);
    memset(r, 0, sizeof *r);
}

int gt_recipe_from_file(struct gt_recipe *r, const char *path, char *const *options, int noptions,
                        char *const *link_options, int nlink_options, const char *kernel, int arch, char *err,
                        size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->input = GT_JIT_SOURCE;
    r->arch = arch;
    if (!(r->text = read_text(path)))
        return gt_errf(err, errlen, "cannot read kernel source %s", path);
    const char *base = strrchr(path, '/');
    r->name = gt_strdup(base ? base + 1 : path);
    r->kernel = gt_strdup(kernel);
    r->options = copy_strings(options, noptions);
    r->noptions = noptions;
    r->link_options = copy_strings(link_options, nlink_options);
    r->nlink_options = nlink_options;
    snprintf(r->from, sizeof r->from, "source %s", path);
    if (!r->name || !r->kernel || !r->options || !r->link_options) {
        gt_recipe_free(r);
        return gt_errf(err, errlen, "out of memory");
    }
    return 0;
}

/* An NVRTC option naming the architecture: the variant names its own.
 * Returns how many words it takes (1 or 2), 0 if it is another option. */
static int arch_option(const char *o)
{
    static const char *const forms[] = {"-arch", "--gpu-architecture"};
    for (size_t i = 0; i < 2; i++) {
        size_t n = strlen(forms[i]);
        if (strncmp(o, forms[i], n) == 0 && (o[n] == '=' || o[n] == '\0'))
            return o[n] == '=' ? 1 : 2;
    }
    return 0;
}

int gt_recipe_from_nvrtc(struct gt_recipe *r, const struct gt_nvrtc_program *p, const char *kernel, int arch,
                         char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->input = GT_JIT_SOURCE;
    r->arch = arch;
    r->text = gt_strdup(p->source);
    r->name = gt_strdup(p->name);
    r->kernel = gt_strdup(kernel);
    r->options = gt_calloc((size_t)p->noptions + 1, sizeof *r->options);
    r->link_options = gt_calloc(1, sizeof *r->link_options);
    r->nheaders = p->nheaders;
    r->headers = copy_strings(p->headers, p->nheaders);
    r->include_names = copy_strings(p->include_names, p->nheaders);
    r->nnames = p->nnames;
    r->names = copy_strings(p->names, p->nnames);
    snprintf(r->from, sizeof r->from, "the application's NVRTC program %s", p->name);
    if (!r->text || !r->name || !r->kernel || !r->options || !r->link_options || !r->headers || !r->include_names ||
        !r->names) {
        gt_recipe_free(r);
        return gt_errf(err, errlen, "out of memory");
    }
    for (int i = 0; i < p->noptions; i++) {
        int skip = arch_option(p->options[i]);
        if (skip) {
            i += skip - 1;
        } else if (!(r->options[r->noptions++] = gt_strdup(p->options[i]))) {
            gt_recipe_free(r);
            return gt_errf(err, errlen, "out of memory");
        }
    }
    return 0;
}

/* The image's PTX for this device that defines `kernel`. */
int gt_recipe_from_image(struct gt_recipe *r, const struct gt_image *img, const char *kernel, int arch, char *err,
                         size_t errlen)
{
    memset(r, 0, sizeof *r);
    struct gt_image_ptx *ptx;
    if (gt_image_ptx_defining(img, arch, kernel, &ptx, err, errlen) != 0)
        return -1;
    if (ptx->relocatable) {
        gt_image_ptx_free(ptx, 1);
        return gt_errf(err, errlen, "%s comes from a device-linked (-rdc) program; it cannot be rebuilt alone", kernel);
    }
    r->input = GT_JIT_PTX;
    r->arch = arch;
    r->text = ptx->text;
    ptx->text = NULL;
    r->name = gt_strdup("image.ptx");
    r->kernel = gt_strdup(kernel);
    r->options = gt_calloc(1, sizeof *r->options);
    r->link_options = gt_calloc(1, sizeof *r->link_options);
    snprintf(r->from, sizeof r->from, "its compute_%d PTX", ptx->arch);
    gt_image_ptx_free(ptx, 1);
    if (!r->name || !r->kernel || !r->options || !r->link_options) {
        gt_recipe_free(r);
        return gt_errf(err, errlen, "out of memory");
    }
    return 0;
}

/* A string made for this job, freed with it. */
__attribute__((format(printf, 2, 3))) static const char *keep(struct gt_variant_job *vj, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *s = gt_strdup(buf);
    if (s)
        vj->own[vj->nown++] = s;
    return s;
}

/* Whether `opt` defines a macro the configuration sets itself. */
static int macro_overridden(const char *opt, const struct gt_space *s)
{
    if (strncmp(opt, "-D", 2) != 0 && strncmp(opt, "--define-macro=", 15) != 0)
        return 0;
    const char *name = opt[1] == 'D' ? opt + 2 : opt + 15;
    size_t len = strcspn(name, "=");
    for (size_t d = 0; d < s->ndims; d++)
        if (s->dims[d].kind == GT_DIM_PARAM && strlen(s->dims[d].name) == len &&
            strncmp(s->dims[d].name, name, len) == 0)
            return 1;
    return 0;
}

static const char *const dlcm_names[] = {"", "ca", "cg", "cs", "lu", "cv"};

/* The configuration's macros, after the recipe's options it does not override. */
static int frontend_options(const struct gt_recipe *r, const struct gt_space *s, const uint32_t *cfg,
                            struct gt_variant_job *vj)
{
    int n = 0;
    for (int i = 0; i < r->noptions; i++)
        if (!macro_overridden(r->options[i], s))
            vj->options[n++] = r->options[i];
    for (size_t d = 0; d < s->ndims && r->input == GT_JIT_SOURCE; d++)
        if (s->dims[d].kind == GT_DIM_PARAM && !(vj->options[n++] = keep(vj, "-D%s=%lld", s->dims[d].name,
                                                                          (long long)s->dims[d].values[cfg[d]])))
            return -1;
    return n;
}

/* The configuration's machine-code knobs, after the recipe's link options. */
static int link_options(const struct gt_recipe *r, const struct gt_space *s, const uint32_t *cfg,
                        const unsigned block[3], struct gt_variant_job *vj)
{
    struct gt_knobs k;
    gt_space_knobs(s, cfg, &k);
    int n = 0;
    for (int i = 0; i < r->nlink_options; i++)
        vj->link_options[n++] = r->link_options[i];
    int first = n;
    if (k.maxrreg > 0)
        vj->link_options[n++] = keep(vj, "-maxrregcount=%d", k.maxrreg);
    if (k.dlcm > 0 && k.dlcm < (int)(sizeof dlcm_names / sizeof dlcm_names[0]))
        vj->link_options[n++] = keep(vj, "-Xptxas=-dlcm=%s", dlcm_names[k.dlcm]);
    if (k.bounds && block)
        vj->link_options[n++] = keep(vj, "-Xptxas=-maxntid=%u,%u,%u", block[0], block[1], block[2]);
    if (k.bounds && block && k.minblocks > 0)
        vj->link_options[n++] = keep(vj, "-Xptxas=-minnctapersm=%d", k.minblocks);
    for (int i = first; i < n; i++)
        if (!vj->link_options[i])
            return -1;
    return n;
}

/* Fills vj with the compilation of configuration cfg; block is the launch's
 * block (for launch bounds), name_expr the kernel's name expression when the
 * policy gives one.  Returns 0, or -1 without memory. */
int gt_recipe_job(const struct gt_recipe *r, const struct gt_space *s, const uint32_t *cfg, const unsigned block[3],
                  const char *name_expr, struct gt_variant_job *vj)
{
    memset(vj, 0, sizeof *vj);
    int cap = r->noptions + r->nlink_options + (int)s->ndims + 8;
    vj->options = gt_calloc((size_t)cap, sizeof *vj->options);
    vj->link_options = gt_calloc((size_t)cap, sizeof *vj->link_options);
    vj->own = gt_calloc((size_t)cap, sizeof *vj->own);
    int n = vj->options && vj->link_options && vj->own ? frontend_options(r, s, cfg, vj) : -1;
    int nl = n >= 0 ? link_options(r, s, cfg, block, vj) : -1;
    if (nl < 0) {
        gt_variant_job_free(vj);
        return -1;
    }
    vj->job = (struct gt_jit_job){
        .input = r->input, .text = r->text, .name = r->name,
        .nheaders = r->nheaders,
        .headers = (const char *const *)r->headers, .include_names = (const char *const *)r->include_names,
        .noptions = n, .options = vj->options, .nlink_options = nl, .link_options = vj->link_options,
        .arch = r->arch, .name_expr = name_expr,
        .ninstantiate = r->nnames, .instantiate = (const char *const *)r->names,
    };
    return 0;
}

/* Makes vj a build for trials under the watchdog (mode: enum gt_watchdog):
 * checks in the kernel, and a source gets gputune_watchdog.h included
 * first, for kernels that check the deadline themselves.  0, or -1 without
 * memory. */
int gt_recipe_watchdog(const struct gt_recipe *r, int mode, struct gt_variant_job *vj)
{
    struct gt_jit_job *job = &vj->job;
    job->watchdog = mode;
    job->kernel = r->kernel;
    if (!mode || r->input != GT_JIT_SOURCE)
        return 0;
    int n = job->nheaders;
    vj->headers = gt_malloc((size_t)(n + 1) * sizeof *vj->headers);
    vj->include_names = gt_malloc((size_t)(n + 1) * sizeof *vj->include_names);
    if (!vj->headers || !vj->include_names)
        return -1;
    for (int i = 0; i < n; i++) {
        vj->headers[i] = job->headers[i];
        vj->include_names[i] = job->include_names[i];
    }
    vj->headers[n] = gt_watchdog_header;
    vj->include_names[n] = GT_WATCHDOG_HEADER_NAME;
    job->headers = vj->headers;
    job->include_names = vj->include_names;
    job->nheaders = n + 1;
    vj->options[job->noptions++] = "--pre-include=" GT_WATCHDOG_HEADER_NAME; /* the job's options have room */
    return 0;
}

void gt_variant_job_free(struct gt_variant_job *vj)
{
    gt_jit_job_clear(&vj->job);
    for (int i = 0; i < vj->nown; i++)
        free(vj->own[i]);
    free(vj->own);
    free(vj->options);
    free(vj->link_options);
    free(vj->headers);
    free(vj->include_names);
    memset(vj, 0, sizeof *vj);
}

/* 0 if the cubin defines `kernel` with exactly the parameter layout given;
 * else -1 and why.  A variant that read its arguments elsewhere would
 * compute garbage from the application's launch. */
int gt_recipe_check(const struct gt_jit_job *job, const char *kernel, const struct gt_param *params, int nparams,
                    char *err, size_t errlen)
{
    struct gt_cubin c;
    if (!job->ok || gt_cubin_parse(job->cubin, job->cubin_size, &c, err, errlen) != 0)
        return -1;
    const struct gt_cubin_kernel *k = NULL;
    for (size_t i = 0; i < c.nkernels && !k; i++)
        if (strcmp(c.kernels[i].name, kernel) == 0)
            k = &c.kernels[i];
    int rc = 0;
    if (!k) {
        rc = gt_errf(err, errlen, "the variant has no kernel %s", kernel);
    } else if ((int)k->nparams != nparams) {
        rc = gt_errf(err, errlen, "the variant takes %u parameters, the original %d", k->nparams, nparams);
    } else {
        for (int i = 0; i < nparams && rc == 0; i++)
            if (k->params[i].offset != params[i].offset || k->params[i].size != params[i].size)
                rc = gt_errf(err, errlen, "parameter %d is %u bytes at %u in the variant, %u bytes at %u in the original",
                          i, k->params[i].size, k->params[i].offset, params[i].size, params[i].offset);
    }
    gt_cubin_free(&c);
    return rc;
}
