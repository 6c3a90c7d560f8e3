/* wrap.h: `gputune run|tune|retune|online|off` (see wrap.c). */
#ifndef GT_WRAP_H
#define GT_WRAP_H

int gt_cmd_wrap(int argc, char **argv);

#endif
