/* cudalibs.c: the CUDA libraries the shim opens, of CUDA 12 or 13.
 *
 * NVRTC and nvJitLink (for builds) and CUPTI (for timing) ship with the
 * toolkit, under one soname per major version (libnvrtc.so.12,
 * libnvrtc.so.13), and a process may find either.  The one used is
 *
 *   1. one the process already has, the first loaded if it has both: the
 *      application's own (its NVRTC makes the PTX the application gets);
 *   2. else the newest that LD_LIBRARY_PATH offers: where an environment
 *      module (`module load cuda/12.4`) puts the toolkit the user chose,
 *      even when another is in the loader's cache;
 *   3. else the newest the loader finds by soname (runpath, ld.so.cache),
 *      then in $CUDA_HOME, then in /usr/local/cuda (lib64, and
 *      extras/CUPTI/lib64 where CUPTI lives in some installs); in each
 *      directory an unversioned libX.so comes last;
 *
 * always within the major versions the caller takes: none newer than the
 * driver's (what a later toolkit builds does not load on an older driver),
 * and for nvJitLink none older than NVRTC's (it cannot read later PTX).
 * A file's version is read from its soname on disk before it is loaded:
 * a library refused is never run (its constructors would, and unloading
 * it would strand what they allocated).
 *
 * nvJitLink's entry points carry the version of the header that declared
 * them (__nvJitLinkCreate_13_0; a 12.x library has ..._12_<minor>, and from
 * 12.3 unversioned names as well): the newest of the library's own major
 * version is read from its symbol table (elfsym.c), not guessed.
 *
 * The driver's own version ("580.159.04"), which cuDriverGetVersion does
 * not give (13000 for every CUDA 13.0 driver), is read without NVML, which
 * not every node installs: from the file name of the libcuda the process
 * loaded (libcuda.so.1 links to libcuda.so.580.159.04: the user-space
 * driver, which a forward-compatibility package may make newer than the
 * kernel module), else from the kernel module's /proc/driver/nvidia/version. */
#include "cudalibs.h"
#include "elfsym.h"
#include "errmsg.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const int majors[] = {13, 12}; /* newest first */

/* The major versions a caller takes: min to max (0: any) of 12 and 13. */
struct range {
    int min, max;
};

static int allowed(int major, struct range r)
{
    return (major == 12 || major == 13) && major >= r.min && (r.max <= 0 || major <= r.max);
}

/* 12 for "libnvrtc.so.12" (or a file name "libnvrtc.so.12.4.127"); 0 when
 * `name` is not stem.so.N. */
static int major_of(const char *stem, const char *name)
{
    size_t n = strlen(stem);
    if (!name || strncmp(name, stem, n) != 0 || strncmp(name + n, ".so.", 4) != 0)
        return 0;
    char *end = NULL;
    long m = strtol(name + n + 4, &end, 10);
    return end != name + n + 4 && (!*end || *end == '.') && m > 0 && m < 1000 ? (int)m : 0;
}

/* The soname in the dynamic section of the ELF file e; NULL if none. */
static const char *soname_in(Elf *e)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    GElf_Dyn dyn;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        Elf_Data *d = gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNAMIC ? elf_getdata(scn, NULL) : NULL;
        for (int i = 0; d && gelf_getdyn(d, i, &dyn); i++)
            if (dyn.d_tag == DT_SONAME)
                return elf_strptr(e, sh.sh_link, (size_t)dyn.d_un.d_val);
    }
    return NULL;
}

/* The major version of the library file at `path`, without loading it: as
 * its soname says, else the name of the file it resolves to; 0 if neither. */
static int file_major(const char *stem, const char *path)
{
    char real[PATH_MAX];
    int fd = open(path, O_RDONLY | O_CLOEXEC), major = 0;
    Elf *e = fd >= 0 && elf_version(EV_CURRENT) != EV_NONE ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
    if (e)
        major = major_of(stem, soname_in(e));
    elf_end(e);
    if (fd >= 0)
        close(fd);
    const char *base = !major && realpath(path, real) ? strrchr(real, '/') : NULL;
    return base ? major_of(stem, base + 1) : major;
}

/* Whether a library of `major` is taken; if not, err says why. */
static int accepted(const char *path, int major, struct range r, char *err, size_t errlen)
{
    if (allowed(major, r))
        return 1;
    if (!major)
        gt_errf(err, errlen, "%s refused: its soname does not say its CUDA version", path);
    else
        gt_errf(err, errlen, "%s refused: CUDA %d, %s", path, major,
                major < 12 || major > 13 ? "only CUDA 12 and 13 are supported"
                : major < r.min         ? "older than the library it works with"
                                        : "newer than the driver");
    return 0;
}

/* Fills lib from an open handle when its version is taken; else closes it
 * and says why in err. */
static int take(void *h, const char *stem, const char *name, struct range r, int loaded, struct gt_cudalib *lib,
                char *err, size_t errlen)
{
    struct link_map *lm = NULL;
    int major = major_of(stem, gt_elfsym_soname(h));
    const char *path = dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0] ? lm->l_name : name;
    if (!accepted(path, major, r, err, errlen)) {
        dlclose(h);
        return 0;
    }
    *lib = (struct gt_cudalib){.handle = h, .major = major, .loaded = loaded};
    snprintf(lib->path, sizeof lib->path, "%s", path);
    return 1;
}

/* How many objects were loaded before the one of h; -1 if unknown. */
static long position(void *h)
{
    struct link_map *lm = NULL;
    long n = 0;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
        return -1;
    for (; lm->l_prev; lm = lm->l_prev)
        n++;
    return n;
}

/* The taken version the process has, the first loaded. */
static int take_loaded(const char *stem, struct range r, struct gt_cudalib *lib, char *err, size_t errlen)
{
    void *first = NULL;
    long first_at = 0;
    char name[64], first_name[64] = "";
    for (size_t i = 0; i < sizeof majors / sizeof *majors; i++) {
        snprintf(name, sizeof name, "%s.so.%d", stem, majors[i]);
        void *h = allowed(majors[i], r) ? dlopen(name, RTLD_NOW | RTLD_NOLOAD) : NULL;
        long at = h ? position(h) : -1;
        if (h && (!first || (at >= 0 && at < first_at))) {
            if (first)
                dlclose(first);
            first = h, first_at = at;
            snprintf(first_name, sizeof first_name, "%s", name);
        } else if (h) {
            dlclose(h);
        }
    }
    return first && take(first, stem, first_name, r, 1, lib, err, errlen);
}

/* dlopen of `file`: a path, whose version is checked first, or a
 * versioned name for the loader to search; a file that is there but is
 * refused or does not load says why in err. */
static int try_file(const char *stem, const char *file, struct range r, struct gt_cudalib *lib, char *err,
                    size_t errlen)
{
    int is_path = strchr(file, '/') != NULL;
    if (is_path && (access(file, F_OK) != 0 || !accepted(file, file_major(stem, file), r, err, errlen)))
        return 0;
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        if (is_path)
            gt_errf(err, errlen, "%s", why ? why : file);
        return 0;
    }
    return take(h, stem, file, r, 0, lib, err, errlen);
}

/* The names to try, newest first: stem.so.13, stem.so.12, stem.so. */
static int names(const char *stem, struct range r, char out[3][64])
{
    int n = 0;
    for (size_t i = 0; i < sizeof majors / sizeof *majors; i++)
        if (allowed(majors[i], r))
            snprintf(out[n++], sizeof out[0], "%s.so.%d", stem, majors[i]);
    snprintf(out[n++], sizeof out[0], "%s.so", stem);
    return n;
}

/* Each name in each directory (+ sub) of the colon-separated list `dirs`,
 * names outer: the newest anywhere in the list first. */
static int try_dirs(const char *stem, const char *dirs, const char *sub, struct range r, struct gt_cudalib *lib,
                    char *err, size_t errlen)
{
    char list[3][64], path[PATH_MAX];
    int n = names(stem, r, list);
    for (int i = 0; dirs && i < n; i++) {
        for (const char *d = dirs; *d;) {
            size_t len = strcspn(d, ":");
            if (len && snprintf(path, sizeof path, "%.*s%s/%s", (int)len, d, sub, list[i]) < (int)sizeof path &&
                try_file(stem, path, r, lib, err, errlen))
                return 1;
            d += len + (d[len] == ':');
        }
    }
    return 0;
}

/* Opens the library `stem` ("libnvrtc") of CUDA 12 or 13, of a major
 * version from min_major to max_major (0: any), found as the top comment
 * says.  0, or -1 with err: what was found and refused, or where nothing
 * was. */
int gt_cudalib_open(const char *stem, int min_major, int max_major, struct gt_cudalib *lib, char *err, size_t errlen)
{
    struct range r = {min_major, max_major};
    char list[3][64];
    *lib = (struct gt_cudalib){0};
    if (!allowed(12, r) && !allowed(13, r))
        return gt_errf(err, errlen, "no %s can serve: the driver runs CUDA %d, CUDA 12 or 13 is needed", stem,
                       max_major);
    int n = names(stem, r, list);
    gt_errf(err, errlen, "none of %s, %s%s%s found on LD_LIBRARY_PATH, the loader's path, $CUDA_HOME or "
            "/usr/local/cuda", list[0], list[1], n > 2 ? ", " : "", n > 2 ? list[2] : "");
    if (take_loaded(stem, r, lib, err, errlen) || try_dirs(stem, getenv("LD_LIBRARY_PATH"), "", r, lib, err, errlen))
        return 0;
    for (int i = 0; i < n - 1; i++) /* not libX.so: where the loader would find it is not known before */
        if (try_file(stem, list[i], r, lib, err, errlen))
            return 0;
    const char *homes[] = {getenv("CUDA_HOME"), "/usr/local/cuda"};
    for (size_t i = 0; i < 2; i++)
        if (homes[i] && *homes[i] && (try_dirs(stem, homes[i], "/lib64", r, lib, err, errlen) ||
                                      try_dirs(stem, homes[i], "/extras/CUPTI/lib64", r, lib, err, errlen)))
            return 0;
    return -1;
}

void gt_cudalib_close(struct gt_cudalib *lib)
{
    if (lib->handle)
        dlclose(lib->handle);
    *lib = (struct gt_cudalib){0};
}

/* The decimal number at s, its end in *end; -1 when there is none. */
static long number(const char *s, const char **end)
{
    long v = 0;
    const char *p = s;
    while (*p >= '0' && *p <= '9' && v < 100000)
        v = v * 10 + (*p++ - '0');
    *end = p;
    return p == s ? -1 : v;
}

/* The newest minor version among `entry`'s names entry_MAJOR_MINOR of one
 * major version. */
struct newest {
    const char *entry;
    size_t len;
    int major, minor;
};

static int consider(const char *name, void *arg)
{
    struct newest *w = arg;
    const char *p;
    if (strncmp(name, w->entry, w->len) != 0 || name[w->len] != '_')
        return 0;
    long major = number(name + w->len + 1, &p);
    long minor = *p == '_' ? number(p + 1, &p) : -1;
    if (major == w->major && minor > w->minor && !*p)
        w->minor = (int)minor;
    return 0;
}

/* The suffix of the newest versioned name of `entry` ("__nvJitLinkCreate")
 * that the library exports for its own major version ("_12_4"), "" when it
 * has none.  0, or -1 when its symbol table cannot be read. */
int gt_cudalib_suffix(const struct gt_cudalib *lib, const char *entry, char *out, size_t cap)
{
    struct newest w = {entry, strlen(entry), lib->major, -1};
    out[0] = '\0';
    if (gt_elfsym_each(lib->handle, consider, &w) < 0)
        return -1;
    if (w.minor >= 0)
        snprintf(out, cap, "_%d_%d", lib->major, w.minor);
    return 0;
}

/* The length of the driver version at s ("580.159.04": numbers and dots,
 * at least two numbers, the first of three digits or more, ending the
 * word); 0 if there is none (libcuda.so.1 and WSL's libcuda.so.1.1 name no
 * driver). */
static size_t version_at(const char *s)
{
    const char *p = s;
    long first = number(p, &p);
    int parts = 1;
    while (*p == '.' && p[1] >= '0' && p[1] <= '9') {
        number(p + 1, &p);
        parts++;
    }
    int ends = *p == '\0' || *p == ' ' || *p == '\t' || *p == '\n';
    return first >= 100 && parts >= 2 && ends && (size_t)(p - s) < GT_DRIVER_VERSION_MAX ? (size_t)(p - s) : 0;
}

/* The first word of the first line of `file` that is a driver version;
 * its length, and where it starts in line. */
static size_t version_in(const char *file, char *line, size_t cap, const char **at)
{
    FILE *f = file ? fopen(file, "r") : NULL;
    int got = f && fgets(line, (int)cap, f) != NULL;
    if (f)
        fclose(f);
    for (const char *p = line; got && *p; p++) {
        size_t n = p == line || p[-1] == ' ' || p[-1] == '\t' ? version_at(p) : 0;
        if (n) {
            *at = p;
            return n;
        }
    }
    return 0;
}

/* The driver's version: from the name of the file `libcuda` resolves to
 * (libcuda.so.580.159.04), else from the first line of `proc_version`
 * ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  ...").
 * 0, or -1 and "" in out when neither says. */
int gt_cudalib_driver_version(const char *libcuda, const char *proc_version, char *out, size_t cap)
{
    char real[PATH_MAX], line[512];
    const char *base = libcuda && realpath(libcuda, real) ? strrchr(real, '/') : NULL;
    const char *at = NULL;
    size_t n = 0;
    if (base && strncmp(base + 1, "libcuda.so.", 11) == 0 && (n = version_at(base + 12)) != 0)
        at = base + 12;
    else
        n = version_in(proc_version, line, sizeof line, &at);
    if (!n || n >= cap) {
        if (cap)
            out[0] = '\0';
        return -1;
    }
    memcpy(out, at, n);
    out[n] = '\0';
    return 0;
}
