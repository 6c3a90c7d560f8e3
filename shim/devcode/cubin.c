/* cubin.c: kernels and their resources in a CUDA ELF.
 *
 * A cubin is an ELF for machine 190.  Its kernels are the functions whose
 * symbols carry STO_CUDA_ENTRY; what the driver reports about them comes
 * from the .nv.info sections (one for the module, attributes keyed by
 * symbol; one per kernel, .nv.info.<kernel>) and from the per-kernel
 * .nv.shared.<kernel> and .nv.constant0.<kernel> sections.  Attribute
 * records are {u8 format, u8 attribute, u16 value or size}, followed by
 * `size` bytes for format 4.  Relocations say which module variables a
 * relocatable (-rdc) cubin's functions touch; a linked cubin reaches its
 * globals through constant bank slots instead, so there usage stays unknown.
 * Functions the driver provides (vprintf, malloc...) are undefined symbols;
 * which function calls them, relocations say in a relocatable cubin, and
 * each function's EIATTR_EXTERNS list in both kinds.
 *
 * Parsing goes through libelf on the caller's bytes, which it never writes
 * for a little-endian 64-bit ELF, the only kind accepted here. */
#include "cubin.h"
#include "alloc.h"
#include "errmsg.h"
#include "arena.h"

#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STO_CUDA_ENTRY 0x10
#define STT_CUDA_OBJECT 13 /* variables of relocatable cubins */
#define MAX_SECTIONS ((size_t)1 << 20)
#define RESERVED_SMEM 1024 /* the system's part of a block's shared window, sm_90 on */

enum {
    EIFMT_SVAL = 4,
    EIATTR_MAX_THREADS = 0x05,
    EIATTR_PARAM_CBANK = 0x0a,
    EIATTR_EXTERNS = 0x0f,
    EIATTR_REQNTID = 0x10,
    EIATTR_FRAME_SIZE = 0x11,
    EIATTR_KPARAM_INFO = 0x17,
    EIATTR_CBANK_PARAM_SIZE = 0x19,
    EIATTR_MAXREG_COUNT = 0x1b,
    EIATTR_MAX_STACK_SIZE = 0x23,
    EIATTR_REGCOUNT = 0x2f,
    EIATTR_NUM_BARRIERS = 0x4c,
};

struct section {
    GElf_Shdr sh;
    const char *name;
    Elf_Scn *scn;
    Elf_Data *data;  /* read on first use: only the sections parsed need to be intact */
    int tried;
};

struct attr {
    int fmt, id;
    const unsigned char *value; /* format 4 */
    uint32_t len;               /* of value, or the inline value otherwise */
};

#define VEC(T) struct { T *v; size_t n, cap; }

struct parser {
    Elf *elf;
    struct gt_cubin *c;
    struct section *secs;
    size_t nsecs;
    Elf_Data *symtab;
    size_t symstr, nsyms;
    long *sym_kernel;          /* symbol -> kernel index, or -1 */
    long *sym_var;             /* symbol -> variable index, or -1 */
    long *sym_extern;          /* symbol -> extern index, or -1 */
    long *sec_kernel;          /* .text section -> kernel index, or -1 */
    VEC(struct gt_cubin_kernel) kernels;
    VEC(struct gt_cubin_var) vars;
    VEC(struct gt_cubin_param) params;
    VEC(const char *) externs;
    unsigned char *uses;       /* section x variable: relocation seen */
    unsigned char *calls;      /* section x section: relocation to a function */
    unsigned char *ext;        /* section x extern: listed or relocated */
    size_t info_text;          /* the .text section of the .nv.info.<function> being read */
    int externs_listed;        /* some function has an EIATTR_EXTERNS list */
    int has_reserved_smem;
    int failed;
    char *err;
    size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int fail(struct parser *P, const char *fmt, ...)
{
    if (P->failed)
        return -1;
    P->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    gt_verrf(P->err, P->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

#define PUSH(P, vec, item) \
    (gt_grow((void **)&(vec).v, &(vec).cap, (vec).n + 1, sizeof *(vec).v) ? fail(P, "out of memory") \
                                                                        : ((vec).v[(vec).n++] = (item), 0))

static uint16_t rd16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }

static pthread_once_t libelf_once = PTHREAD_ONCE_INIT;

static void libelf_init(void)
{
    elf_version(EV_CURRENT);
}

/* The architecture in e_flags: from ELF ABI version 8 on in bits 8..15,
 * before in bits 0..7.  Returns -1 if `data` is no 64-bit CUDA ELF. */
int gt_cubin_arch(const unsigned char *data, size_t size, int *arch)
{
    Elf64_Ehdr eh;
    if (size < sizeof eh)
        return -1;
    memcpy(&eh, data, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != GT_EM_CUDA)
        return -1;
    *arch = (int)(eh.e_ident[EI_ABIVERSION] >= 8 ? (eh.e_flags >> 8) & 0xff : eh.e_flags & 0xff);
    return 0;
}

static const char *sym_name(struct parser *P, const GElf_Sym *s)
{
    return elf_strptr(P->elf, P->symstr, s->st_name);
}

/* A section's bytes, or NULL if it has none or they lie outside the file. */
static Elf_Data *section_data(struct parser *P, size_t i)
{
    struct section *s = &P->secs[i];
    if (!s->tried) {
        s->tried = 1;
        if (s->sh.sh_type != SHT_NOBITS && s->sh.sh_type != SHT_NULL && s->sh.sh_size)
            s->data = elf_getdata(s->scn, NULL);
        if (s->data && (!s->data->d_buf || s->data->d_size > s->sh.sh_size))
            s->data = NULL;
    }
    return s->data;
}

static int read_sections(struct parser *P)
{
    size_t n, shstr;
    if (elf_getshdrnum(P->elf, &n) != 0 || elf_getshdrstrndx(P->elf, &shstr) != 0)
        return fail(P, "unreadable section headers: %s", elf_errmsg(-1));
    if (n > MAX_SECTIONS)
        return fail(P, "%zu sections", n);
    P->nsecs = n;
    P->secs = gt_calloc(n ? n : 1, sizeof *P->secs);
    P->sec_kernel = gt_malloc((n ? n : 1) * sizeof *P->sec_kernel);
    if (!P->secs || !P->sec_kernel)
        return fail(P, "out of memory");
    for (size_t i = 0; i < n; i++) {
        P->sec_kernel[i] = -1;
        Elf_Scn *scn = elf_getscn(P->elf, i);
        if (!scn || !gelf_getshdr(scn, &P->secs[i].sh))
            return fail(P, "unreadable section header %zu: %s", i, elf_errmsg(-1));
        P->secs[i].scn = scn;
        P->secs[i].name = elf_strptr(P->elf, shstr, P->secs[i].sh.sh_name);
        if (!P->secs[i].name)
            P->secs[i].name = "";
        if (P->secs[i].sh.sh_type == SHT_SYMTAB && !P->symtab) {
            P->symtab = section_data(P, i);
            if (!P->symtab)
                return fail(P, "unreadable symbol table: %s", elf_errmsg(-1));
            P->symstr = P->secs[i].sh.sh_link;
            P->nsyms = P->symtab->d_size / sizeof(Elf64_Sym);
        }
        if (strcmp(P->secs[i].name, ".nv.shared.reserved.0") == 0)
            P->has_reserved_smem = 1;
    }
    if (!P->symtab)
        return fail(P, "no symbol table");
    return 0;
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A section that holds module variables: .nv.global, .nv.global.init, or
 * a numbered constant bank without a kernel name (.nv.constant3). */
static int var_space(const char *sec, enum gt_cubin_space *space)
{
    if (starts(sec, ".nv.global")) {
        *space = GT_CUBIN_GLOBAL;
        return 1;
    }
    if (starts(sec, ".nv.constant")) {
        const char *p = sec + strlen(".nv.constant");
        while (*p >= '0' && *p <= '9')
            p++;
        *space = GT_CUBIN_CONST;
        return p > sec + strlen(".nv.constant") && *p == '\0' && strcmp(sec, ".nv.constant0") != 0;
    }
    return 0;
}

static int add_kernel(struct parser *P, size_t symi, const GElf_Sym *s, const char *name)
{
    struct gt_cubin_kernel k = {0};
    k.name = gt_arena_strndup(P->c->arena, name, strlen(name));
    if (!k.name)
        return fail(P, "out of memory");
    k.regs = -1;
    P->sym_kernel[symi] = (long)P->kernels.n;
    if (s->st_shndx > 0 && s->st_shndx < P->nsecs && P->sec_kernel[s->st_shndx] < 0)
        P->sec_kernel[s->st_shndx] = (long)P->kernels.n;
    return PUSH(P, P->kernels, k);
}

static int add_var(struct parser *P, size_t symi, const GElf_Sym *s, const char *name, enum gt_cubin_space sp)
{
    struct gt_cubin_var v = {0};
    v.name = gt_arena_strndup(P->c->arena, name, strlen(name));
    if (!v.name)
        return fail(P, "out of memory");
    v.space = sp;
    v.size = s->st_size;
    P->sym_var[symi] = (long)P->vars.n;
    return PUSH(P, P->vars, v);
}

static int add_extern(struct parser *P, size_t symi, const char *name)
{
    const char *copy = gt_arena_strndup(P->c->arena, name, strlen(name));
    if (!copy)
        return fail(P, "out of memory");
    P->sym_extern[symi] = (long)P->externs.n;
    return PUSH(P, P->externs, copy);
}

static int read_symbols(struct parser *P)
{
    P->sym_kernel = gt_malloc((P->nsyms ? P->nsyms : 1) * sizeof *P->sym_kernel);
    P->sym_var = gt_malloc((P->nsyms ? P->nsyms : 1) * sizeof *P->sym_var);
    P->sym_extern = gt_malloc((P->nsyms ? P->nsyms : 1) * sizeof *P->sym_extern);
    if (!P->sym_kernel || !P->sym_var || !P->sym_extern)
        return fail(P, "out of memory");
    for (size_t i = 0; i < P->nsyms; i++) {
        P->sym_kernel[i] = P->sym_var[i] = P->sym_extern[i] = -1;
        GElf_Sym s;
        if (!gelf_getsym(P->symtab, (int)i, &s))
            return fail(P, "unreadable symbol %zu", i);
        const char *name = sym_name(P, &s);
        if (!name || !*name)
            continue;
        int type = GELF_ST_TYPE(s.st_info);
        enum gt_cubin_space sp;
        if (type == STT_FUNC && s.st_shndx != SHN_UNDEF)
            P->c->nfunctions++;
        if (type == STT_FUNC && s.st_shndx == SHN_UNDEF) {
            if (add_extern(P, i, name) != 0)
                return -1;
        } else if (type == STT_FUNC && (s.st_other & STO_CUDA_ENTRY)) {
            if (add_kernel(P, i, &s, name) != 0)
                return -1;
        } else if ((type == STT_OBJECT || type == STT_CUDA_OBJECT) && s.st_shndx > 0 && s.st_shndx < P->nsecs && name[0] != '$' &&
                   name[0] != '.' && var_space(P->secs[s.st_shndx].name, &sp)) {
            if (add_var(P, i, &s, name, sp) != 0)
                return -1;
        }
    }
    return 0;
}

/* Calls `fn` for each attribute record; stops quietly at a damaged one. */
static void each_attr(const Elf_Data *d, void (*fn)(struct parser *, struct gt_cubin_kernel *, const struct attr *),
                      struct parser *P, struct gt_cubin_kernel *k)
{
    const unsigned char *p = d->d_buf;
    size_t n = d->d_size, off = 0;
    while (p && off + 4 <= n) {
        struct attr a = {p[off], p[off + 1], NULL, rd16(p + off + 2)};
        off += 4;
        if (a.fmt == EIFMT_SVAL) {
            if (a.len > n - off)
                return;
            a.value = p + off;
            off += a.len;
        } else if (a.fmt < 1 || a.fmt > 3) {
            return;
        }
        fn(P, k, &a);
    }
}

static struct gt_cubin_kernel *kernel_of_sym(struct parser *P, uint32_t sym)
{
    return sym < P->nsyms && P->sym_kernel[sym] >= 0 ? &P->kernels.v[P->sym_kernel[sym]] : NULL;
}

/* .nv.info: attributes of the whole module, keyed by symbol. */
static void module_attr(struct parser *P, struct gt_cubin_kernel *unused, const struct attr *a)
{
    (void)unused;
    if (a->fmt != EIFMT_SVAL || a->len < 8)
        return;
    struct gt_cubin_kernel *k = kernel_of_sym(P, rd32(a->value));
    uint32_t v = rd32(a->value + 4);
    if (!k)
        return;
    if (a->id == EIATTR_REGCOUNT)
        k->regs = (int)(v > 65535 ? 65535 : v);
    else if (a->id == EIATTR_FRAME_SIZE)
        k->local = v;
    else if (a->id == EIATTR_MAX_STACK_SIZE)
        k->max_stack = v;
}

static void triple(const struct attr *a, uint32_t out[3])
{
    for (uint32_t i = 0; i < 3 && a->value && a->len >= 4 * (i + 1); i++)
        out[i] = rd32(a->value + 4 * i);
}

/* .nv.info.<kernel>: attributes of one kernel. */
static void kernel_attr(struct parser *P, struct gt_cubin_kernel *k, const struct attr *a)
{
    switch (a->id) {
    case EIATTR_KPARAM_INFO:
        if (a->fmt == EIFMT_SVAL && a->len >= 12) {
            struct gt_cubin_param p = {rd16(a->value + 4), rd16(a->value + 6), rd32(a->value + 8) >> 18};
            PUSH(P, P->params, p); /* failure is in P->failed */
        }
        break;
    case EIATTR_PARAM_CBANK:
        if (a->fmt == EIFMT_SVAL && a->len >= 8) {
            k->param_base = rd16(a->value + 4);
            if (!k->param_bytes)
                k->param_bytes = rd16(a->value + 6);
        }
        break;
    case EIATTR_CBANK_PARAM_SIZE:
        if (a->fmt != EIFMT_SVAL)
            k->param_bytes = a->len;
        break;
    case EIATTR_MAX_THREADS:
        if (a->fmt == EIFMT_SVAL)
            triple(a, k->max_threads);
        break;
    case EIATTR_REQNTID:
        if (a->fmt == EIFMT_SVAL)
            triple(a, k->req_threads);
        break;
    case EIATTR_MAXREG_COUNT:
        if (a->fmt != EIFMT_SVAL)
            k->max_regs = a->len;
        break;
    case EIATTR_NUM_BARRIERS:
        if (a->fmt != EIFMT_SVAL)
            k->barriers = a->len;
        break;
    default:
        break;
    }
}

static int cmp_param(const void *a, const void *b)
{
    const struct gt_cubin_param *x = a, *y = b;
    return x->ordinal < y->ordinal ? -1 : x->ordinal > y->ordinal;
}

static int kernel_info(struct parser *P, struct gt_cubin_kernel *k, const Elf_Data *d)
{
    P->params.n = 0;
    each_attr(d, kernel_attr, P, k);
    if (P->failed)
        return -1;
    if (!P->params.n)
        return 0;
    k->params = gt_arena_memdup(P->c->arena, P->params.v, P->params.n * sizeof *k->params);
    if (!k->params)
        return fail(P, "out of memory");
    k->nparams = (unsigned)P->params.n;
    qsort(k->params, k->nparams, sizeof *k->params, cmp_param);
    return 0;
}

/* The kernel a per-kernel section belongs to: its sh_info names the
 * kernel's .text section; failing that, the name after the prefix. */
static struct gt_cubin_kernel *kernel_of_section(struct parser *P, const struct section *s, const char *prefix)
{
    size_t text = s->sh.sh_info;
    if (text < P->nsecs && P->sec_kernel[text] >= 0)
        return &P->kernels.v[P->sec_kernel[text]];
    const char *name = s->name + strlen(prefix);
    for (size_t i = 0; i < P->kernels.n; i++)
        if (strcmp(P->kernels.v[i].name, name) == 0)
            return &P->kernels.v[i];
    return NULL;
}

static uint32_t clamp32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static int read_kernel_sections(struct parser *P)
{
    for (size_t i = 0; i < P->nsecs; i++) {
        const struct section *s = &P->secs[i];
        struct gt_cubin_kernel *k;
        if (strcmp(s->name, ".nv.info") == 0 && section_data(P, i)) {
            each_attr(s->data, module_attr, P, NULL);
        } else if (starts(s->name, ".nv.info.") && section_data(P, i)) {
            if ((k = kernel_of_section(P, s, ".nv.info.")) && kernel_info(P, k, s->data) != 0)
                return -1;
        } else if (starts(s->name, ".nv.shared.") && !starts(s->name, ".nv.shared.reserved.")) {
            if ((k = kernel_of_section(P, s, ".nv.shared."))) {
                uint32_t size = clamp32(s->sh.sh_size);
                k->shared_reserved = P->has_reserved_smem && size >= RESERVED_SMEM ? RESERVED_SMEM : 0;
                k->shared = size - k->shared_reserved;
            }
        } else if (starts(s->name, ".nv.constant0.")) {
            if ((k = kernel_of_section(P, s, ".nv.constant0.")))
                k->const0 = clamp32(s->sh.sh_size);
        }
    }
    /* Before ELF ABI version 8 the register count sat in the top byte of
     * the .text section's sh_info. */
    for (size_t i = 0; i < P->nsecs; i++) {
        long k = P->sec_kernel[i];
        if (k >= 0 && P->kernels.v[k].regs < 0 && (P->secs[i].sh.sh_info >> 24))
            P->kernels.v[k].regs = (int)(P->secs[i].sh.sh_info >> 24);
    }
    return 0;
}

/* ---- which variables and external functions each kernel reaches ---- */

static void note_reloc(struct parser *P, size_t text, uint64_t info)
{
    size_t sym = GELF_R_SYM(info);
    if (sym >= P->nsyms)
        return;
    if (P->sym_var[sym] >= 0) {
        P->uses[text * P->vars.n + (size_t)P->sym_var[sym]] = 1;
        return;
    }
    if (P->sym_extern[sym] >= 0) {
        if (P->ext)
            P->ext[text * P->externs.n + (size_t)P->sym_extern[sym]] = 1;
        return;
    }
    GElf_Sym s;
    if (gelf_getsym(P->symtab, (int)sym, &s) && GELF_ST_TYPE(s.st_info) == STT_FUNC && s.st_shndx > 0 &&
        s.st_shndx < P->nsecs)
        P->calls[text * P->nsecs + s.st_shndx] = 1;
}

static void read_relocations(struct parser *P)
{
    for (size_t i = 0; i < P->nsecs; i++) {
        const struct section *s = &P->secs[i];
        size_t text = s->sh.sh_info;
        if ((s->sh.sh_type != SHT_REL && s->sh.sh_type != SHT_RELA) || text >= P->nsecs ||
            !(P->secs[text].sh.sh_flags & SHF_EXECINSTR) || !section_data(P, i))
            continue;
        int rela = s->sh.sh_type == SHT_RELA;
        size_t n = s->data->d_size / (rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel));
        for (size_t j = 0; j < n; j++) {
            GElf_Rela ra;
            GElf_Rel r;
            if (rela && gelf_getrela(s->data, (int)j, &ra))
                note_reloc(P, text, ra.r_info);
            else if (!rela && gelf_getrel(s->data, (int)j, &r))
                note_reloc(P, text, r.r_info);
        }
    }
}

/* EIATTR_EXTERNS: the undefined symbols a function's code refers to. */
static void extern_attr(struct parser *P, struct gt_cubin_kernel *unused, const struct attr *a)
{
    (void)unused;
    if (a->id != EIATTR_EXTERNS || a->fmt != EIFMT_SVAL)
        return;
    P->externs_listed = 1;
    for (uint32_t i = 0; i + 4 <= a->len; i += 4) {
        uint32_t sym = rd32(a->value + i);
        if (sym < P->nsyms && P->sym_extern[sym] >= 0)
            P->ext[P->info_text * P->externs.n + (size_t)P->sym_extern[sym]] = 1;
    }
}

static void read_extern_lists(struct parser *P)
{
    for (size_t i = 0; i < P->nsecs; i++) {
        const struct section *s = &P->secs[i];
        if (starts(s->name, ".nv.info.") && s->sh.sh_info < P->nsecs && section_data(P, i)) {
            P->info_text = s->sh.sh_info;
            each_attr(s->data, extern_attr, P, NULL);
        }
    }
}

/* Marks in seen[] the .text sections reachable from `text` through calls. */
static void reach(struct parser *P, size_t text, unsigned char *seen, size_t *stack)
{
    size_t ns = P->nsecs, sp = 0;
    memset(seen, 0, ns);
    stack[sp++] = text;
    seen[text] = 1;
    while (sp) {
        size_t t = stack[--sp];
        for (size_t u = 0; u < ns; u++)
            if (P->calls[t * ns + u] && !seen[u]) {
                seen[u] = 1;
                stack[sp++] = u;
            }
    }
}

/* The columns of `matrix` (sections x n) set in the rows of the sections
 * seen[] marks, or in the row of `text` alone when seen is NULL. */
static int collect(struct parser *P, const unsigned char *matrix, size_t n, const unsigned char *seen, size_t text,
                   unsigned **out, unsigned *count)
{
    unsigned *found = gt_arena_alloc(P->c->arena, (n ? n : 1) * sizeof *found);
    unsigned char *hit = gt_calloc(n ? n : 1, 1);
    if (!found || !hit) {
        free(hit);
        return fail(P, "out of memory");
    }
    *count = 0;
    for (size_t t = seen ? 0 : text; t < (seen ? P->nsecs : text + 1); t++) {
        if (seen && !seen[t])
            continue;
        for (size_t j = 0; j < n; j++)
            if (matrix[t * n + j] && !hit[j]) {
                hit[j] = 1;
                found[(*count)++] = (unsigned)j;
            }
    }
    free(hit);
    *out = found;
    return 0;
}

/* Only relocatable cubins say which function calls which, and name their
 * variables per function; the matrices are sections squared, so very large
 * modules go without.  EIATTR_EXTERNS lists cover a linked cubin, whose
 * kernels carry copies of what they call. */
static int usage(struct parser *P)
{
    size_t ns = P->nsecs, nv = P->vars.n, ne = P->externs.n;
    const size_t cap = (size_t)64 << 20;
    int relocs = P->c->relocatable && ns <= 512 && !(nv && ns > cap / nv);
    int lists = ne && ns <= cap / ne;
    unsigned char *seen = relocs ? gt_malloc(ns) : NULL;
    size_t *stack = relocs ? gt_malloc(ns * sizeof *stack) : NULL;
    if (relocs) {
        P->uses = gt_calloc(ns * (nv ? nv : 1), 1);
        P->calls = gt_calloc(ns * ns, 1);
    }
    if (lists)
        P->ext = gt_calloc(ns * ne, 1);
    int oom = (relocs && (!P->uses || !P->calls || !seen || !stack)) || (lists && !P->ext);
    int r = oom ? fail(P, "out of memory") : 0;
    if (r == 0 && lists)
        read_extern_lists(P);
    if (r == 0 && relocs)
        read_relocations(P);
    int externs_known = lists && (P->c->relocatable ? relocs : P->externs_listed);
    for (size_t i = 0; r == 0 && i < ns; i++) {
        struct gt_cubin_kernel *k = P->sec_kernel[i] >= 0 ? &P->kernels.v[P->sec_kernel[i]] : NULL;
        if (k && relocs) {
            reach(P, i, seen, stack);
            r = collect(P, P->uses, nv, seen, i, &k->vars, &k->nvars);
            k->vars_known = 1;
        }
        if (k && r == 0 && externs_known) {
            r = collect(P, P->ext, ne, seen, i, &k->externs, &k->nexterns);
            k->externs_known = 1;
        }
    }
    free(seen);
    free(stack);
    return r;
}

/* ---- the whole ---- */

/* "-arch sm_90a" in the ptxas command line the toolkit note records: the
 * only place a cubin says it is architecture-specific. */
static char arch_suffix(struct parser *P)
{
    for (size_t i = 0; i < P->nsecs; i++) {
        const struct section *s = &P->secs[i];
        if (strcmp(s->name, ".note.nv.tkinfo") != 0 || !section_data(P, i))
            continue;
        const char *p = s->data->d_buf, *end = p + s->data->d_size;
        const char *hit = memmem(p, (size_t)(end - p), "-arch sm_", 9);
        if (!hit)
            return 0;
        for (hit += 9; hit < end && *hit >= '0' && *hit <= '9'; hit++)
            ;
        return hit < end && (*hit == 'a' || *hit == 'f') ? *hit : 0;
    }
    return 0;
}

static int publish(struct parser *P)
{
    struct gt_cubin *c = P->c;
    c->kernels = gt_arena_memdup(c->arena, P->kernels.v, P->kernels.n * sizeof *c->kernels);
    c->vars = gt_arena_memdup(c->arena, P->vars.v, P->vars.n * sizeof *c->vars);
    c->externs = gt_arena_memdup(c->arena, P->externs.v, P->externs.n * sizeof *c->externs);
    if (!c->kernels || !c->vars || !c->externs)
        return fail(P, "out of memory");
    c->nkernels = P->kernels.n;
    c->nvars = P->vars.n;
    c->nexterns = P->externs.n;
    return 0;
}

static int parse(struct parser *P, const unsigned char *data, size_t size)
{
    struct gt_cubin *c = P->c;
    if (gt_cubin_arch(data, size, &c->arch) != 0)
        return fail(P, "not a 64-bit little-endian CUDA ELF");
    pthread_once(&libelf_once, libelf_init);
    P->elf = elf_memory((char *)(uintptr_t)data, size);
    GElf_Ehdr eh;
    if (!P->elf || elf_kind(P->elf) != ELF_K_ELF || !gelf_getehdr(P->elf, &eh))
        return fail(P, "unreadable ELF: %s", elf_errmsg(-1));
    c->relocatable = eh.e_type == ET_REL;
    c->abi_version = eh.e_ident[EI_ABIVERSION];
    if (read_sections(P) != 0 || read_symbols(P) != 0 || read_kernel_sections(P) != 0 || usage(P) != 0)
        return -1;
    c->suffix = arch_suffix(P);
    return publish(P);
}

/* Parses a cubin.  On success `c` owns all it points at (free it with
 * gt_cubin_free) and nothing of `data`; on failure returns -1 with a
 * message in err. */
int gt_cubin_parse(const unsigned char *data, size_t size, struct gt_cubin *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    struct parser P = {.c = c, .err = err, .errlen = errlen};
    c->arena = gt_arena_new();
    int r = c->arena ? parse(&P, data, size) : fail(&P, "out of memory");
    if (P.elf)
        elf_end(P.elf);
    free(P.secs);
    free(P.sym_kernel);
    free(P.sym_var);
    free(P.sym_extern);
    free(P.sec_kernel);
    free(P.kernels.v);
    free(P.vars.v);
    free(P.params.v);
    free(P.externs.v);
    free(P.uses);
    free(P.calls);
    free(P.ext);
    if (r != 0)
        gt_cubin_free(c);
    return r;
}

void gt_cubin_free(struct gt_cubin *c)
{
    gt_arena_free(c->arena);
    memset(c, 0, sizeof *c);
}

const struct gt_cubin_kernel *gt_cubin_find(const struct gt_cubin *c, const char *name)
{
    for (size_t i = 0; i < c->nkernels; i++)
        if (strcmp(c->kernels[i].name, name) == 0)
            return &c->kernels[i];
    return NULL;
}
