/* env_cmd.h: `gputune env` (see env_cmd.c). */
#ifndef GT_ENV_CMD_H
#define GT_ENV_CMD_H

int gt_cmd_env(int argc, char **argv);

#endif
