/* test_cudalibs: which CUDA library of version 12 or 13 is opened, with the
 * stand-ins beside this test (tests/helpers/fake_lib*.c): the newest on
 * LD_LIBRARY_PATH, none newer than the driver nor older than asked, the one
 * the process has first; nvJitLink's versioned names read from its symbol
 * table; and the driver's own version from a libcuda file name or the
 * kernel module's version text, and not from names that hold none. */
#include "cudalibs.h"
#include "tap.h"

#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fakes[PATH_MAX], err[1024];

/* The stand-ins' directories of the versions given, as LD_LIBRARY_PATH. */
static void path_of(const char *versions)
{
    char list[3 * PATH_MAX] = "";
    for (const char *v = versions; *v; v += strcspn(v, " "), v += *v == ' ') {
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s%s/%.*s", n ? ":" : "", fakes, (int)strcspn(v, " "), v);
    }
    setenv("LD_LIBRARY_PATH", list, 1);
}

/* Opens stem as the shim would; its file's directory name, "12" or "13"
 * for a stand-in, or "-" when nothing was opened. */
static const char *opened(const char *stem, int min_major, int max_major, struct gt_cudalib *lib)
{
    static char dir[PATH_MAX];
    if (gt_cudalib_open(stem, min_major, max_major, lib, err, sizeof err) != 0)
        return "-";
    snprintf(dir, sizeof dir, "%s", lib->path);
    return basename(dirname(dir));
}

static void search(void)
{
    struct gt_cudalib lib;
    path_of("12");
    is_str(opened("libnvrtc", 0, 0, &lib), "12", "only CUDA 12 on LD_LIBRARY_PATH: that one, before the system's");
    ok(lib.major == 12 && !lib.loaded && strstr(lib.path, "/12/libnvrtc.so.12"), "its version and file: %s",
       lib.path);
    gt_cudalib_close(&lib);
    path_of("13");
    is_str(opened("libcupti", 0, 0, &lib), "13", "only CUDA 13 on LD_LIBRARY_PATH: that one");
    gt_cudalib_close(&lib);
    path_of("12 13");
    is_str(opened("libnvJitLink", 0, 0, &lib), "13", "both: the newest, wherever it is on the path");
    gt_cudalib_close(&lib);
    is_str(opened("libnvJitLink", 0, 12, &lib), "12", "a CUDA 12 driver: none newer");
    gt_cudalib_close(&lib);
    path_of("12");
    ok(gt_cudalib_open("libnvrtc", 0, 11, &lib, err, sizeof err) == -1 && strstr(err, "the driver runs CUDA 11"),
       "a CUDA 11 driver: none at all: %s", err);
    ok(gt_cudalib_open("libnotthere", 0, 0, &lib, err, sizeof err) == -1 &&
           strstr(err, "none of libnotthere.so.13, libnotthere.so.12, libnotthere.so found"),
       "nothing anywhere: where it was looked for: %s", err);
    ok(gt_cudalib_open("libnotthere", 0, 12, &lib, err, sizeof err) == -1 &&
           strstr(err, "none of libnotthere.so.12, libnotthere.so found"),
       "for a CUDA 12 driver, CUDA 12 alone: %s", err);
}

static void suffixes(void)
{
    struct gt_cudalib lib;
    char sfx[16];
    path_of("12");
    ok(gt_cudalib_open("libnvJitLink", 0, 0, &lib, err, sizeof err) == 0 &&
           gt_cudalib_suffix(&lib, "__nvJitLinkCreate", sfx, sizeof sfx) == 0,
       "nvJitLink 12's symbol table read: %s", lib.path);
    is_str(sfx, "_12_2", "its newest entry points, not those of 12.0");
    ok(gt_cudalib_suffix(&lib, "__nvJitLinkNothing", sfx, sizeof sfx) == 0 && !*sfx, "an entry it lacks: no suffix");
    gt_cudalib_close(&lib);
    path_of("13");
    gt_cudalib_open("libnvJitLink", 0, 0, &lib, err, sizeof err);
    ok(gt_cudalib_suffix(&lib, "__nvJitLinkCreate", sfx, sizeof sfx) == 0, "nvJitLink 13's");
    is_str(sfx, "_13_0", "of its own major version");
    gt_cudalib_close(&lib);
}

static void loaded(void)
{
    struct gt_cudalib lib;
    char twelve[PATH_MAX + 32], thirteen[PATH_MAX + 32];
    snprintf(twelve, sizeof twelve, "%s/12/libnvrtc.so.12", fakes);
    snprintf(thirteen, sizeof thirteen, "%s/13/libnvrtc.so.13", fakes);
    void *a = dlopen(twelve, RTLD_NOW | RTLD_LOCAL), *b = dlopen(thirteen, RTLD_NOW | RTLD_LOCAL);
    ok(a && b, "the process loads NVRTC 12, then 13");
    path_of("13");
    is_str(opened("libnvrtc", 0, 0, &lib), "12", "the one it loaded first is used, not the newest");
    ok(lib.loaded, "and called its own");
    gt_cudalib_close(&lib);
    is_str(opened("libnvrtc", 13, 0, &lib), "13", "unless a later major version is asked for");
    gt_cudalib_close(&lib);
    dlclose(a);
    dlclose(b);
}

/* libX.so alone: its soname tells its version, which must be taken. */
static void unversioned(const char *dir)
{
    struct gt_cudalib lib;
    char target[PATH_MAX + 32], link[PATH_MAX + 32];
    snprintf(link, sizeof link, "%s/libnvrtc.so", dir);
    snprintf(target, sizeof target, "%s/12/libnvrtc.so.12", fakes);
    ok(symlink(target, link) == 0, "a directory with an unversioned libnvrtc.so of CUDA 12");
    setenv("LD_LIBRARY_PATH", dir, 1);
    ok(gt_cudalib_open("libnvrtc", 0, 0, &lib, err, sizeof err) == 0 && lib.major == 12,
       "is opened as CUDA 12, as its soname says: %s", lib.path);
    gt_cudalib_close(&lib);
    unlink(link);
    snprintf(target, sizeof target, "%s/13/libnvrtc.so.13", fakes);
    symlink(target, link);
    ok(gt_cudalib_open("libnvrtc", 0, 12, &lib, err, sizeof err) == -1 &&
           strstr(err, "refused: CUDA 13, newer than the driver"),
       "one of CUDA 13 is refused under a CUDA 12 driver, and that is said: %s", err);
    ok(!dlopen(target, RTLD_NOW | RTLD_NOLOAD) && !dlopen("libnvrtc.so.13", RTLD_NOW | RTLD_NOLOAD),
       "without being loaded: its version is read from the file");
    unlink(link);
}

static void driver_version(const char *dir)
{
    char file[PATH_MAX + 64], link[PATH_MAX + 64], proc[PATH_MAX + 64], v[GT_DRIVER_VERSION_MAX];
    snprintf(file, sizeof file, "%s/libcuda.so.580.159.04", dir);
    snprintf(link, sizeof link, "%s/libcuda.so.1", dir);
    snprintf(proc, sizeof proc, "%s/version", dir);
    fclose(fopen(file, "w"));
    ok(symlink("libcuda.so.580.159.04", link) == 0, "libcuda.so.1 links to libcuda.so.580.159.04");
    ok(gt_cudalib_driver_version(link, "/nonexistent", v, sizeof v) == 0, "the version from the file name");
    is_str(v, "580.159.04", "all of it");

    unlink(link);
    fclose(fopen(link, "w"));
    FILE *f = fopen(proc, "w");
    fputs("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"
          "GCC version:  gcc version 12.2.0\n", f);
    fclose(f);
    ok(gt_cudalib_driver_version(link, proc, v, sizeof v) == 0, "a file named libcuda.so.1 names none: the module's");
    is_str(v, "550.54.15", "from /proc/driver/nvidia/version's text");
    f = fopen(proc, "w");
    fputs("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build  (dvs-builder@U16)  "
          "Thu Jan 16 2025\n", f);
    fclose(f);
    ok(gt_cudalib_driver_version(NULL, proc, v, sizeof v) == 0 && !strcmp(v, "570.86.15"),
       "the open kernel module's text too: %s", v);

    snprintf(file, sizeof file, "%s/libcuda.so.1.1", dir);
    fclose(fopen(file, "w"));
    f = fopen(proc, "w");
    fputs("NVRM version: 1.2 of nothing 12345678901234567890123456789012.1\n", f);
    fclose(f);
    ok(gt_cudalib_driver_version(file, proc, v, sizeof v) == -1 && !*v,
       "WSL's libcuda.so.1.1, a version too short or too long: none");
    ok(gt_cudalib_driver_version("/nonexistent/libcuda.so.1", "/nonexistent", v, sizeof v) == -1 && !*v,
       "no file at all: none");
    f = fopen(proc, "w");
    fclose(f);
    ok(gt_cudalib_driver_version(NULL, proc, v, sizeof v) == -1, "an empty version file: none");
}

int main(int argc, char **argv)
{
    (void)argc;
    char self[PATH_MAX], here[PATH_MAX];
    snprintf(self, sizeof self, "%s", argv[0]);
    if (!realpath(dirname(self), here) || snprintf(fakes, sizeof fakes, "%s/fakelibs", here) >= (int)sizeof fakes ||
        access(fakes, F_OK) != 0)
        skip_all("the stand-in libraries are not built");
    search();
    suffixes();
    loaded();
    char dir[] = "/tmp/gputune-cudalibs-XXXXXX", cmd[64];
    ok(mkdtemp(dir) != NULL, "a scratch directory");
    unversioned(dir);
    driver_version(dir);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ok(system(cmd) == 0, "clean up");
    return done_testing();
}
