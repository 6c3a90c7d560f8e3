/* readfd.c: a file's bytes read whole.
 *
 * Callers find the size with fstat and decide what they accept (a regular
 * file, a bound on its size); this reads that many bytes, retrying reads a
 * signal interrupted, into one new buffer with a NUL after them, so that a
 * text file can be parsed in place. */
#include "readfd.h"
#include "alloc.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

/* At most `size` bytes of fd, fewer where the file ended sooner (*got
 * says how many), and a NUL; NULL with errno when reading fails or memory
 * runs out. */
void *gt_read_fd(int fd, size_t size, size_t *got)
{
    char *buf = gt_malloc(size + 1);
    size_t have = 0;
    while (buf && have < size) {
        ssize_t r = read(fd, buf + have, size - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            errno = e;
            return NULL;
        }
        if (r == 0)
            break;
        have += (size_t)r;
    }
    if (buf)
        buf[have] = '\0';
    *got = have;
    return buf;
}
