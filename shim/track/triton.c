/* triton.c: the PTX Triton keeps beside each cubin it loads.
 *
 * Triton compiles a kernel to PTX and then to a cubin, writes both into
 * one entry of its cache directory (TRITON_CACHE_DIR, else
 * ~/.triton/cache: ENTRY/NAME.ptx beside ENTRY/NAME.cubin), and loads the
 * cubin bytes with cuModuleLoadData.  The bytes alone are SASS only; the
 * PTX beside the identical cubin file lets tune mode rebuild the kernel
 * with other JIT options.  The entries are looked into once each and their
 * cubins indexed by size; a load not found looks only into entries new
 * since (Triton writes the entry just before it loads the kernel).  A
 * cubin loaded from a file (PyTorch's static launcher loads TorchInductor's
 * kernels with cuModuleLoad from its own copy of Triton's cache, under
 * /tmp/torchinductor_USER/triton) has its PTX looked for beside that file
 * first, wherever it is. */
#include "triton.h"
#include "alloc.h"
#include "arena.h"
#include "state.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define T (gt.track.triton) /* this module's part of the state */
#define MAX_FILE ((size_t)256 << 20)

struct gt_triton_cubin {
    size_t size;
    char *path; /* ENTRY/NAME.cubin */
};

static const char *cache_dir(char *buf, size_t cap)
{
    const char *dir = getenv("TRITON_CACHE_DIR"), *home = getenv("HOME");
    if (dir && *dir)
        return dir;
    if (!home || !*home || snprintf(buf, cap, "%s/.triton/cache", home) >= (int)cap)
        return NULL;
    return buf;
}

/* A whole regular file of at most MAX_FILE bytes, NUL-terminated, or NULL. */
static char *read_all(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    struct stat st;
    char *buf = NULL;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= MAX_FILE &&
        (buf = gt_malloc((size_t)st.st_size + 1)) != NULL) {
        ssize_t got = read(fd, buf, (size_t)st.st_size);
        if (got != st.st_size) {
            free(buf);
            buf = NULL;
        } else {
            buf[got] = '\0';
            *len = (size_t)got;
        }
    }
    if (fd >= 0)
        close(fd);
    return buf;
}

static int seen(const char *name)
{
    for (size_t i = 0; i < T.ndirs; i++)
        if (strcmp(T.dirs[i], name) == 0)
            return 1;
    return 0;
}

/* Indexes the cubins of one cache entry. */
static void index_entry(const char *root, const char *name)
{
    char dir[PATH_MAX];
    char *copy = gt_strdup(name);
    if (!copy || gt_grow((void **)&T.dirs, &T.capdirs, T.ndirs + 1, sizeof *T.dirs) != 0) {
        free(copy);
        return;
    }
    T.dirs[T.ndirs++] = copy;
    if (snprintf(dir, sizeof dir, "%s/%s", root, name) >= (int)sizeof dir)
        return;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        char path[PATH_MAX];
        struct stat st;
        if (n < 7 || strcmp(e->d_name + n - 6, ".cubin") != 0 ||
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path || lstat(path, &st) != 0 ||
            !S_ISREG(st.st_mode) ||
            gt_grow((void **)&T.cubins, &T.capcubins, T.ncubins + 1, sizeof *T.cubins) != 0)
            continue;
        char *p = gt_strdup(path);
        if (p)
            T.cubins[T.ncubins++] = (struct gt_triton_cubin){(size_t)st.st_size, p};
    }
    if (d)
        closedir(d);
}

/* Looks into the cache's entries not seen yet; 1 if there was any. */
static int index_new(const char *root)
{
    DIR *d = opendir(root);
    int any = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.' && !seen(e->d_name)) {
            index_entry(root, e->d_name);
            any = 1;
        }
    if (d)
        closedir(d);
    return any;
}

/* The PTX target of a text ("sm_90a" → 90), 0 if it names none. */
static int target_of(const char *ptx)
{
    const char *t = strstr(ptx, "\n.target sm_");
    return t ? atoi(t + 12) : 0;
}

/* Takes the PTX beside the cubin file `cubin` (NAME.cubin: NAME.ptx) as
 * img's; 1 when there is one naming its target. */
static int adopt_ptx(struct gt_image *img, const char *cubin)
{
    size_t plen = 0, stem = strlen(cubin) - 6;
    char *path = gt_malloc(stem + 5);
    if (!path)
        return 0;
    snprintf(path, stem + 5, "%.*s.ptx", (int)stem, cubin);
    char *ptx = read_all(path, &plen);
    int arch = ptx ? target_of(ptx) : 0;
    if (!arch) {
        free(ptx);
        free(path);
        return 0;
    }
    img->sibling_ptx = ptx;
    img->sibling_path = path;
    img->ptx_arch = arch;
    return 1;
}

/* The cubin at `at` holds img's bytes: takes the PTX beside it. */
static int take(struct gt_image *img, const struct gt_triton_cubin *at)
{
    size_t len = 0;
    char *bytes = read_all(at->path, &len);
    int same = bytes && len == img->size && memcmp(bytes, img->bytes, len) == 0;
    free(bytes);
    return same && adopt_ptx(img, at->path);
}

static int lookup(struct gt_image *img)
{
    for (size_t i = 0; i < T.ncubins; i++)
        if (T.cubins[i].size == img->size && take(img, &T.cubins[i]))
            return 1;
    return 0;
}

/* The file img was loaded from, if it is a cubin: its PTX beside it.  Its
 * bytes are the file's, read at the load (registry.c), so it is not read
 * again to compare. */
static int beside(struct gt_image *img, const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 6 && strcmp(path + n - 6, ".cubin") == 0 && adopt_ptx(img, path);
}

void gt_triton_find(struct gt_image *img, const char *path)
{
    char buf[PATH_MAX];
    if (img->format != GT_FMT_CUBIN || img->ptx_arch || !img->bytes || !img->size || beside(img, path))
        return;
    const char *root = cache_dir(buf, sizeof buf);
    if (!root)
        return;
    pthread_mutex_lock(&T.lock);
    if (!lookup(img) && index_new(root))
        lookup(img);
    pthread_mutex_unlock(&T.lock);
}
