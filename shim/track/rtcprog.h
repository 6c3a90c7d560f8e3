/* rtcprog.h: the programs the application compiles with NVRTC (see rtcprog.c). */
#ifndef GT_RTCPROG_H
#define GT_RTCPROG_H

#include "image.h"
#include "recipe.h"

#include <stddef.h>
#include <stdint.h>

void gt_rtcprog_create(const void *prog, const char *src, const char *name, int nheaders,
                       const char *const *headers, const char *const *include_names);
void gt_rtcprog_options(const void *prog, int noptions, const char *const *options);
void gt_rtcprog_name(const void *prog, const char *name);
void gt_rtcprog_output(const void *prog, const char *bytes, enum gt_format format);
void gt_rtcprog_destroy(const void *prog);
const struct gt_nvrtc_program *gt_rtcprog_find(uint64_t hash, size_t size);
void gt_rtcprog_fork_hold(void);
void gt_rtcprog_fork_release(int child);

#endif
