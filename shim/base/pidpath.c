/* pidpath.c: the path of a file each process writes apart.
 *
 * "%p" in the path of a file the shim writes (GPUTUNE_LOG_FILE,
 * GPUTUNE_REPORT, GPUTUNE_TRIALS) becomes the process id, so that the
 * processes of one job (MPI ranks, data-loader workers) write apart.  The
 * result is cut at cap bytes, always terminated. */
#include "pidpath.h"

#include <stdio.h>
#include <unistd.h>

void gt_pidpath(const char *path, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *p = path; *p && n + 1 < cap; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            n += (size_t)snprintf(out + n, cap - n, "%ld", (long)getpid());
            p++;
        } else {
            out[n++] = *p;
        }
    }
    out[n < cap ? n : cap - 1] = '\0';
}
