/* truncmap.c: preloaded, cuts every regular file to nothing right after it
 * is mapped, as another process truncating it would: the mapping's pages
 * then raise SIGBUS.  For the tests of gputune inspect. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    static void *(*real)(void *, size_t, int, int, int, off_t);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "mmap");
    void *p = real(addr, len, prot, flags, fd, off);
    struct stat st;
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = fd >= 0 && p != MAP_FAILED && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
                    ? readlink(link, path, sizeof path - 1) : -1;
    if (n > 0) {
        path[n] = '\0';
        if (truncate(path, 0) != 0)
            perror("truncmap");
    }
    return p;
}
