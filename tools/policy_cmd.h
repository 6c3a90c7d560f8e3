/* policy_cmd.h: `gputune policy check` and `gputune space` (see policy_cmd.c).
 * Both take the arguments after `gputune`: argv[0] is "policy" or "space". */
#ifndef GT_POLICY_CMD_H
#define GT_POLICY_CMD_H

int gt_cmd_policy(int argc, char **argv);
int gt_cmd_space(int argc, char **argv);

#endif
