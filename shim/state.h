/* state.h: the one global of the shim (see state.c). */
#ifndef GT_STATE_H
#define GT_STATE_H

#include "apply.h"
#include "capture.h"
#include "driver.h"
#include "env.h"
#include "log.h"
#include "memtrack.h"
#include "registry.h"

#define GT_EXPORT __attribute__((visibility("default")))

enum gt_mode { GT_MODE_OFF, GT_MODE_RUN, GT_MODE_TUNE, GT_MODE_RETUNE };

struct gt_state {
    enum gt_mode mode;
    struct gt_env env; /* the GPUTUNE_* variables, read once at start */
    struct gt_log log;
    struct gt_driver drv;
    struct gt_registry reg;
    struct gt_memtrack mem;
    struct gt_capture cap;
    struct gt_apply app;
};

extern struct gt_state gt;

void gt_init(void);
const char *gt_mode_name(enum gt_mode mode);

#endif
