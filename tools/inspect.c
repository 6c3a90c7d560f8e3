/* inspect.c: `gputune inspect FILE...`, which kernels a binary holds and how
 * each can be tuned.
 *
 * A file is mapped, its device code found (devcode.c), every entry decoded
 * on a pool of threads (inflating cuBLAS-sized libraries is most of the
 * work), and the builds of each kernel gathered into one row per kernel and
 * container: SASS per architecture, PTX per target.  inspect_out.c prints
 * the rows.  Exit status: 0 all read, 1 some entries damaged, 2 a file
 * unreadable or without device code (or a usage error).  A file cut short
 * while mapped (another process truncating it) raises SIGBUS at the first
 * page past its new end, on any thread: that ends the run with a message
 * and status 2. */
#include "inspect.h"
#include "demangle.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "usage: gputune inspect [--json] [--wide] [--arch sm_NN] [-j N] FILE...\n"
    "  Lists the kernels of executables, shared libraries, objects, static libraries,\n"
    "  fatbins, cubins and PTX files, with their architectures, resources and the\n"
    "  tuning knobs that apply to them.\n"
    "  --json     machine-readable output\n"
    "  --wide     do not shorten kernel names\n"
    "  --arch A   say which tuning knobs apply on a device of architecture A (sm_90)\n"
    "  -j N       decode with N threads (default: one per core)\n";

/* ---- loading ---- */

static const char *volatile mapped_path; /* the file being read, for the SIGBUS message */

static void write_str(const char *s)
{
    if (write(STDERR_FILENO, s, strlen(s)) < 0)
        return;
}

/* Only async-signal-safe calls: the fault can come on any thread. */
static void truncated(int sig)
{
    (void)sig;
    write_str("gputune inspect: ");
    write_str(mapped_path ? mapped_path : "a file");
    write_str(": the file was cut short while being read\n");
    _exit(2);
}

static int map_file(struct gt_inspect_file *f)
{
    int fd = open(f->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(f->error, sizeof f->error, "cannot open: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    int r = fstat(fd, &st);
    if (r != 0 || !S_ISREG(st.st_mode)) {
        snprintf(f->error, sizeof f->error, "%s", r ? strerror(errno) : "not a regular file");
        close(fd);
        return -1;
    }
    f->size = (size_t)st.st_size;
    if (f->size == 0) {
        snprintf(f->error, sizeof f->error, "empty file");
        close(fd);
        return -1;
    }
    void *p = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        snprintf(f->error, sizeof f->error, "cannot map: %s", strerror(errno));
        return -1;
    }
    f->map = p;
    mapped_path = f->path;
    return 0;
}

/* ---- decoding on threads ---- */

struct pool {
    struct gt_devcode *dc;
    size_t *order;
    size_t n;
    atomic_size_t next;
};

static void *decode_worker(void *arg)
{
    struct pool *p = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n)
            return NULL;
        gt_devcode_decode(p->dc, p->order[i]);
    }
}

static int larger_first(const void *a, const void *b, void *arg)
{
    const struct gt_devcode *dc = arg;
    size_t x = dc->entries[*(const size_t *)a].fe.size, y = dc->entries[*(const size_t *)b].fe.size;
    return x > y ? -1 : x < y;
}

/* Runs fn(arg) on `jobs` threads, the caller's included. */
static void run_threads(int jobs, void *(*fn)(void *), void *arg)
{
    pthread_t t[256];
    int started = 0;
    for (int i = 1; i < jobs && i < 256; i++)
        if (pthread_create(&t[started], NULL, fn, arg) == 0)
            started++;
    fn(arg);
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
}

static int decode_all(struct gt_devcode *dc, int jobs)
{
    struct pool p = {dc, malloc((dc->nentries ? dc->nentries : 1) * sizeof(size_t)), dc->nentries, 0};
    if (!p.order)
        return -1;
    for (size_t i = 0; i < p.n; i++)
        p.order[i] = i;
    /* Largest first, so that no thread is left with a big one at the end. */
    qsort_r(p.order, p.n, sizeof *p.order, larger_first, dc);
    run_threads(jobs, decode_worker, &p);
    free(p.order);
    return 0;
}

/* ---- gathering kernels ---- */

struct index {
    size_t *slots;  /* kernel index + 1, 0 empty */
    size_t cap;
};

static uint64_t key_hash(const char *name, size_t container)
{
    uint64_t h = 1469598103934665603ULL ^ container;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return h;
}

static int index_grow(struct index *ix, const struct gt_inspect_file *f)
{
    size_t cap = ix->cap ? ix->cap * 2 : 1024;
    size_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < f->nkernels; i++) {
        size_t j = key_hash(f->kernels[i].name, f->kernels[i].container) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = i + 1;
    }
    free(ix->slots);
    ix->slots = slots;
    ix->cap = cap;
    return 0;
}

static int grow(void **v, unsigned *cap, unsigned need, size_t elem)
{
    if (need <= *cap)
        return 0;
    unsigned cap2 = *cap ? *cap * 2 : 4;
    void *p = realloc(*v, cap2 * elem);
    if (!p)
        return -1;
    *v = p;
    *cap = cap2;
    return 0;
}

static struct gt_inspect_kernel *kernel_for(struct gt_inspect_file *f, struct index *ix, const char *name,
                                            size_t container)
{
    if ((f->nkernels + 1) * 2 > ix->cap && index_grow(ix, f) != 0)
        return NULL;
    size_t j = key_hash(name, container) & (ix->cap - 1);
    for (; ix->slots[j]; j = (j + 1) & (ix->cap - 1)) {
        struct gt_inspect_kernel *k = &f->kernels[ix->slots[j] - 1];
        if (k->container == container && strcmp(k->name, name) == 0)
            return k;
    }
    if (f->nkernels == f->capkernels) {
        size_t cap = f->capkernels ? f->capkernels * 2 : 256;
        struct gt_inspect_kernel *v = realloc(f->kernels, cap * sizeof *v);
        if (!v)
            return NULL;
        f->kernels = v;
        f->capkernels = cap;
    }
    struct gt_inspect_kernel *k = &f->kernels[f->nkernels++];
    memset(k, 0, sizeof *k);
    k->name = name;
    k->container = container;
    ix->slots[j] = f->nkernels;
    return k;
}

static int add_build(struct gt_inspect_kernel *k, const struct gt_inspect_build *b, int ptx)
{
    if (ptx) {
        if (grow((void **)&k->ptx, &k->capptx, k->nptx + 1, sizeof *k->ptx) != 0)
            return -1;
        k->ptx[k->nptx++] = *b;
    } else {
        if (grow((void **)&k->sass, &k->capsass, k->nsass + 1, sizeof *k->sass) != 0)
            return -1;
        k->sass[k->nsass++] = *b;
    }
    return 0;
}

static int gather_entry(struct gt_inspect_file *f, struct index *ix, size_t i)
{
    const struct gt_devcode_entry *e = &f->dc.entries[i];
    struct gt_inspect_build b = {e->fe.arch, e->fe.suffix, i, NULL, NULL, NULL, NULL};
    if (e->fe.kind == GT_FATBIN_ELF) {
        b.cubin = &e->cubin;
        if (e->cubin.suffix)
            b.suffix = e->cubin.suffix;
        for (size_t j = 0; j < e->cubin.nkernels; j++) {
            struct gt_inspect_kernel *k = kernel_for(f, ix, e->cubin.kernels[j].name, e->container);
            b.kernel = &e->cubin.kernels[j];
            if (!k || add_build(k, &b, 0) != 0)
                return -1;
        }
    } else if (e->fe.kind == GT_FATBIN_PTX) {
        b.ptx = &e->ptx;
        if (e->ptx.target) {
            b.arch = e->ptx.target;
            b.suffix = e->ptx.target_suffix;
        }
        for (size_t j = 0; j < e->ptx.nfuncs; j++) {
            if (!e->ptx.funcs[j].is_entry || e->ptx.funcs[j].is_extern)
                continue;
            struct gt_inspect_kernel *k = kernel_for(f, ix, e->ptx.funcs[j].name, e->container);
            b.func = &e->ptx.funcs[j];
            if (!k || add_build(k, &b, 1) != 0)
                return -1;
        }
    }
    return 0;
}

static int in_relfatbin(const struct gt_inspect_file *f, size_t container)
{
    return strcmp(f->dc.containers[container].section, "__nv_relfatbin") == 0;
}

static int by_name(const void *a, const void *b, void *arg)
{
    const struct gt_inspect_file *f = arg;
    return strcmp(f->kernels[*(const size_t *)a].name, f->kernels[*(const size_t *)b].name);
}

static struct gt_inspect_kernel *find_linked(struct gt_inspect_file *f, const size_t *sorted, size_t n,
                                             const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(f->kernels[sorted[mid]].name, name);
        if (c == 0)
            return &f->kernels[sorted[mid]];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* In a device-linked (-rdc) program the runtime loads the linked fatbin,
 * whose cubins come without PTX; the PTX sits in the relocatable objects'
 * fatbins (__nv_relfatbin), which the linked image lists.  Their builds join
 * the linked kernel of the same name and their rows go. */
static int merge_prelinked(struct gt_inspect_file *f)
{
    size_t *linked = malloc((f->nkernels ? f->nkernels : 1) * sizeof *linked), n = 0;
    if (!linked)
        return -1;
    for (size_t i = 0; i < f->nkernels; i++)
        if (!in_relfatbin(f, f->kernels[i].container))
            linked[n++] = i;
    qsort_r(linked, n, sizeof *linked, by_name, f);
    int r = 0;
    unsigned char *drop = calloc(f->nkernels ? f->nkernels : 1, 1);
    for (size_t i = 0; drop && r == 0 && i < f->nkernels && n < f->nkernels; i++) {
        struct gt_inspect_kernel *k = &f->kernels[i];
        struct gt_inspect_kernel *to = in_relfatbin(f, k->container) ? find_linked(f, linked, n, k->name) : NULL;
        for (unsigned j = 0; to && r == 0 && j < k->nptx; j++)
            r = add_build(to, &k->ptx[j], 1);
        for (unsigned j = 0; to && r == 0 && j < k->nsass; j++)
            r = add_build(to, &k->sass[j], 0);
        drop[i] = to != NULL;
    }
    size_t out = 0;
    for (size_t i = 0; drop && i < f->nkernels; i++) {
        if (drop[i]) {
            free(f->kernels[i].sass);
            free(f->kernels[i].ptx);
        } else {
            f->kernels[out++] = f->kernels[i];
        }
    }
    if (drop)
        f->nkernels = out;
    free(drop);
    free(linked);
    return drop ? r : -1;
}

static int gather(struct gt_inspect_file *f)
{
    struct index ix = {0};
    int r = 0;
    for (size_t i = 0; i < f->dc.nentries && r == 0; i++) {
        if (f->dc.entries[i].status < 0)
            f->failed++;
        else
            r = gather_entry(f, &ix, i);
    }
    free(ix.slots);
    return r == 0 ? merge_prelinked(f) : r;
}

/* ---- demangling on threads ---- */

struct demangle_pool {
    struct gt_inspect_file *f;
    atomic_size_t next;
};

static void *demangle_worker(void *arg)
{
    struct demangle_pool *p = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 64);
        for (size_t j = i; j < i + 64 && j < p->f->nkernels; j++)
            p->f->kernels[j].demangled = gt_demangle(p->f->kernels[j].name);
        if (i + 64 >= p->f->nkernels)
            return NULL;
    }
}

/* ---- one file ---- */

static int inspect_file(struct gt_inspect_file *f, const struct gt_inspect_options *o)
{
    if (map_file(f) != 0)
        return 2;
    if (gt_devcode_open(f->map, f->size, &f->dc, f->error, sizeof f->error) != 0)
        return 2;
    if (decode_all(&f->dc, o->jobs) != 0 || gather(f) != 0) {
        snprintf(f->error, sizeof f->error, "out of memory");
        return 2;
    }
    struct demangle_pool dp = {f, 0};
    free(gt_demangle("_Z1fv")); /* finds the demangler once, before the threads race to */
    run_threads(o->jobs, demangle_worker, &dp);
    return f->failed ? 1 : 0;
}

static void release(struct gt_inspect_file *f)
{
    for (size_t i = 0; i < f->nkernels; i++) {
        free(f->kernels[i].demangled);
        free(f->kernels[i].sass);
        free(f->kernels[i].ptx);
    }
    free(f->kernels);
    gt_devcode_free(&f->dc);
    if (f->map)
        munmap((void *)f->map, f->size);
}

/* "sm_90", "sm_90a" or "90" to 90. */
static int parse_arch(const char *s, int *arch)
{
    if (strncmp(s, "sm_", 3) == 0)
        s += 3;
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 10 || v > 1000 || (*end && !(end[0] >= 'a' && end[0] <= 'z' && !end[1])))
        return -1;
    *arch = (int)v;
    return 0;
}

static int parse_options(int argc, char **argv, struct gt_inspect_options *o, int *first)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = cores > 0 ? (int)(cores > 256 ? 256 : cores) : 1;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            o->json = 1;
        } else if (strcmp(argv[i], "--wide") == 0 || strcmp(argv[i], "-w") == 0) {
            o->wide = 1;
        } else if (strcmp(argv[i], "--arch") == 0 && i + 1 < argc) {
            if (parse_arch(argv[++i], &o->arch) != 0) {
                fprintf(stderr, "gputune inspect: --arch wants an architecture like sm_90, not '%s'\n", argv[i]);
                return -1;
            }
        } else if ((strcmp(argv[i], "-j") == 0 || strcmp(argv[i], "--jobs") == 0) && i + 1 < argc) {
            o->jobs = atoi(argv[++i]);
            if (o->jobs < 1 || o->jobs > 256) {
                fprintf(stderr, "gputune inspect: -j wants 1 to 256 threads\n");
                return -1;
            }
        } else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            exit(0);
        } else {
            fprintf(stderr, "gputune inspect: unknown option %s\n%s", argv[i], usage);
            return -1;
        }
    }
    if (i >= argc) {
        fputs(usage, stderr);
        return -1;
    }
    *first = i;
    return 0;
}

int gt_inspect_main(int argc, char **argv)
{
    struct gt_inspect_options o = {0};
    int first, status = 0;
    if (parse_options(argc, argv, &o, &first) != 0)
        return 2;
    struct sigaction bus = {.sa_handler = truncated};
    sigaction(SIGBUS, &bus, NULL);
    if (o.json)
        fputs("{\"files\": [", stdout);
    for (int i = first; i < argc; i++) {
        struct gt_inspect_file f = {.path = argv[i]};
        int s = inspect_file(&f, &o);
        if (s == 2)
            fprintf(stderr, "gputune inspect: %s: %s\n", f.path, f.error);
        else if (s == 1)
            fprintf(stderr, "gputune inspect: %s: %zu entr%s could not be decoded\n", f.path, f.failed,
                    f.failed == 1 ? "y" : "ies");
        if (o.json) {
            fputs(i > first ? ",\n" : "\n", stdout);
            gt_inspect_json(stdout, &f, &o);
        } else if (s != 2) {
            gt_inspect_table(stdout, &f, &o);
        }
        status = s > status ? s : status;
        release(&f);
    }
    if (o.json)
        printf("\n], \"status\": %d}\n", status);
    return status;
}
