/* test_cachefile: the per-binary cache file: naming, round trips, lookup
 * by key and by nearest signature, damaged and foreign files, files other
 * users could write, and eight processes writing at once. */
#include "cachefile.h"
#include "tap.h"

#include "gputune.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static struct gt_centry entry(const char *kernel, const char *sig, const char *config)
{
    return (struct gt_centry){.image = 0xabcdef12345ULL, .kernel = (char *)kernel, .device = "NVIDIA H200",
                              .arch = 90, .driver = 13000, .signature = (char *)sig, .config = (char *)config,
                              .cubin = "00112233445566778899aabbccddeeff", .strategy = "random", .time_us = 12.5,
                              .baseline_us = 20.25, .trials = 42, .space = 420, .tuned = "2026-11-21T07:00:00Z"};
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

int main(void)
{
    char dir[] = "/tmp/gputune-cache-XXXXXX", path[512], err[512], cmd[600], other[600];
    ok(mkdtemp(dir) != NULL, "a cache directory");
    ok(gt_cache_file(dir, "/opt/app/bin/solver", path, sizeof path) == 0 && strstr(path, "/solver-") &&
           strstr(path, ".ini"),
       "the file is named after the binary: %s", path);

    gt_cache_file(dir, "/home/x/solver", other, sizeof other);
    ok(strcmp(path, other) != 0, "two binaries of one name get two files");

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
    const char *longname = "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_23direct_copy_kernel_cuda"
                           "ERNS_18TensorIteratorBaseEENKUlvE_clEvENKUlvE2_clEvEUlfE_St5arrayIPcLm2EEEEviT0_T1_"
                           "and_so_on_for_a_long_time_because_real_kernel_names_are_long_0123456789";
    struct gt_centry add[] = {entry("_Z5saxpyifPKfPf", sig, "maxrreg=64 dlcm=cg"),
                              entry("_Z5saxpyifPKfPf", big, "maxrreg=32"), entry(longname, sig, "cache=l1")};
    ok(gt_cache_save(path, "/opt/app/bin/solver", add, 3, err, sizeof err) == 0, "three entries saved: %s", err);
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
    gt_cache_clear(&c);

    struct gt_centry verdict = add[1];
    verdict.guard = GT_CENTRY_DROPPED;
    verdict.guard_speedup = 0.97;
    ok(gt_cache_save(path, "/opt/app/bin/solver", &verdict, 1, err, sizeof err) == 0, "a verdict of the guard saved");
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
        ok(gt_cache_load(&c, path, err, sizeof err) != 0 && strstr(err, "line 5: bad guard"), "guard = %s: %s",
           bad_guards[i], err);
    }
    unlink(path);
    ok(gt_cache_save(path, "/opt/app/bin/solver", add, 3, err, sizeof err) == 0, "the three entries again");

    struct gt_centry again = entry("_Z5saxpyifPKfPf", sig, "maxrreg=80");
    ok(gt_cache_save(path, "/opt/app/bin/solver", &again, 1, err, sizeof err) == 0, "an entry saved again");
    gt_cache_load(&c, path, err, sizeof err);
    ok(c.n == 3 && !strcmp(gt_cache_find(&c, &again)->config, "maxrreg=80"), "replaces the old one");
    gt_cache_clear(&c);

    write_text(path, "[gputune]\nformat = 1\n[entry x]\nkernel = k\nthis is not a line\n");
    ok(gt_cache_load(&c, path, err, sizeof err) != 0 && strstr(err, "line 5 is not key = value"),
       "a damaged file is reported: %s", err);
    write_text(path, "[gputune]\nformat = 99\n");
    ok(gt_cache_load(&c, path, err, sizeof err) != 0 && strstr(err, "has format 99, this libgputune reads format 1"),
       "a foreign format is reported: %s", err);
    write_text(path, "[gputune]\nformat = 1\n[entry x]\nkernel = k\narch = sm_90\n");
    ok(gt_cache_load(&c, path, err, sizeof err) != 0 && strstr(err, "incomplete"), "an incomplete entry: %s", err);
    write_text(path, "[gputune]\nformat = 1\n[entry x]\nkernel = k\ntrials = many\n");
    ok(gt_cache_load(&c, path, err, sizeof err) != 0 && strstr(err, "line 5: bad trials"), "a bad number: %s", err);
    ok(gt_cache_save(path, "/opt/app/bin/solver", add, 1, err, sizeof err) == 0, "saving over a damaged file works");
    snprintf(other, sizeof other, "%s.bad", path);
    ok(access(other, F_OK) == 0, "and keeps the damaged one aside");
    ok(gt_cache_load(&c, path, err, sizeof err) == 0 && c.n == 1, "the new file is sound");
    gt_cache_clear(&c);

    chmod(path, 0666);
    ok(gt_cache_load(&c, path, err, sizeof err) != 0 && strstr(err, "writable by other users"),
       "a file others can write is refused: %s", err);
    ok(gt_cache_save(path, "/opt/app/bin/solver", add, 1, err, sizeof err) != 0 && strstr(err, "writable by other"),
       "and not written either");
    chmod(path, 0600);

    /* Eight writers at once, twenty entries each: none may be lost. */
    unlink(path);
    for (int p = 0; p < 8; p++) {
        if (fork() == 0) {
            for (int i = 0; i < 20; i++) {
                char s[64], name[64];
                snprintf(s, sizeof s, "grid=%d,1,1 block=128,1,1 smem=0", i + 1);
                snprintf(name, sizeof name, "_Z6kernel%dv", p);
                struct gt_centry one = entry(name, s, "maxrreg=64");
                if (gt_cache_save(path, "/opt/app/bin/solver", &one, 1, err, sizeof err) != 0)
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
