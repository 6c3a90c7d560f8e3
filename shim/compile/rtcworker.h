/* rtcworker.h: NVRTC in compiler worker processes (see rtcworker.c).
 *
 * The protocol, in the machine's byte order (both ends run on one machine):
 *   frame    u32 tag (enum gt_rtcw_tag), u32 length (at most GT_RTCW_MAX_BODY), the body
 *   string   u32 n (its bytes with the terminating NUL, the only NUL), the n bytes
 *   optional u8 0, or u8 1 and a string
 *   list     u32 count (at most GT_RTCW_MAX_LIST), then count strings
 *   request  name, text, list headers, list include names (as many), list
 *            options (with the architecture), optional name expression,
 *            list instantiations
 *   answer   u8 ok (NVRTC made PTX), optional PTX (present when ok), optional
 *            log, optional lowered name (only when ok, for a name expression)
 *   error    a string: why the worker stops */
#ifndef GT_RTCWORKER_H
#define GT_RTCWORKER_H

#include "jit.h"

#include <stddef.h>
#include <sys/types.h>

#define GT_RTCW_MAX_BODY (256u << 20)
#define GT_RTCW_MAX_LIST 4096

enum gt_rtcw_tag {
    GT_RTCW_REQUEST = 0x31515447, /* "GTQ1" */
    GT_RTCW_ANSWER = 0x31415447,  /* "GTA1" */
    GT_RTCW_ERROR = 0x31455447,   /* "GTE1" */
};

int gt_rtcw_find(const char *beside, const char *name, char *path, size_t cap, char *err, size_t errlen);
int gt_rtcw_compile(struct gt_jit *j, const struct gt_jit_rtc_in *in, struct gt_jit_rtc_out *out);
pid_t gt_rtcw_pid(void);
int gt_rtcw_serve(int fd, struct gt_jit *j, char *err, size_t errlen);

#endif
