/* cachedir.c: opening files in the cache directory safely, sweeping stale temporaries.
 *
 * The shim loads what the cache directory holds into the application, and
 * that directory may be shared, planted or damaged, so every file in it is
 * opened with O_NOFOLLOW (a link planted there is not followed, even by an
 * O_CREAT) and O_NONBLOCK (a FIFO planted there cannot hang the open), then
 * checked with fstat before use: a regular file of this user that nobody
 * else can write.  Failures come in two kinds the callers treat apart: one
 * of the moment (descriptors, memory, I/O, a permission), after which the
 * file stays as it is and the work is tried later, and a refusal, after
 * which the file is neither used nor touched.
 *
 * Writers write a temporary (NAME.XXXXXX) and rename it; one killed first
 * leaves its temporary behind, tens of megabytes for a cubin.  The sweep
 * removes those of this user that are older than any write takes. */
#include "cachedir.h"
#include "errmsg.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int gt_cachedir_transient(int err)
{
    return err == EMFILE || err == ENFILE || err == ENOMEM || err == EIO || err == EACCES || err == EPERM ||
           err == EAGAIN || err == EINTR || err == ENOSPC || err == EDQUOT || err == EBUSY;
}

/* A regular file of this user that no one else can write: 0, else an
 * enum gt_cachedir_fail with err. */
static int check_file(int fd, const char *path, char *err, size_t errlen)
{
    struct stat st;
    const char *why = NULL;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        gt_errf(err, errlen, "cannot stat %s: %s", path, strerror(e));
        return gt_cachedir_transient(e) ? GT_CACHEDIR_FAILED : GT_CACHEDIR_REFUSED;
    }
    if (!S_ISREG(st.st_mode))
        why = "is not a regular file";
    else if (st.st_uid != geteuid())
        why = "belongs to another user";
    else if (st.st_mode & (S_IWGRP | S_IWOTH))
        why = "is writable by other users";
    if (why)
        gt_errf(err, errlen, "%s %s; not using it", path, why);
    return why ? GT_CACHEDIR_REFUSED : 0;
}

/* `path` opened with `flags` (O_RDONLY, or O_RDWR | O_CREAT for a file
 * made 0600), checked: a descriptor, or an enum gt_cachedir_fail with err. */
int gt_cachedir_open(const char *path, int flags, char *err, size_t errlen)
{
    int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT && !(flags & O_CREAT))
            return GT_CACHEDIR_MISSING;
        gt_errf(err, errlen, e == ELOOP ? "%s is a symbolic link; not using it" : "cannot open %s: %s", path,
                strerror(e));
        return gt_cachedir_transient(e) ? GT_CACHEDIR_FAILED : GT_CACHEDIR_REFUSED;
    }
    int r = check_file(fd, path, err, errlen);
    if (r == 0)
        return fd;
    close(fd);
    return r;
}

/* NAME.XXXXXX where NAME ends as a file the shim writes (mkstemp's six
 * characters after the last dot). */
static int is_temporary(const char *name)
{
    static const char *const ends[] = {".ini", ".cubin", ".ptx", ".plain", ".name"};
    const char *dot = strrchr(name, '.');
    if (!dot || strlen(dot + 1) != 6 || strspn(dot + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                      "0123456789") != 6)
        return 0;
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
        size_t n = strlen(ends[i]);
        if ((size_t)(dot - name) > n && strncmp(dot - n, ends[i], n) == 0)
            return 1;
    }
    return 0;
}

/* Removes the temporaries in `dir` that this user's writers left over
 * `max_age_s` ago; returns how many. */
int gt_cachedir_sweep(const char *dir, long max_age_s)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    time_t now = time(NULL);
    int removed = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        struct stat st;
        if (!is_temporary(de->d_name) || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISREG(st.st_mode) && st.st_uid == geteuid() && now - st.st_mtime > max_age_s &&
            unlinkat(dirfd(d), de->d_name, 0) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}
