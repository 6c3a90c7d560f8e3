/* store.c: compiled code on disk, named by what it was compiled from.
 *
 * A variant's cubin is stored under a 128-bit key of everything that went
 * into it (compiler and version, options, architecture, source or PTX), so
 * building the same variant again, in this run or the next, is a file read.
 * Files are written to a temporary name and renamed, so a reader never sees
 * half a cubin and concurrent writers of one key agree; the temporaries of
 * killed writers are swept when the store opens.  Directories and files
 * must belong to the user and be writable by nobody else (cachedir.c): the
 * shim loads what it finds there into the application. */
#include "store.h"
#include "alloc.h"
#include "cachedir.h"
#include "hash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_CUBIN ((size_t)1 << 30)

struct gt_key gt_key_of(const void *data, size_t size)
{
    return (struct gt_key){gt_hash64_seeded(data, size, 0x6a09e667f3bcc908ULL),
                           gt_hash64_seeded(data, size, 0xbb67ae8584caa73bULL)};
}

void gt_key_text(struct gt_key k, char out[33])
{
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)k.a, (unsigned long long)k.b);
}

int gt_key_parse(const char *text, struct gt_key *k)
{
    char a[17], b[17], *end;
    if (strlen(text) != 32)
        return -1;
    memcpy(a, text, 16);
    memcpy(b, text + 16, 16);
    a[16] = b[16] = '\0';
    k->a = strtoull(a, &end, 16);
    if (*end)
        return -1;
    k->b = strtoull(b, &end, 16);
    return *end ? -1 : 0;
}

/* dir (GPUTUNE_CACHE_DIR), else $XDG_CACHE_HOME/gputune, else ~/.cache/gputune. */
int gt_store_default_root(const char *dir, char *out, size_t cap)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (dir && *dir)
        n = snprintf(out, cap, "%s", dir);
    else if (xdg && *xdg)
        n = snprintf(out, cap, "%s/gputune", xdg);
    else if (home && *home)
        n = snprintf(out, cap, "%s/.cache/gputune", home);
    else
        return -1;
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* Refuses a directory that another user owns or could write into. */
int gt_dir_check_private(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "cannot use cache directory %s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cache directory %s is not a directory", path);
        return -1;
    }
    if (st.st_uid != geteuid()) {
        snprintf(err, errlen, "cache directory %s belongs to another user; not using it", path);
        return -1;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(err, errlen, "cache directory %s is writable by other users; not using it", path);
        return -1;
    }
    return 0;
}

static int make_dirs(char *path, char *err, size_t errlen)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int r = mkdir(path, 0700);
        *p = '/';
        if (r != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create cache directory %s: %s", path, strerror(errno));
            return -1;
        }
    }
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create cache directory %s: %s", path, strerror(errno));
        return -1;
    }
    return gt_dir_check_private(path, err, errlen);
}

int gt_store_open(struct gt_store *s, const char *root, char *err, size_t errlen)
{
    int n = snprintf(s->dir, sizeof s->dir, "%s/cubins", root);
    if (n < 0 || (size_t)n >= sizeof s->dir) {
        snprintf(err, errlen, "cache directory path too long: %s", root);
        return -1;
    }
    char rootcopy[PATH_MAX];
    snprintf(rootcopy, sizeof rootcopy, "%s", root);
    if (make_dirs(rootcopy, err, errlen) != 0 || make_dirs(s->dir, err, errlen) != 0)
        return -1;
    gt_cachedir_sweep(root, GT_CACHEDIR_STALE_S);
    gt_cachedir_sweep(s->dir, GT_CACHEDIR_STALE_S);
    return 0;
}

static void path_of(const struct gt_store *s, struct gt_key k, const char *ext, char *out, size_t cap)
{
    char name[33];
    gt_key_text(k, name);
    snprintf(out, cap, "%s/%s.%s", s->dir, name, ext);
}

/* 0 and a malloc'd, NUL-terminated copy when the key is stored with this
 * extension; -1 otherwise.  A "cubin" that is not an ELF is treated as
 * absent and will be overwritten. */
int gt_store_get(const struct gt_store *s, struct gt_key k, const char *ext, unsigned char **data, size_t *size)
{
    char path[PATH_MAX + 64];
    path_of(s, k, ext, path, sizeof path);
    char why[PATH_MAX + 128];
    int fd = gt_cachedir_open(path, O_RDONLY, why, sizeof why);
    if (fd < 0)
        return -1;
    struct stat st;
    unsigned char *buf = NULL;
    int elf = strcmp(ext, "cubin") == 0;
    if (fstat(fd, &st) == 0 && st.st_size >= 4 && (size_t)st.st_size <= MAX_CUBIN &&
        (buf = gt_malloc((size_t)st.st_size + 1)) != NULL) {
        if (read(fd, buf, (size_t)st.st_size) != st.st_size || (elf && memcmp(buf, "\177ELF", 4) != 0)) {
            free(buf);
            buf = NULL;
        } else {
            buf[st.st_size] = '\0';
        }
    }
    close(fd);
    if (!buf)
        return -1;
    *data = buf;
    *size = (size_t)st.st_size;
    return 0;
}

int gt_store_put(const struct gt_store *s, struct gt_key k, const char *ext, const void *data, size_t size,
                 char *err, size_t errlen)
{
    char path[PATH_MAX + 64], tmp[PATH_MAX + 80];
    path_of(s, k, ext, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write to %s: %s", s->dir, strerror(errno));
        return -1;
    }
    ssize_t w = write(fd, data, size);
    int failed = w == (ssize_t)size ? 0 : (w < 0 ? errno : EIO);
    if (close(fd) != 0 && !failed)
        failed = errno;
    if (!failed && rename(tmp, path) != 0)
        failed = errno;
    if (failed) {
        snprintf(err, errlen, "cannot store %s: %s", path, strerror(failed));
        unlink(tmp);
        return -1;
    }
    return 0;
}
