/* wrap.c: `gputune run|tune|retune|online|off COMMAND...` and `gputune cache PROGRAM`.
 *
 * The wrappers run a command with libgputune preloaded in a given mode: the
 * library is the one beside this gputune binary, put first in LD_PRELOAD
 * (after what is already there, so a sanitizer runtime keeps its place).
 * `cache` shows what tune mode kept for a program: the file's path and one
 * line per entry. */
#include "wrap.h"
#include "cachefile.h"
#include "env.h"
#include "store.h"

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

/* The file a command name runs, as the shell finds it: a name without a
 * slash is searched in PATH.  The result is resolved as /proc/self/exe
 * would show it, so that it keys the same cache file as the program's own
 * run.  Returns 0, or -1 with errno set. */
static int find_program(const char *name, char out[PATH_MAX])
{
    const char *dirs = getenv("PATH");
    if (strchr(name, '/') || !dirs)
        return realpath(name, out) ? 0 : -1;
    for (const char *d = dirs;; d++) {
        size_t n = strcspn(d, ":");
        char cand[PATH_MAX];
        int w = snprintf(cand, sizeof cand, "%.*s%s%s", (int)n, n ? d : ".", "/", name);
        if (w > 0 && (size_t)w < sizeof cand && access(cand, X_OK) == 0 && realpath(cand, out))
            return 0;
        d += n;
        if (!*d)
            break;
    }
    errno = ENOENT;
    return -1;
}

int gt_cmd_cache(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gputune cache PROGRAM [ARGS...]\n  lists what tune mode kept for PROGRAM (in "
                        "GPUTUNE_CACHE_DIR, or GPUTUNE_CACHE_FILE);\n  for an interpreter, name the script too: "
                        "gputune cache python3 train.py\n");
        return 2;
    }
    char exe[PATH_MAX], binary[2 * PATH_MAX], root[PATH_MAX], path[PATH_MAX + 100], err[1024];
    if (find_program(argv[1], exe) != 0) {
        fprintf(stderr, "gputune cache: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    struct gt_env env;
    gt_env_parse(&env, environ);
    if (gt_cache_program(exe, argv + 1, argc - 1, binary, sizeof binary) != 0) {
        fprintf(stderr, "gputune cache: the command line is too long\n");
        return 2;
    }
    if (env.cache_file) {
        snprintf(path, sizeof path, "%s", env.cache_file);
    } else if (gt_store_default_root(env.cache_dir, root, sizeof root) != 0 ||
               gt_cache_file(root, binary, path, sizeof path) != 0) {
        fprintf(stderr, "gputune cache: no cache directory (set GPUTUNE_CACHE_DIR or HOME)\n");
        return 2;
    }
    struct gt_cachefile c;
    enum gt_cache_status st = gt_cache_load(&c, path, err, sizeof err);
    if (st != GT_CACHE_OK)
        fprintf(stderr, "gputune cache: %s\n", err);
    if (st == GT_CACHE_REFUSED || st == GT_CACHE_FAILED)
        return 1;
    printf("%s: %zu entries\n", path, c.n);
    if (c.n)
        printf("%10s %10s %8s %-14s %6s  %-8s %-12s %s\n", "baseline", "best", "speedup", "in the app", "trials",
               "arch", "strategy", "kernel / signature / configuration");
    for (size_t i = 0; i < c.n; i++) {
        const struct gt_centry *e = &c.v[i];
        char app[32] = "-";
        if (e->guard != GT_CENTRY_UNCHECKED)
            snprintf(app, sizeof app, "%s %.2fx", e->guard == GT_CENTRY_KEPT ? "kept" : "dropped", e->guard_speedup);
        printf("%8.2fus %8.2fus %7.2fx %-14s %6ld  sm_%-5d %-12s %s / %s / %s\n", e->baseline_us, e->time_us,
               e->time_us > 0 ? e->baseline_us / e->time_us : 1.0, app, e->trials, e->arch, e->strategy, e->kernel,
               e->signature, e->config);
    }
    gt_cache_clear(&c);
    return 0;
}
