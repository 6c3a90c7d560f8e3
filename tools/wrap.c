/* wrap.c: `gputune run|tune|retune|online|off COMMAND...`.
 *
 * The wrappers run a command with libgputune preloaded in a given mode: the
 * library is the one beside this gputune binary, put first in LD_PRELOAD
 * (after what is already there, so a sanitizer runtime keeps its place). */
#include "wrap.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int library_path(char *out, size_t cap)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    int w = snprintf(out, cap, "%s/libgputune.so", self);
    return w > 0 && (size_t)w < cap && access(out, R_OK) == 0 ? 0 : -1;
}

int gt_cmd_wrap(int argc, char **argv)
{
    const char *mode = argv[0];
    int first = argc > 1 && strcmp(argv[1], "--") == 0 ? 2 : 1;
    if (first >= argc) {
        fprintf(stderr, "usage: gputune %s [--] COMMAND [ARGS...]\n", mode);
        return 2;
    }
    char lib[PATH_MAX], preload[2 * PATH_MAX];
    if (library_path(lib, sizeof lib) != 0) {
        fprintf(stderr, "gputune: libgputune.so is not beside this gputune binary\n");
        return 2;
    }
    const char *old = getenv("LD_PRELOAD");
    snprintf(preload, sizeof preload, "%s%s%s", old && *old ? old : "", old && *old ? " " : "", lib);
    if (setenv("LD_PRELOAD", preload, 1) != 0 || setenv("GPUTUNE_MODE", mode, 1) != 0) {
        perror("gputune");
        return 2;
    }
    execvp(argv[first], argv + first);
    fprintf(stderr, "gputune: cannot run %s: %s\n", argv[first], strerror(errno));
    return 127;
}
