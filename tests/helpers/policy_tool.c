/* policy_tool: `gputune policy` and `gputune space` on their own, so that
 * tests/policy.t needs nothing else of the gputune command. */
#include "../../tools/policy_cmd.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "policy") == 0)
        return gt_cmd_policy(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "space") == 0)
        return gt_cmd_space(argc - 1, argv + 1);
    fprintf(stderr, "usage: policy_tool policy check FILE... | policy_tool space FILE KERNEL\n");
    return 2;
}
