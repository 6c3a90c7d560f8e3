/* inspect_out.c: what `gputune inspect` prints, as a table or as JSON.
 *
 * The table shows one row per kernel: its SASS architectures, its PTX
 * targets, the resources of its newest SASS build, its parameters, the
 * module variables it uses, and which tuning knobs apply.  JSON carries the
 * same and everything behind it: every fatbin and entry, every build's
 * resources, PTX parameter layouts and loop heads. */
#include "imageptx.h"
#include "inspect.h"
#include "json.h"
#include "sidefx.h"

#include <stdlib.h>
#include <string.h>

/* ---- building blocks ---- */

struct buf {
    char *s;
    size_t len, cap;
};

static void put(struct buf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p)
            return;
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

static const char *arch_name(char *buf, size_t len, int ptx, int arch, char suffix)
{
    gt_fatbin_arch_name(buf, len, ptx ? "compute" : "sm", arch, suffix);
    return buf;
}

static int same_arch(const struct gt_inspect_build *a, const struct gt_inspect_build *b)
{
    return a->arch == b->arch && a->suffix == b->suffix;
}

static const char *ptx_reach(char *buf, size_t len, int arch, char suffix)
{
    if (suffix == 'a')
        snprintf(buf, len, "sm_%d only", arch);
    else if (suffix == 'f')
        snprintf(buf, len, "sm_%d family", arch);
    else
        snprintf(buf, len, "sm_%d+", arch);
    return buf;
}

static int cmp_build(const void *a, const void *b)
{
    const struct gt_inspect_build *x = *(const struct gt_inspect_build *const *)a;
    const struct gt_inspect_build *y = *(const struct gt_inspect_build *const *)b;
    if (x->arch != y->arch)
        return x->arch < y->arch ? -1 : 1;
    return (x->suffix > y->suffix) - (x->suffix < y->suffix);
}

/* "sm_75,sm_90a": each architecture once, oldest first. */
static void arch_list(struct buf *b, const struct gt_inspect_build *v, unsigned n, int ptx, const char *sep)
{
    const struct gt_inspect_build **order = malloc((n ? n : 1) * sizeof *order);
    char name[32], reach[32];
    if (!order)
        return;
    for (unsigned i = 0; i < n; i++)
        order[i] = &v[i];
    qsort(order, n, sizeof *order, cmp_build);
    for (unsigned i = 0; i < n; i++) {
        if (i && same_arch(order[i], order[i - 1]))
            continue;
        if (i)
            put(b, sep);
        put(b, arch_name(name, sizeof name, ptx, order[i]->arch, order[i]->suffix));
        if (ptx && sep[1] == ' ') {
            put(b, " (");
            put(b, ptx_reach(reach, sizeof reach, order[i]->arch, order[i]->suffix));
            put(b, ")");
        }
    }
    free(order);
}

/* The SASS build whose resources the table shows: the newest architecture,
 * linked code before relocatable (whose shared memory is not laid out yet). */
const struct gt_inspect_build *gt_inspect_best_sass(const struct gt_inspect_kernel *k)
{
    const struct gt_inspect_build *best = NULL;
    for (unsigned i = 0; i < k->nsass; i++) {
        const struct gt_inspect_build *b = &k->sass[i];
        if (!best || (best->cubin->relocatable && !b->cubin->relocatable) ||
            (best->cubin->relocatable == b->cubin->relocatable && b->arch > best->arch))
            best = b;
    }
    return best;
}

static int relocatable_only(const struct gt_inspect_file *f, const struct gt_inspect_kernel *k)
{
    return strcmp(f->dc.containers[k->container].section, "__nv_relfatbin") == 0;
}

#define JIT_KNOBS "max registers, load cache mode, launch bounds, cache preference, carve-out"
#define LAUNCH_KNOBS "cache preference and carve-out only"

static int ptx_reaches(const struct gt_inspect_kernel *k, int device)
{
    for (unsigned i = 0; i < k->nptx; i++)
        if (gt_image_ptx_fits(k->ptx[i].arch, k->ptx[i].suffix, device))
            return 1;
    return 0;
}

/* The SASS architectures none of the kernel's PTX reaches, "sm_75,sm_80". */
static void sass_beyond_ptx(struct buf *b, const struct gt_inspect_kernel *k)
{
    struct gt_inspect_build *v = malloc((k->nsass ? k->nsass : 1) * sizeof *v);
    unsigned n = 0;
    for (unsigned i = 0; v && i < k->nsass; i++)
        if (!ptx_reaches(k, k->sass[i].arch))
            v[n++] = k->sass[i];
    if (n)
        arch_list(b, v, n, 0, ",");
    free(v);
}

static void tuning_on(struct buf *b, const struct gt_inspect_kernel *k, int device)
{
    char name[32];
    gt_fatbin_arch_name(name, sizeof name, "sm", device, 0);
    int sass = 0;
    for (unsigned i = 0; i < k->nsass; i++)
        sass |= gt_devcode_sass_runs(k->sass[i].arch, k->sass[i].suffix, device);
    if (ptx_reaches(k, device)) {
        struct gt_inspect_build *v = malloc(k->nptx * sizeof *v);
        unsigned n = 0;
        for (unsigned i = 0; v && i < k->nptx; i++)
            if (gt_image_ptx_fits(k->ptx[i].arch, k->ptx[i].suffix, device))
                v[n++] = k->ptx[i];
        put(b, "PTX ");
        arch_list(b, v, n, 1, ",");
        free(v);
        put(b, " for ");
        put(b, name);
        put(b, ": " JIT_KNOBS);
    } else if (sass) {
        put(b, "SASS only for ");
        put(b, name);
        put(b, ": " LAUNCH_KNOBS);
    } else {
        put(b, "none: no code that runs on ");
        put(b, name);
    }
}

static void tuning_anywhere(struct buf *b, const struct gt_inspect_file *f, const struct gt_inspect_kernel *k)
{
    if (k->nptx) {
        put(b, "PTX ");
        arch_list(b, k->ptx, k->nptx, 1, ", ");
        put(b, ": " JIT_KNOBS);
        const struct gt_devcode_entry *e = &f->dc.entries[k->ptx[0].entry];
        if (strcmp(f->dc.containers[e->container].section, "__nv_relfatbin") == 0)
            put(b, "; relocatable PTX, linked with the program's other device code");
        struct buf rest = {0};
        sass_beyond_ptx(&rest, k);
        if (rest.s) {
            put(b, "; SASS only for ");
            put(b, rest.s);
            put(b, ": " LAUNCH_KNOBS);
        }
        free(rest.s);
    } else if (k->nsass) {
        put(b, "SASS only for ");
        arch_list(b, k->sass, k->nsass, 0, ",");
        put(b, ": " LAUNCH_KNOBS);
    } else {
        put(b, "none: no loadable code");
    }
}

/* Device printf, assert or heap calls of the builds a device of
 * architecture `device` (0: any) runs, which tune mode does not repeat. */
static void side_effects(struct buf *b, const struct gt_inspect_file *f, const struct gt_inspect_kernel *k,
                         int device)
{
    unsigned all = 0, one;
    for (unsigned i = 0; i < k->nsass; i++)
        if ((!device || gt_devcode_sass_runs(k->sass[i].arch, k->sass[i].suffix, device)) &&
            gt_sidefx_entry(&f->dc.entries[k->sass[i].entry], k->name, &one) == 0)
            all |= one;
    for (unsigned i = 0; i < k->nptx; i++)
        if ((!device || gt_image_ptx_fits(k->ptx[i].arch, k->ptx[i].suffix, device)) &&
            gt_sidefx_entry(&f->dc.entries[k->ptx[i].entry], k->name, &one) == 0)
            all |= one;
    if (!all)
        return;
    char what[256];
    gt_sidefx_describe(all, what, sizeof what);
    put(b, "; tune mode leaves it alone: it calls ");
    put(b, what);
}

/* The last column: which tuning knobs apply to the kernel, on a device of
 * architecture `device` or, for 0, on each it has code for. */
void gt_inspect_tuning(const struct gt_inspect_file *f, const struct gt_inspect_kernel *k, int device, char *out,
                       size_t len)
{
    struct buf b = {0};
    int dropped = relocatable_only(f, k) && f->dc.wrappers[2];
    if (dropped)
        put(&b, "none: relocatable code the device link left out of the program");
    else if (device)
        tuning_on(&b, k, device);
    else
        tuning_anywhere(&b, f, k);
    if (!dropped)
        side_effects(&b, f, k, device);
    snprintf(out, len, "%s", b.s ? b.s : "");
    free(b.s);
}

/* One name of a list, as JSON or as table text. */
static void put_name(struct buf *b, FILE *json, unsigned j, const char *v)
{
    if (json) {
        fputs(j ? ", " : "", json);
        gt_json_str(json, v);
    } else {
        put(b, j ? "," : "");
        put(b, v);
    }
}

/* Variables a kernel uses: from its PTX if it has some, else from a
 * relocatable cubin.  Returns 0 when nothing says. */
static int kernel_vars(const struct gt_inspect_kernel *k, struct buf *b, FILE *json)
{
    for (unsigned i = 0; i < k->nptx; i++) {
        const struct gt_ptx_func *fn = k->ptx[i].func;
        for (unsigned j = 0; j < fn->nvars; j++)
            put_name(b, json, j, k->ptx[i].ptx->vars[fn->vars[j]].name);
        return 1;
    }
    for (unsigned i = 0; i < k->nsass; i++) {
        const struct gt_cubin_kernel *ck = k->sass[i].kernel;
        if (!ck->vars_known)
            continue;
        for (unsigned j = 0; j < ck->nvars; j++)
            put_name(b, json, j, k->sass[i].cubin->vars[ck->vars[j]].name);
        return 1;
    }
    return 0;
}

static int module_has_vars(const struct gt_inspect_kernel *k)
{
    for (unsigned i = 0; i < k->nsass; i++)
        if (k->sass[i].cubin->nvars)
            return 1;
    return 0;
}

/* ---- the table ---- */

static void print_damaged(FILE *out, const struct gt_inspect_file *f)
{
    char name[32];
    for (size_t i = 0, shown = 0; i < f->dc.nentries && shown < 10; i++) {
        const struct gt_devcode_entry *e = &f->dc.entries[i];
        if (e->status >= 0)
            continue;
        fprintf(out, "  damaged %s entry for %s in the fatbin at offset %zu: %s\n", gt_fatbin_kind_name(e->fe.kind),
                arch_name(name, sizeof name, e->fe.kind == GT_FATBIN_PTX, e->fe.arch, e->fe.suffix),
                f->dc.containers[e->container].offset, e->error);
        shown++;
    }
}

struct counts {
    int kind, arch;
    char suffix;
    size_t entries, kernels;
};

static int cmp_counts(const void *a, const void *b)
{
    const struct counts *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->arch != y->arch)
        return x->arch < y->arch ? -1 : 1;
    return (x->suffix > y->suffix) - (x->suffix < y->suffix);
}

/* Entries and kernels per kind and architecture, sorted. */
static struct counts *count_archs(const struct gt_devcode *dc, size_t *n)
{
    struct counts *c = calloc(dc->nentries ? dc->nentries : 1, sizeof *c);
    *n = 0;
    for (size_t i = 0; c && i < dc->nentries; i++) {
        const struct gt_devcode_entry *e = &dc->entries[i];
        int arch = e->fe.arch;
        char suffix = e->fe.suffix;
        size_t kernels = e->fe.kind == GT_FATBIN_ELF ? e->cubin.nkernels : e->fe.kind == GT_FATBIN_PTX ? e->ptx.nentries : 0;
        if (e->fe.kind == GT_FATBIN_ELF && e->cubin.suffix)
            suffix = e->cubin.suffix;
        if (e->fe.kind == GT_FATBIN_PTX && e->ptx.target) {
            arch = e->ptx.target;
            suffix = e->ptx.target_suffix;
        }
        size_t j = 0;
        while (j < *n && !(c[j].kind == e->fe.kind && c[j].arch == arch && c[j].suffix == suffix))
            j++;
        if (j == *n)
            c[(*n)++] = (struct counts){e->fe.kind, arch, suffix, 0, 0};
        c[j].entries++;
        c[j].kernels += kernels;
    }
    if (c)
        qsort(c, *n, sizeof *c, cmp_counts);
    return c;
}

/* What a fatbin of a host file is to the program, for the file line. */
static const char *role(const struct gt_devcode_container *c)
{
    if (strcmp(c->section, "__nv_relfatbin") == 0)
        return "of relocatable objects";
    if (c->wrapper == 2)
        return "device-linked";
    if (c->wrapper)
        return "registered by the CUDA runtime";
    return NULL; /* named by its section */
}

/* "3 fatbins: 1 registered by the CUDA runtime, 2 in .cask_resource" */
static void print_containers(FILE *out, const struct gt_devcode *dc)
{
    fprintf(out, ", %zu fatbin%s", dc->ncontainers, dc->ncontainers == 1 ? "" : "s");
    if (dc->format != GT_DC_HOST_ELF)
        return;
    for (size_t i = 0; i < dc->ncontainers; i++) {
        const struct gt_devcode_container *c = &dc->containers[i];
        const char *r = role(c);
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) {
            const char *rj = role(&dc->containers[j]);
            seen = r ? rj && strcmp(r, rj) == 0 : !rj && strcmp(c->section, dc->containers[j].section) == 0;
        }
        if (seen)
            continue;
        size_t n = 0;
        for (size_t j = i; j < dc->ncontainers; j++) {
            const char *rj = role(&dc->containers[j]);
            n += r ? rj && strcmp(r, rj) == 0 : !rj && strcmp(c->section, dc->containers[j].section) == 0;
        }
        fprintf(out, "%s%zu %s%s", i ? ", " : ": ", n, r ? r : "in ", r ? "" : c->section[0] ? c->section : "(no section)");
    }
    fputc(';', out);
}

static void print_header(FILE *out, const struct gt_inspect_file *f)
{
    const struct gt_devcode *dc = &f->dc;
    fprintf(out, "%s: %s", f->path, gt_devcode_format_name(dc));
    if (dc->format == GT_DC_HOST_ELF || dc->format == GT_DC_ARCHIVE || dc->ncontainers > 1)
        print_containers(out, dc);
    fprintf(out, "%s %zu entr%s, %zu kernel%s\n", dc->format == GT_DC_HOST_ELF ? "" : ",", dc->nentries,
            dc->nentries == 1 ? "y" : "ies", f->nkernels, f->nkernels == 1 ? "" : "s");
    size_t n;
    struct counts *c = count_archs(dc, &n);
    char name[32];
    for (int kind = GT_FATBIN_PTX; c && kind <= GT_FATBIN_LTOIR; kind *= 2) {
        int first = 1;
        for (size_t i = 0; i < n; i++) {
            if (c[i].kind != kind)
                continue;
            fprintf(out, first ? "  %-5s " : ", ", kind == GT_FATBIN_ELF ? "SASS" : kind == GT_FATBIN_PTX ? "PTX" : "IR");
            fprintf(out, "%s x%zu", arch_name(name, sizeof name, kind != GT_FATBIN_ELF, c[i].arch, c[i].suffix),
                    c[i].entries);
            first = 0;
        }
        if (!first)
            fputc('\n', out);
    }
    free(c);
}

enum { C_NAME, C_SASS, C_PTX, C_REGS, C_SMEM, C_LMEM, C_PARAMS, C_VARS, C_TUNING, NCOLS };

static const char *const headings[NCOLS] = {"KERNEL", "SASS", "PTX", "REGS", "SMEM", "LMEM", "PARAMS", "VARIABLES",
                                            "TUNING"};
static const int right_aligned[NCOLS] = {0, 0, 0, 1, 1, 1, 0, 0, 0};
static const size_t narrow[NCOLS] = {60, 40, 30, 8, 8, 8, 16, 24, 0}; /* widths unless --wide */

static void cells_resources(const struct gt_inspect_kernel *k, char **c)
{
    const struct gt_inspect_build *s = gt_inspect_best_sass(k);
    if (!s) {
        c[C_REGS] = strdup("-");
        c[C_SMEM] = strdup("-");
        c[C_LMEM] = strdup("-");
        return;
    }
    char tmp[32];
    if (s->kernel->regs >= 0)
        snprintf(tmp, sizeof tmp, "%d", s->kernel->regs);
    else
        snprintf(tmp, sizeof tmp, "?");
    c[C_REGS] = strdup(tmp);
    snprintf(tmp, sizeof tmp, "%u", s->kernel->shared);
    c[C_SMEM] = strdup(tmp);
    snprintf(tmp, sizeof tmp, "%u", s->kernel->local);
    c[C_LMEM] = strdup(tmp);
}

static char *cell_params(const struct gt_inspect_kernel *k)
{
    char tmp[48];
    if (k->nptx)
        snprintf(tmp, sizeof tmp, "%u (%u B)", k->ptx[0].func->nparams, k->ptx[0].func->param_bytes);
    else if (k->nsass)
        snprintf(tmp, sizeof tmp, "%u (%u B)", k->sass[0].kernel->nparams, k->sass[0].kernel->param_bytes);
    else
        snprintf(tmp, sizeof tmp, "-");
    return strdup(tmp);
}

static char *take(struct buf *b, const char *empty)
{
    if (b->s && b->s[0])
        return b->s;
    free(b->s);
    return strdup(empty);
}

static void row_cells(const struct gt_inspect_file *f, const struct gt_inspect_kernel *k, int device, char **c)
{
    struct buf sass = {0}, ptx = {0}, vars = {0};
    char tuning[1024];
    arch_list(&sass, k->sass, k->nsass, 0, ",");
    arch_list(&ptx, k->ptx, k->nptx, 1, ",");
    if (!kernel_vars(k, &vars, NULL))
        put(&vars, module_has_vars(k) ? "?" : "");
    c[C_NAME] = strdup(k->demangled ? k->demangled : k->name);
    c[C_SASS] = take(&sass, "-");
    c[C_PTX] = take(&ptx, "-");
    cells_resources(k, c);
    c[C_PARAMS] = cell_params(k);
    c[C_VARS] = take(&vars, "-");
    gt_inspect_tuning(f, k, device, tuning, sizeof tuning);
    c[C_TUNING] = strdup(tuning);
}

/* Cuts a cell to `width` characters, marking the cut. */
static void shorten(char *s, size_t width)
{
    if (s && width > 3 && strlen(s) > width)
        memcpy(s + width - 3, "...", 4);
}

static void print_cells(FILE *out, char *const *c, const int *w)
{
    for (int i = 0; i < NCOLS; i++) {
        const char *s = c[i] ? c[i] : "?";
        if (i == NCOLS - 1)
            fprintf(out, "%s\n", s);
        else
            fprintf(out, right_aligned[i] ? "%*s  " : "%-*s  ", w[i], s);
    }
}

void gt_inspect_table(FILE *out, const struct gt_inspect_file *f, const struct gt_inspect_options *o)
{
    print_header(out, f);
    if (!f->nkernels) {
        fputs("  (no kernels)\n\n", out);
        return;
    }
    char **cells = calloc(f->nkernels * NCOLS, sizeof *cells);
    int w[NCOLS];
    for (int i = 0; i < NCOLS; i++)
        w[i] = (int)strlen(headings[i]);
    for (size_t r = 0; cells && r < f->nkernels; r++) {
        char **c = &cells[r * NCOLS];
        row_cells(f, &f->kernels[r], o->arch, c);
        for (int i = 0; i < NCOLS; i++) {
            if (!o->wide && narrow[i])
                shorten(c[i], narrow[i]);
            size_t n = c[i] ? strlen(c[i]) : 1;
            if ((int)n > w[i])
                w[i] = n > 4096 ? 4096 : (int)n;
        }
    }
    fputc('\n', out);
    print_cells(out, (char *const *)headings, w);
    for (size_t r = 0; cells && r < f->nkernels; r++) {
        print_cells(out, &cells[r * NCOLS], w);
        for (int i = 0; i < NCOLS; i++)
            free(cells[r * NCOLS + i]);
    }
    free(cells);
    print_damaged(out, f);
    fputc('\n', out);
}

/* ---- JSON ---- */

static void json_triple(FILE *out, const char *key, const unsigned v[3])
{
    fprintf(out, ", \"%s\": [%u, %u, %u]", key, v[0], v[1], v[2]);
}

static void json_sass(FILE *out, const struct gt_inspect_build *b)
{
    const struct gt_cubin_kernel *k = b->kernel;
    char name[32];
    fprintf(out, "{\"arch\": \"%s\", \"entry\": %zu, \"registers\": %d, \"shared\": %u, \"shared_reserved\": %u, "
                 "\"local\": %u, \"stack\": %u, \"const0\": %u, \"barriers\": %u, \"max_registers\": %u",
            arch_name(name, sizeof name, 0, b->arch, b->suffix), b->entry, k->regs, k->shared, k->shared_reserved,
            k->local, k->max_stack, k->const0, k->barriers, k->max_regs);
    json_triple(out, "max_threads", k->max_threads);
    json_triple(out, "required_threads", k->req_threads);
    fprintf(out, ", \"relocatable\": %s, \"param_bytes\": %u, \"params\": [", b->cubin->relocatable ? "true" : "false",
            k->param_bytes);
    for (unsigned i = 0; i < k->nparams; i++)
        fprintf(out, "%s{\"ordinal\": %u, \"offset\": %u, \"size\": %u}", i ? ", " : "", k->params[i].ordinal,
                k->params[i].offset, k->params[i].size);
    fputs("]}", out);
}

static void json_ptx(FILE *out, const struct gt_inspect_build *b)
{
    const struct gt_ptx_func *fn = b->func;
    char name[32];
    fprintf(out, "{\"target\": \"%s\", \"entry\": %zu, \"version\": \"%d.%d\", \"param_bytes\": %u",
            arch_name(name, sizeof name, 1, b->arch, b->suffix), b->entry, b->ptx->version / 100,
            b->ptx->version % 100, fn->param_bytes);
    json_triple(out, "maxntid", fn->maxntid);
    json_triple(out, "reqntid", fn->reqntid);
    fprintf(out, ", \"minnctapersm\": %u, \"maxnreg\": %u, \"params\": [", fn->minnctapersm, fn->maxnreg);
    for (unsigned i = 0; i < fn->nparams; i++) {
        const struct gt_ptx_param *p = &fn->params[i];
        fputs(i ? ", {\"name\": " : "{\"name\": ", out);
        gt_json_str(out, p->name);
        fputs(", \"type\": ", out);
        gt_json_str(out, p->type);
        fprintf(out, ", \"size\": %u, \"align\": %u, \"offset\": %u, \"pointer\": %s}", p->size, p->align, p->offset,
                p->is_ptr ? "true" : "false");
    }
    fputs("], \"loops\": [", out);
    for (unsigned i = 0; i < fn->nloops; i++) {
        fputs(i ? ", {\"label\": " : "{\"label\": ", out);
        gt_json_str(out, fn->loops[i].label);
        fprintf(out, ", \"line\": %u, \"offset\": %zu}", fn->loops[i].line, fn->loops[i].offset);
    }
    fputs("]}", out);
}

static void json_kernel(FILE *out, const struct gt_inspect_file *f, const struct gt_inspect_kernel *k, int device)
{
    char tuning[1024];
    fputs("    {\"name\": ", out);
    gt_json_str(out, k->name);
    fputs(", \"demangled\": ", out);
    gt_json_str(out, k->demangled);
    fprintf(out, ", \"fatbin\": %zu,\n     \"sass\": [", k->container);
    for (unsigned i = 0; i < k->nsass; i++) {
        fputs(i ? ", " : "", out);
        json_sass(out, &k->sass[i]);
    }
    fputs("],\n     \"ptx\": [", out);
    for (unsigned i = 0; i < k->nptx; i++) {
        fputs(i ? ", " : "", out);
        json_ptx(out, &k->ptx[i]);
    }
    fputs("],\n     \"variables\": [", out);
    int known = kernel_vars(k, NULL, out);
    fprintf(out, "], \"variables_known\": %s, \"tuning\": ", known ? "true" : "false");
    gt_inspect_tuning(f, k, device, tuning, sizeof tuning);
    gt_json_str(out, tuning);
    fputs("}", out);
}

static const char *compression(const struct gt_fatbin_entry *e)
{
    if (e->flags & GT_FATBIN_FLAG_ZSTD)
        return "\"zstd\"";
    if (e->flags & GT_FATBIN_FLAG_LZ4)
        return "\"lz4\"";
    return "null";
}

static void json_entry(FILE *out, const struct gt_devcode_entry *e)
{
    char name[32];
    int ptx = e->fe.kind == GT_FATBIN_PTX;
    size_t kernels = e->fe.kind == GT_FATBIN_ELF ? e->cubin.nkernels : ptx ? e->ptx.nentries : 0;
    fprintf(out, "{\"kind\": \"%s\", \"arch\": \"%s\", \"compression\": %s, \"stored\": %zu, \"size\": %zu, "
                 "\"kernels\": %zu, ",
            gt_fatbin_kind_name(e->fe.kind), arch_name(name, sizeof name, e->fe.kind != GT_FATBIN_ELF, e->fe.arch, e->fe.suffix),
            compression(&e->fe), e->fe.size, e->size, kernels);
    if (e->fe.kind == GT_FATBIN_ELF && e->status > 0)
        fprintf(out, "\"functions\": %zu, \"variables\": %zu, \"relocatable\": %s, ", e->cubin.nfunctions,
                e->cubin.nvars, e->cubin.relocatable ? "true" : "false");
    if (ptx && e->status > 0)
        fprintf(out, "\"version\": \"%d.%d\", \"variables\": %zu, ", e->ptx.version / 100, e->ptx.version % 100,
                e->ptx.nvars);
    fputs("\"error\": ", out);
    gt_json_str(out, e->status < 0 ? e->error : NULL);
    fputs("}", out);
}

static void json_fatbins(FILE *out, const struct gt_devcode *dc)
{
    fputs("  \"fatbins\": [", out);
    for (size_t i = 0; i < dc->ncontainers; i++) {
        const struct gt_devcode_container *c = &dc->containers[i];
        fprintf(out, "%s\n    {\"index\": %zu, \"offset\": %zu, \"size\": %zu, \"section\": ", i ? "," : "", i,
                c->offset, c->size);
        gt_json_str(out, c->section);
        fprintf(out, ", \"wrapper\": %d, \"entries\": [", c->wrapper);
        for (size_t j = 0; j < c->count; j++) {
            fputs(j ? ",\n      " : "\n      ", out);
            json_entry(out, &dc->entries[c->first + j]);
        }
        fputs("]}", out);
    }
    fputs("],\n", out);
}

static void json_summary(FILE *out, const struct gt_devcode *dc)
{
    size_t n;
    struct counts *c = count_archs(dc, &n);
    char name[32];
    fputs("  \"summary\": {", out);
    for (int kind = GT_FATBIN_PTX, first = 1; c && kind <= GT_FATBIN_LTOIR; kind *= 2) {
        fprintf(out, "%s\"%s\": {", first ? "" : ", ", gt_fatbin_kind_name(kind));
        first = 0;
        for (size_t i = 0, k = 0; i < n; i++) {
            if (c[i].kind != kind)
                continue;
            fprintf(out, "%s\"%s\": {\"entries\": %zu, \"kernels\": %zu}", k++ ? ", " : "",
                    arch_name(name, sizeof name, kind != GT_FATBIN_ELF, c[i].arch, c[i].suffix), c[i].entries,
                    c[i].kernels);
        }
        fputs("}", out);
    }
    fputs("},\n", out);
    free(c);
}

void gt_inspect_json(FILE *out, const struct gt_inspect_file *f, const struct gt_inspect_options *o)
{
    fputs("  {\"path\": ", out);
    gt_json_str(out, f->path);
    if (f->error[0]) {
        fputs(", \"error\": ", out);
        gt_json_str(out, f->error);
        fputs("}", out);
        return;
    }
    fputs(", \"format\": ", out);
    gt_json_str(out, gt_devcode_format_name(&f->dc));
    fprintf(out, ", \"size\": %zu, \"wrappers\": {\"v1\": %u, \"v2\": %u}, \"damaged_entries\": %zu,\n", f->size,
            f->dc.wrappers[1], f->dc.wrappers[2], f->failed);
    json_fatbins(out, &f->dc);
    json_summary(out, &f->dc);
    fputs("  \"kernels\": [\n", out);
    for (size_t i = 0; i < f->nkernels; i++) {
        fputs(i ? ",\n" : "", out);
        json_kernel(out, f, &f->kernels[i], o->arch);
    }
    fputs("]}", out);
}
