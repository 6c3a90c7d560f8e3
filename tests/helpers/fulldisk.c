/* fulldisk.c: preloaded, makes the directory FULLDISK_DIR (and everything
 * under it) look like a full disk to whoever writes new files there as the
 * shim does: through mkstemp, then rename.  The temporary file is made, so
 * that unlinking it works, but the descriptor returned writes to /dev/full:
 * every write fails with ENOSPC, at write() or at the stream's flush.
 * Files written in place, and every other directory, are left alone.  For
 * tests/fulldisk.t. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int under_full_dir(const char *path)
{
    const char *dir = getenv("FULLDISK_DIR");
    size_t n = dir ? strlen(dir) : 0;
    return n && strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

int mkstemp(char *tmpl)
{
    static int (*real)(char *);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "mkstemp");
    int fd = real(tmpl);
    if (fd < 0 || !under_full_dir(tmpl))
        return fd;
    int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
    if (full < 0)
        return fd;
    dup2(full, fd); /* the same number, now writing to /dev/full */
    close(full);
    return fd;
}
