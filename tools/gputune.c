/* gputune.c: the `gputune` command, a dispatcher to its subcommands. */
#include "gputune.h"
#include "inspect.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
    "usage: gputune COMMAND [ARGS]\n"
    "commands:\n"
    "  inspect FILE...   list the kernels of binaries and how each can be tuned\n"
    "  version           print the version\n"
    "Run 'gputune COMMAND --help' for a command's options.\n";

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "inspect") == 0)
        return gt_inspect_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
        printf("gputune %s\n", GPUTUNE_VERSION);
        return 0;
    }
    fprintf(stderr, "gputune: unknown command '%s'\n%s", argv[1], usage);
    return 2;
}
