/* gputune.c: the `gputune` command, a dispatcher to its subcommands.
 *
 * One subcommand is not for people: `rtc-worker FD LIBNVRTC` is the
 * compiler worker libgputune spawns for each thread that builds from source
 * (shim/compile/rtcworker.c), serving NVRTC requests on the socket FD. */
#include "gputune.h"
#include "cachecmd.h"
#include "env_cmd.h"
#include "inspect.h"
#include "jit.h"
#include "policy_cmd.h"
#include "rtcworker.h"
#include "wrap.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: gputune COMMAND [ARGS]\n"
    "commands:\n"
    "  inspect FILE...             list the kernels of binaries and how each can be tuned\n"
    "  policy check FILE...        validate policy files and size their spaces\n"
    "  space FILE KERNEL           list a kernel's configurations\n"
    "  MODE CMD...                 run a command under libgputune in MODE: run, tune, retune,\n"
    "                              online or off\n"
    "  cache PROGRAM               list what tune mode kept for a program\n"
    "  cache export|import|merge|prune ...\n"
    "                              move, combine and clean cache files (T4 too)\n"
    "  env                         print the GPUTUNE_* variables as libgputune reads them\n"
    "  version                     print the version\n"
    "Run 'gputune COMMAND --help' for a command's options.\n";

/* Loads the spawning process's libnvrtc file first, when it is known, so
 * that gt_jit_open (by soname) finds that very one: the same compiler, the
 * same PTX. */
static int rtc_worker(int argc, char **argv)
{
    char *end, err[1024];
    long fd = argc == 4 ? strtol(argv[2], &end, 10) : -1;
    if (fd < 0 || *end || fd > INT_MAX) {
        fprintf(stderr, "usage: gputune rtc-worker FD LIBNVRTC (libgputune runs it)\n");
        return 2;
    }
    if (argv[3][0] && !dlopen(argv[3], RTLD_NOW | RTLD_LOCAL)) {
        fprintf(stderr, "gputune rtc-worker: %s\n", dlerror());
        return 1;
    }
    struct gt_jit jit;
    gt_jit_init(&jit, dlsym);
    int rc = gt_rtcw_serve((int)fd, &jit, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "gputune rtc-worker: %s\n", err);
    gt_jit_close(&jit);
    return rc != 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "inspect") == 0)
        return gt_inspect_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "policy") == 0)
        return gt_cmd_policy(argc - 1, argv + 1);
    if (strcmp(argv[1], "space") == 0)
        return gt_cmd_space(argc - 1, argv + 1);
    if (strcmp(argv[1], "cache") == 0)
        return gt_cmd_cache(argc - 1, argv + 1);
    if (strcmp(argv[1], "env") == 0)
        return gt_cmd_env(argc - 1, argv + 1);
    if (strcmp(argv[1], "rtc-worker") == 0)
        return rtc_worker(argc, argv);
    for (const char *const *m = (const char *const[]){"run", "tune", "retune", "online", "off", NULL}; *m; m++)
        if (strcmp(argv[1], *m) == 0)
            return gt_cmd_wrap(argc - 1, argv + 1);
    if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
        printf("gputune %s\n", GPUTUNE_VERSION);
        return 0;
    }
    fprintf(stderr, "gputune: unknown command '%s'\n%s", argv[1], usage);
    return 2;
}
