/* gputune.c: the `gputune` command, a dispatcher to its subcommands. */
#include "gputune.h"
#include "inspect.h"
#include "policy_cmd.h"
#include "wrap.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
    "usage: gputune COMMAND [ARGS]\n"
    "commands:\n"
    "  inspect FILE...             list the kernels of binaries and how each can be tuned\n"
    "  policy check FILE...        validate policy files and size their spaces\n"
    "  space FILE KERNEL           list a kernel's configurations\n"
    "  run|tune|retune|off CMD...  run a command under libgputune in that mode\n"
    "  cache PROGRAM               list what tune mode kept for a program\n"
    "  version                     print the version\n"
    "Run 'gputune COMMAND --help' for a command's options.\n";

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
    for (const char *const *m = (const char *const[]){"run", "tune", "retune", "off", NULL}; *m; m++)
        if (strcmp(argv[1], *m) == 0)
            return gt_cmd_wrap(argc - 1, argv + 1);
    if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
        printf("gputune %s\n", GPUTUNE_VERSION);
        return 0;
    }
    fprintf(stderr, "gputune: unknown command '%s'\n%s", argv[1], usage);
    return 2;
}
