/* wrap.h: `gputune run|tune|retune|off` and `gputune cache` (see wrap.c). */
#ifndef GT_WRAP_H
#define GT_WRAP_H

int gt_cmd_wrap(int argc, char **argv);
int gt_cmd_cache(int argc, char **argv);

#endif
