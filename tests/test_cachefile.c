/* test_cachefile: the per-binary cache file: naming, round trips, lookup
 * by key and by nearest signature, entries keyed by the driver's own
 * version (files of format 1 without it), damaged entries dropped one by
 * one, newer formats left alone, files and directories planted or other users',
 * errors of the moment and a lock held too long, stale temporaries swept,
 * paths too long for the names written beside them, changes made under
 * the lock (gputune cache's import, merge and prune), the rule a merge
 * keeps one of two entries by, files of the older format,
 * and eight processes writing at once. */
#include "cachedir.h"
#include "cachefile.h"
#include "tap.h"

#include "gputune.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct gt_centry entry(const char *kernel, const char *sig, const char *config)
{
    return (struct gt_centry){.image = 0xabcdef12345ULL, .image_file = "/opt/app/bin/solver", .kernel = (char *)kernel, .device = "NVIDIA H200",
                              .arch = 90, .driver = 13000, .signature = (char *)sig, .config = (char *)config,
                              .cubin = "00112233445566778899aabbccddeeff", .strategy = "random", .time_us = 12.5,
                              .baseline_us = 20.25, .trials = 42, .space = 420, .tuned = "2026-11-21T07:00:00Z"};
}

static char err[512];

static enum gt_cache_status save(const char *path, const struct gt_centry *add, size_t n)
{
    return gt_cache_save(path, "/opt/app/bin/solver", add, n, 1000, err, sizeof err);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

/* The whole file, for comparing before and after. */
static char *slurp(const char *path)
{
    static char buf[8192];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return f ? buf : NULL;
}

static int exists(const char *path, const char *suffix)
{
    char p[600];
    snprintf(p, sizeof p, "%s%s", path, suffix);
    return access(p, F_OK) == 0;
}

/* Entries are checked one by one: a bad one is dropped and named, the
 * others used and kept; a path with a newline reads back. */
static void damaged(const char *path, const struct gt_centry *add)
{
    struct gt_cachefile c;
    char text[1024];
    unlink(path);
    save(path, add, 2);
    snprintf(text, sizeof text, "%s", slurp(path));
    char *trials = strstr(text, "trials = 42");
    memcpy(trials, "trials = 4x", 11);
    write_text(path, text);
    ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_DAMAGED && c.n == 1 && gt_cache_find(&c, &add[1]) &&
           strstr(err, ": entry 'entry ") && strstr(err, "dropped: line ") && strstr(err, ": bad trials"),
       "one bad number drops its entry alone, named: %s", err);
    gt_cache_clear(&c);
    ok(save(path, &add[2], 1) == GT_CACHE_OK && exists(path, ".bad"), "saving over it keeps the damaged file aside");
    ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_OK && c.n == 2 && gt_cache_find(&c, &add[1]) &&
           gt_cache_find(&c, &add[2]),
       "and keeps its sound entry (%zu)", c.n);
    gt_cache_clear(&c);

    write_text(path, "[gputune]\nformat = 1\n[entry x]\nkernel = k\nthis is not a line\n");
    ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_DAMAGED && strstr(err, "line 5 is not key = value"),
       "a line that is not key = value: %s", err);
    write_text(path, "[gputune]\nformat = 1\n[entry x]\nkernel = k\narch = sm_90\n[entry y]\nkernel = k\n");
    ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_DAMAGED && strstr(err, "it is incomplete") &&
           strstr(err, "(and 1 more problems)"),
       "incomplete entries, counted: %s", err);
    write_text(path, "this is not a cache file\n");
    ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_DAMAGED && c.n == 0 && strstr(err, "line 1"),
       "not a cache file at all: %s", err);

    struct gt_centry odd = add[0];
    odd.kernel = "_Z3oddv\\n";
    unlink(path);
    ok(gt_cache_save(path, "/opt/my\napp\\bin/solver", &odd, 1, 1000, err, sizeof err) == GT_CACHE_OK,
       "a program path with a newline and a backslash");
    ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_OK && c.n == 1 && !strcmp(c.v[0].kernel, "_Z3oddv\\n"),
       "reads back: %s", err);
    gt_cache_clear(&c);
}

/* Entries are keyed by the driver's own version as well as its CUDA
 * version: another driver of the same CUDA version finds nothing, an entry
 * without the version (a file of format 1) is matched by the CUDA version
 * alone, and one of the very version is preferred to it. */
static void drivers(const char *path, const struct gt_centry *add)
{
    struct gt_cachefile c;
    struct gt_centry old = add[0], mine = add[0], other = add[0], cuda12 = add[0];
    mine.driver_version = "580.159.04";
    other.driver_version = "580.95.05";
    cuda12.driver_version = "580.159.04";
    cuda12.driver = 12080;
    unlink(path);
    ok(save(path, &mine, 1) == GT_CACHE_OK && strstr(slurp(path), "\ndriver = 13000\ndriver_version = 580.159.04\n"),
       "the driver's own version is written beside its CUDA version");
    ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_OK && gt_cache_find(&c, &mine) &&
           !strcmp(gt_cache_find(&c, &mine)->driver_version, "580.159.04"),
       "and read back");
    ok(!gt_cache_find(&c, &other), "another driver of the same CUDA version finds nothing");
    ok(!gt_cache_find(&c, &cuda12), "nor one of another CUDA version");
    ok(gt_cache_find(&c, &old) != NULL, "a driver whose version is not known matches by the CUDA version");
    ok(gt_cache_same_driver(&c.v[0], 13000, "580.159.04") && !gt_cache_same_driver(&c.v[0], 13000, "580.95.05") &&
           gt_cache_same_driver(&c.v[0], 13000, ""),
       "gt_cache_same_driver says the same");
    gt_cache_clear(&c);

    char text[2048];
    snprintf(text, sizeof text, "%s", slurp(path));
    char *at = strstr(text, "driver_version = 580.159.04\n");
    memmove(at, at + 28, strlen(at + 28) + 1);
    char current[32];
    snprintf(current, sizeof current, "format = %d\n", GPUTUNE_CACHE_FORMAT);
    memcpy(strstr(text, current), "format = 1", 10);
    write_text(path, text);
    ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_OK && c.n == 1 && !strcmp(c.v[0].driver_version, ""),
       "a file of format 1 loads whole, its entries without the driver's version: %s", err);
    ok(gt_cache_find(&c, &mine) && gt_cache_find(&c, &other) && !gt_cache_find(&c, &cuda12),
       "they match every driver of their CUDA version");
    gt_cache_clear(&c);

    unlink(path);
    write_text(path, text); /* format 1: the entry without a version */
    ok(save(path, &other, 1) == GT_CACHE_OK && gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_OK && c.n == 1 &&
           !strcmp(c.v[0].driver_version, "580.95.05"),
       "saving under a known version replaces the entry without one: %s", err);
    gt_cache_clear(&c);
    ok(save(path, &mine, 1) == GT_CACHE_OK && gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_OK && c.n == 2,
       "a driver update under the same CUDA version adds an entry of its own");
    gt_cache_clear(&c);

    /* A file holding both, as one edited by hand may. */
    unlink(path);
    save(path, &mine, 1);
    snprintf(text, sizeof text, "%s", slurp(path));
    const char *entry_at = strstr(text, "\n[entry ");
    char loose[1024];
    snprintf(loose, sizeof loose, "%s", entry_at);
    at = strstr(loose, "driver_version = 580.159.04\n");
    memmove(at, at + 28, strlen(at + 28) + 1);
    memcpy(strstr(loose, "config = maxrreg=64 dlcm=cg"), "config = maxrreg=32 dlcm=cg", 27);
    strcat(text, loose);
    write_text(path, text);
    ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_OK && c.n == 2, "an entry of one version beside one without");
    ok(!strcmp(gt_cache_find(&c, &mine)->config, "maxrreg=64 dlcm=cg"), "the very version is found first");
    ok(!strcmp(gt_cache_find(&c, &other)->config, "maxrreg=32 dlcm=cg"), "another version takes the one without");
    gt_cache_clear(&c);
}

/* A newer format is read as far as understood and never written over nor
 * moved; what is not a regular file of the user is refused, left alone. */
static void foreign(const char *dir, const char *path, const struct gt_centry *add)
{
    struct gt_cachefile c;
    char aside[600];
    snprintf(aside, sizeof aside, "%s.bad", path);
    unlink(aside);
    unlink(path);
    save(path, add, 1);
    char text[2048], current[32], newer[128];
    snprintf(text, sizeof text, "%s", slurp(path));
    snprintf(current, sizeof current, "format = %d\n", GPUTUNE_CACHE_FORMAT);
    memcpy(strstr(text, current), "format = 9", 10);
    strcat(text, "colour = blue\n[entry new]\nkernel = k\nshape = round\n");
    write_text(path, text);
    snprintf(newer, sizeof newer, "has format 9, newer than this libgputune's %d", GPUTUNE_CACHE_FORMAT);
    ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_NEWER && c.n == 1 && strstr(err, newer),
       "a newer format is read as far as understood: %s", err);
    gt_cache_clear(&c);
    ok(save(path, &add[1], 1) == GT_CACHE_NEWER && !strcmp(slurp(path), text) && !exists(path, ".bad"),
       "and neither written over nor moved: %s", err);

    unlink(path);
    mkdir(path, 0700);
    ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_REFUSED && strstr(err, "is not a regular file"),
       "a directory in its place is refused: %s", err);
    ok(save(path, add, 1) == GT_CACHE_REFUSED && !exists(path, ".bad") && rmdir(path) == 0,
       "and neither renamed nor written");

    write_text(path, "");
    chmod(path, 0666);
    ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_REFUSED && strstr(err, "writable by other users"),
       "a file others can write is refused: %s", err);
    ok(save(path, add, 1) == GT_CACHE_REFUSED && strstr(err, "writable by other"), "and not written either");
    chmod(path, 0600);
    if (geteuid() == 0 && chown(path, 65534, 65534) == 0) {
        ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_REFUSED && strstr(err, "belongs to another user"),
           "another user's file is called that: %s", err);
        chown(path, 0, 0);
    } else {
        ok(1, "# SKIP another user's file needs root");
    }
    (void)dir;
}

/* An error of the moment (here: no file descriptor left) leaves the file
 * as it is, and says so. */
static void transient(const char *path, const struct gt_centry *add)
{
    unlink(path);
    save(path, add, 2);
    char before[4096];
    snprintf(before, sizeof before, "%s", slurp(path));
    pid_t pid = fork();
    if (pid == 0) {
        struct gt_cachefile c;
        while (dup(0) >= 0)
            ;
        int loaded = gt_cache_load(&c, path, err, sizeof err);
        int saved = save(path, &add[2], 1);
        _exit(loaded == GT_CACHE_FAILED && saved == GT_CACHE_FAILED && strstr(err, "Too many open files") ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "out of file descriptors: reading and writing fail for now");
    ok(!strcmp(slurp(path), before) && !exists(path, ".bad"), "and the file is left as it was");

    int held[2];
    pipe(held);
    if ((pid = fork()) == 0) {
        char lockpath[600];
        snprintf(lockpath, sizeof lockpath, "%s.lock", path);
        int fd = open(lockpath, O_RDWR);
        flock(fd, LOCK_EX);
        write(held[1], "x", 1);
        pause();
        _exit(0);
    }
    char x;
    read(held[0], &x, 1);
    ok(gt_cache_save(path, "/opt/app/bin/solver", &add[2], 1, 50, err, sizeof err) == GT_CACHE_FAILED &&
           strstr(err, "another process has held") && strstr(err, "for over 0.1 s"),
       "a lock held too long: this write fails for now: %s", err);
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    close(held[0]);
    close(held[1]);
    ok(save(path, &add[2], 1) == GT_CACHE_OK, "and works once it is free");
}

/* Nothing planted in the cache directory is followed or waited on, and
 * nothing is created in a refused directory. */
static void planted(const char *dir, const char *path, const struct gt_centry *add)
{
    struct gt_cachefile c;
    char lockpath[600], target[600], open_dir[600], inside[700];
    snprintf(lockpath, sizeof lockpath, "%s.lock", path);
    snprintf(target, sizeof target, "%s/elsewhere", dir);
    unlink(lockpath);
    ok(symlink(target, lockpath) == 0 && save(path, add, 1) == GT_CACHE_REFUSED && access(target, F_OK) != 0,
       "a link planted as the lock is not followed: %s", err);
    unlink(lockpath);
    unlink(path);
    alarm(20); /* a FIFO that blocked would end the test here */
    ok(mkfifo(path, 0600) == 0 && gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_REFUSED &&
           strstr(err, "not a regular file"),
       "a FIFO planted as the file does not block: %s", err);
    ok(save(path, add, 1) == GT_CACHE_REFUSED, "nor is it written");
    alarm(0);
    unlink(path);

    snprintf(open_dir, sizeof open_dir, "%s/shared", dir);
    mkdir(open_dir, 0700);
    chmod(open_dir, 0777);
    snprintf(inside, sizeof inside, "%s/app-0.ini", open_dir);
    ok(save(inside, add, 1) == GT_CACHE_REFUSED && strstr(err, "writable by other users"),
       "a directory others can write is refused: %s", err);
    ok(rmdir(open_dir) == 0, "and nothing was created in it");

    char old[600], fresh[600], bad[600];
    snprintf(old, sizeof old, "%s/solver-1.ini.Ab12Cd", dir);
    snprintf(fresh, sizeof fresh, "%s/solver-1.ini.Zz98Yx", dir);
    snprintf(bad, sizeof bad, "%s/solver-1.ini.bad", dir);
    write_text(old, "");
    write_text(fresh, "");
    write_text(bad, "");
    struct timeval long_ago[2] = {{time(NULL) - 2 * GT_CACHEDIR_STALE_S, 0}, {time(NULL) - 2 * GT_CACHEDIR_STALE_S, 0}};
    utimes(old, long_ago);
    utimes(bad, long_ago);
    is_int(gt_cachedir_sweep(dir, GT_CACHEDIR_STALE_S), 1, "the sweep removes one stale temporary");
    ok(access(old, F_OK) != 0 && access(fresh, F_OK) == 0 && access(bad, F_OK) == 0,
       "the old one: not one a writer may be writing, nor another file");
    unlink(fresh);
    unlink(bad);
}

/* A read that fails says why, whatever the buffer held before. */
static void unreadable(const char *path)
{
    struct gt_cachefile c;
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    ok(fd >= 0 && ftruncate(fd, (off_t)2 << 30) == 0, "a 2 GiB file");
    close(fd);
    memset(err, 'Z', sizeof err - 1);
    err[sizeof err - 1] = '\0';
    ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_REFUSED && !strncmp(err, "cannot read ", 12),
       "too big to read: said, not what the buffer held: %.60s", err);
    unlink(path);
}

/* A path whose FILE.lock or FILE.XXXXXX would not fit is refused whole,
 * never written under a name cut short. */
static void too_long(const char *dir, const struct gt_centry *add)
{
    char path[PATH_MAX + 16];
    int n = snprintf(path, sizeof path, "%s/", dir);
    memset(path + n, 'a', sizeof path - (size_t)n - 1);
    path[PATH_MAX] = '\0';
    ok(save(path, add, 1) == GT_CACHE_REFUSED && strstr(err, "path too long (4096 bytes)"),
       "a cache file path of PATH_MAX bytes is refused: %.50s", err);
}

static int drop_first(struct gt_cachefile *c, void *ctx)
{
    (void)ctx;
    gt_centry_clear(&c->v[0]);
    memmove(c->v, c->v + 1, --c->n * sizeof *c->v);
    return 0;
}

static int unchanged(struct gt_cachefile *c, void *ctx)
{
    *(size_t *)ctx = c->n;
    return 1;
}

/* Changes made under the lock: the file's program kept, a change of
 * nothing not written, a file of format 1 read and written anew. */
static void editing(const char *path, const struct gt_centry *add)
{
    struct gt_cachefile c;
    struct stat before, after;
    size_t seen = 0;
    unlink(path);
    save(path, add, 3);
    ok(gt_cache_update(path, NULL, drop_first, NULL, 1000, err, sizeof err) == GT_CACHE_OK && !err[0],
       "an entry removed under the lock: %s", err);
    ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_OK && c.n == 2 && c.binary &&
           !strcmp(c.binary, "/opt/app/bin/solver") && !strcmp(c.v[0].image_file, "/opt/app/bin/solver"),
       "  the rest kept, the program its header named kept too, image_file read back");
    gt_cache_clear(&c);
    stat(path, &before);
    char text[8192];
    snprintf(text, sizeof text, "%s", slurp(path));
    usleep(20000);
    ok(gt_cache_update(path, NULL, unchanged, &seen, 1000, err, sizeof err) == GT_CACHE_OK && seen == 2,
       "a change of nothing sees the entries");
    stat(path, &after);
    ok(!strcmp(slurp(path), text) && before.st_ino == after.st_ino, "  and leaves the file as it was");

    write_text(path, "[gputune]\nformat = 1\nbinary = /old\\napp\n[entry x]\nkernel = k\nimage = 00000000000000ab\n"
                     "device = D\narch = sm_80\ndriver = 12080\nsignature = s\nconfig = c=1\n");
    ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_OK && c.n == 1 && !strcmp(c.v[0].image_file, "") &&
           !strcmp(c.binary, "/old\napp"),
       "a file of format 1 (no image_file) reads as sound: %s", err);
    gt_cache_clear(&c);
    ok(save(path, &add[0], 1) == GT_CACHE_OK && strstr(slurp(path), "image_file = \n") &&
           strstr(slurp(path), "binary = /opt/app/bin/solver"),
       "  and is written anew in this format, for the program the writer names");
    write_text(path, "[gputune]\nbinary = /x\n");
    ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_DAMAGED && strstr(err, "has format 0, this libgputune reads "
                                                                                  "formats 1 to "),
       "a file that names no format: %s", err);
    gt_cache_clear(&c);

    char mem[] = "[gputune]\nformat = 2\n[entry x]\nkernel = k\ntrials = many\n";
    ok(gt_cache_parse(&c, mem, "exported.ini", err, sizeof err) == GT_CACHE_DAMAGED &&
           strstr(err, "exported.ini: entry 'entry x' (line 3) dropped: line 5: bad trials"),
       "text parsed under a name of the caller's: %s", err);
    gt_cache_clear(&c);
}

/* Which of two entries of one key a merge keeps. */
static void merge_rule(const struct gt_centry *e)
{
    struct gt_centry a = *e, b = *e;
    a.time_us = 10, b.time_us = 12;
    ok(gt_cache_better(&a, &b) && !gt_cache_better(&b, &a), "the faster one");
    b.time_us = 10.05, b.trials = a.trials + 10;
    ok(!gt_cache_better(&a, &b) && gt_cache_better(&b, &a), "within 1%%: the one of more trials");
    b.trials = a.trials, b.tuned = "2027-01-01T00:00:00Z";
    ok(!gt_cache_better(&a, &b) && gt_cache_better(&b, &a), "  as many: the one tuned later");
    b = a;
    ok(gt_cache_better(&a, &b) && gt_cache_better(&b, &a), "  the same: the first");
    b.time_us = 1, b.guard = GT_CENTRY_DROPPED;
    ok(gt_cache_better(&a, &b) && !gt_cache_better(&b, &a), "one the guard dropped loses, however fast");
    a.time_us = 0;
    b = *e;
    ok(!gt_cache_better(&a, &b) && gt_cache_better(&b, &a), "one without a time loses to one with");
}

/* gt_cache_program on argv as the kernel passes it; "" ends the list. */
static const char *program(const char *exe, const char *const *args)
{
    static char out[1024];
    char *argv[16];
    int argc = 0;
    while (argc < 15 && *args[argc]) {
        argv[argc] = (char *)args[argc];
        argc++;
    }
    return gt_cache_program(exe, argv, argc, out, sizeof out) == 0 ? out : "(too long)";
}

/* Interpreters key their file by what they run, any other program by itself. */
static void interpreters(const char *dir)
{
    char script[600], real[PATH_MAX], want[PATH_MAX + 64], file[PATH_MAX + 64];
    snprintf(script, sizeof script, "%s/train.py", dir);
    FILE *f = fopen(script, "w");
    ok(f && fclose(f) == 0 && realpath(script, real), "a script");
    is_str(program("/opt/solver", (const char *[]){"solver", "-n", "4", ""}), "/opt/solver",
           "a program is itself, whatever its arguments");
    snprintf(want, sizeof want, "/usr/bin/python3.12 %s", real);
    is_str(program("/usr/bin/python3.12", (const char *[]){"python3", "-u", script, "--lr", "3", ""}), want,
           "python with an option: the script, by its real path");
    is_str(program("/usr/bin/python3.12", (const char *[]){"python3", "-W", "ignore", script, ""}), want,
           "  an option's value is not taken for the script");
    is_str(program("/usr/bin/python3.12", (const char *[]){"python3", "-m", "torch.distributed.run", "x", ""}),
           "/usr/bin/python3.12 -m torch.distributed.run", "  a module run with -m: the module");
    is_str(program("/usr/bin/python3.12", (const char *[]){"python3", "-c", "import torch", ""}),
           "/usr/bin/python3.12", "  code given with -c: the interpreter");
    is_str(program("/usr/bin/python3.12", (const char *[]){"python3", ""}), "/usr/bin/python3.12",
           "  interactive: the interpreter");
    is_str(program("/usr/bin/julia", (const char *[]){"julia", "--project", "env", "run.jl", ""}), "/usr/bin/julia run.jl",
           "julia, a script that does not exist: as written");
    gt_cache_file(dir, want, file, sizeof file);
    ok(strstr(file, "/train.py-") && strstr(file, ".ini"), "the file is named after the script: %s", file);
    unlink(script);
}

int main(void)
{
    char dir[] = "/tmp/gputune-cache-XXXXXX", path[512], cmd[600], other[600];
    ok(mkdtemp(dir) != NULL, "a cache directory");
    ok(gt_cache_file(dir, "/opt/app/bin/solver", path, sizeof path) == 0 && strstr(path, "/solver-") &&
           strstr(path, ".ini"),
       "the file is named after the binary: %s", path);

    gt_cache_file(dir, "/home/x/solver", other, sizeof other);
    ok(strcmp(path, other) != 0, "two binaries of one name get two files");
    interpreters(dir);

    char sig[128], big[128];
    const unsigned g[3] = {256, 1, 1}, b[3] = {128, 1, 1}, g2[3] = {4096, 1, 1};
    const int64_t extra[] = {1 << 20};
    gt_cache_signature(g, b, 0, NULL, 0, sig, sizeof sig);
    is_str(sig, "grid=256,1,1 block=128,1,1 smem=0", "canonical signature");
    gt_cache_signature(g2, b, 0, extra, 1, big, sizeof big);
    is_str(big, "grid=4096,1,1 block=128,1,1 smem=0 args=1048576", "with policy signature values");
    {
        const unsigned gmax[3] = {4294967295u, 65535, 0}, bz[3] = {1, 2, 3};
        const int64_t ends[] = {-1, INT64_MIN, INT64_MAX, 0};
        char all[256], tiny[24];
        ok(gt_cache_signature(gmax, bz, 7, ends, 4, all, sizeof all) == 0, "the widest values fit");
        is_str(all, "grid=4294967295,65535,0 block=1,2,3 smem=7 args=-1,-9223372036854775808,9223372036854775807,0",
               "every digit and sign as printf writes them");
        ok(gt_cache_signature(g, b, 0, NULL, 0, tiny, sizeof tiny) == -1, "a signature longer than its buffer fails");
        is_str(tiny, "grid=256,1,1 block=128,", "and leaves a terminated prefix");
        ok(gt_cache_signature(g, b, 0, ends, GT_CACHE_MAX_EXTRA + 1, all, sizeof all) == -1,
           "more argument values than a signature holds fail");
    }

    struct gt_cachefile c;
    ok(gt_cache_load(&c, path, err, sizeof err) == 0 && c.n == 0, "a missing file is an empty cache");
    struct gt_centry one = entry("k", sig, "cache=l1");
    too_long(dir, &one);
    const char *longname = "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_23direct_copy_kernel_cuda"
                           "ERNS_18TensorIteratorBaseEENKUlvE_clEvENKUlvE2_clEvEUlfE_St5arrayIPcLm2EEEEviT0_T1_"
                           "and_so_on_for_a_long_time_because_real_kernel_names_are_long_0123456789";
    struct gt_centry add[] = {entry("_Z5saxpyifPKfPf", sig, "maxrreg=64 dlcm=cg"),
                              entry("_Z5saxpyifPKfPf", big, "maxrreg=32"), entry(longname, sig, "cache=l1")};
    ok(save(path, add, 3) == 0, "three entries saved: %s", err);
    ok(gt_cache_load(&c, path, err, sizeof err) == 0 && c.n == 3, "and read back (%zu)", c.n);
    const struct gt_centry *e = gt_cache_find(&c, &add[0]);
    ok(e && !strcmp(e->config, "maxrreg=64 dlcm=cg") && e->time_us == 12.5 && e->trials == 42 && e->space == 420 &&
           !strcmp(e->cubin, add[0].cubin),
       "every field survives");
    ok(gt_cache_find(&c, &add[2]) != NULL, "a kernel name longer than any INI line limit");
    struct gt_centry probe = add[0];
    char mid[128];
    const unsigned g3[3] = {3000, 1, 1};
    gt_cache_signature(g3, b, 0, extra, 1, mid, sizeof mid);
    probe.signature = mid;
    ok(!gt_cache_find(&c, &probe), "an unseen signature is not an exact match");
    e = gt_cache_nearest(&c, &probe);
    ok(e && !strcmp(e->config, "maxrreg=32"), "its nearest tuned signature is the closest grid");
    probe.device = "NVIDIA A100";
    ok(!gt_cache_nearest(&c, &probe), "nothing near on another device");
    probe.device = NULL;
    e = gt_cache_nearest(&c, &probe);
    ok(e && !strcmp(e->config, "maxrreg=32"), "  unless any device will do");
    probe.arch = 80;
    ok(!gt_cache_nearest(&c, &probe), "  but never another architecture");
    gt_cache_clear(&c);

    struct gt_centry verdict = add[1];
    verdict.guard = GT_CENTRY_DROPPED;
    verdict.guard_speedup = 0.97;
    ok(save(path, &verdict, 1) == 0, "a verdict of the guard saved");
    gt_cache_load(&c, path, err, sizeof err);
    e = gt_cache_find(&c, &verdict);
    ok(e && e->guard == GT_CENTRY_DROPPED && e->guard_speedup == 0.97 && gt_cache_find(&c, &add[0])->guard == 0,
       "read back on its entry alone");
    gt_cache_clear(&c);
    static const char *const bad_guards[] = {"dropped", "kept x", "maybe 1.0", "kept -1", "kept 1.0 more"};
    for (size_t i = 0; i < sizeof bad_guards / sizeof *bad_guards; i++) {
        char text[256];
        snprintf(text, sizeof text, "[gputune]\nformat = 1\n[entry x]\nkernel = k\nguard = %s\n", bad_guards[i]);
        write_text(path, text);
        ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_DAMAGED && strstr(err, "line 5: bad guard"),
           "guard = %s: %s", bad_guards[i], err);
    }
    struct gt_centry pending = add[2];
    pending.guard_times = "250.000 251.500 / 200.000";
    unlink(path);
    ok(save(path, &pending, 1) == 0, "the guard's times of an unjudged configuration saved");
    gt_cache_load(&c, path, err, sizeof err);
    ok(c.n == 1 && c.v[0].guard == GT_CENTRY_UNCHECKED && c.v[0].guard_times &&
           !strcmp(c.v[0].guard_times, pending.guard_times),
       "and read back: %s", c.n ? c.v[0].guard_times : "-");
    gt_cache_clear(&c);
    char many[1200] = "/";
    for (int i = 0; i <= GT_CENTRY_GUARD_TIMES; i++)
        strcat(many, " 1.5");
    const char *const bad_times[] = {"1 2", "1 / 2 / 3", "-1 / 2", "0 / 2", "inf / 1", "nan /", "x / 1", "1e / 2",
                                     many};
    for (size_t i = 0; i < sizeof bad_times / sizeof *bad_times; i++) {
        char text[1400];
        snprintf(text, sizeof text, "[gputune]\nformat = 1\n[entry x]\nkernel = k\nguard_times = %s\n", bad_times[i]);
        write_text(path, text);
        ok(gt_cache_load(&c, path, err, sizeof err) == GT_CACHE_DAMAGED && strstr(err, "line 5: bad guard_times"),
           "guard_times = %.20s: %s", bad_times[i], err);
    }
    unlink(path);
    ok(save(path, add, 3) == 0, "the three entries again");

    struct gt_centry again = entry("_Z5saxpyifPKfPf", sig, "maxrreg=80");
    ok(save(path, &again, 1) == 0, "an entry saved again");
    gt_cache_load(&c, path, err, sizeof err);
    ok(c.n == 3 && !strcmp(gt_cache_find(&c, &again)->config, "maxrreg=80"), "replaces the old one");
    gt_cache_clear(&c);

    drivers(path, add);
    damaged(path, add);
    editing(path, add);
    merge_rule(&add[0]);
    foreign(dir, path, add);
    transient(path, add);
    planted(dir, path, add);
    unreadable(path);

    /* Eight writers at once, twenty entries each: none may be lost.  Each
     * waits up to a minute for the lock, so that a loaded machine (the
     * sanitizers, tests run in parallel) does not time a writer out. */
    unlink(path);
    for (int p = 0; p < 8; p++) {
        if (fork() == 0) {
            for (int i = 0; i < 20; i++) {
                char s[64], name[64];
                snprintf(s, sizeof s, "grid=%d,1,1 block=128,1,1 smem=0", i + 1);
                snprintf(name, sizeof name, "_Z6kernel%dv", p);
                struct gt_centry one = entry(name, s, "maxrreg=64");
                if (gt_cache_save(path, "/opt/app/bin/solver", &one, 1, 60000, err, sizeof err) != 0)
                    _exit(1);
            }
            _exit(0);
        }
    }
    int failures = 0, status;
    while (wait(&status) > 0)
        failures += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    is_int(failures, 0, "eight processes save concurrently");
    ok(gt_cache_load(&c, path, err, sizeof err) == 0, "the file parses afterwards");
    is_int(c.n, 160, "and holds every entry");
    gt_cache_clear(&c);

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ok(system(cmd) == 0, "clean up");
    return done_testing();
}
