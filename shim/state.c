/* state.c: the one global of the shim and its start-up.
 *
 * Everything the shim remembers lives in `gt`.  gt_init() reads the
 * environment once, from the library constructor or from whichever hook runs
 * first (another preloaded library may call dlsym before our constructor);
 * it never touches the driver, so a process that never uses CUDA pays only
 * for reading the GPUTUNE_* variables (env.c). */
#include "state.h"

#include "forks.h"
#include "gputune.h"
#include "interpose.h"
#include "report.h"

#include <pthread.h>
#include <unistd.h>

struct gt_state gt = {
    .mode = GT_MODE_RUN,
    .log = {.level = GT_LOG_WARN, .fd = 2},
    .app = {.lock = PTHREAD_MUTEX_INITIALIZER},
};

const char *gt_mode_name(enum gt_mode mode)
{
    return gt_env_word(GT_ENV_MODE, (int)mode);
}

static void say_warning(const char *msg)
{
    gt_warn("%s", msg);
}

/* What was refused or unknown, then at debug level every value and where it came from. */
static void say_environment(void)
{
    gt_env_check(&gt.env, environ, say_warning);
    for (int id = 0; id < GT_ENV_COUNT && gt_log_enabled(GT_LOG_DEBUG); id++)
        gt_debug("environment: %s = %s (%s)", gt_env_var(id)->name, gt_env_shown(&gt.env, id),
                 gt_env_origin_name(gt.env.origin[id]));
}

static void init_once(void)
{
    /* The log first, so that what is said about the variables obeys it. */
    gt_env_parse(&gt.env, environ);
    gt_log_open(&gt.log, gt.env.log, gt.env.log_file);
    gt.mode = (enum gt_mode)gt.env.mode;
    say_environment();
    gt_reg_init(&gt.reg);
    gt_mem_init(&gt.mem);
    gt_capture_init(&gt.cap);
    gt_forks_init();
    gt_debug("libgputune %s loaded, mode %s", GPUTUNE_VERSION, gt_mode_name(gt.mode));
}

void gt_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_once);
}

__attribute__((constructor)) static void gt_constructor(void)
{
    gt_init();
}

GT_EXPORT const char *gputune_version(void)
{
    return GPUTUNE_VERSION;
}

GT_EXPORT const char *gputune_mode(void)
{
    gt_init();
    return gt_mode_name(gt.mode);
}

__attribute__((destructor)) static void gt_destructor(void)
{
    gt_interpose_check_bypass();
    gt_report_exit();
}
