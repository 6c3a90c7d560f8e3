/* state.c: the one global of the shim and its start-up.
 *
 * Everything the shim remembers lives in `gt`, ready before any code runs
 * (static initializers: a hook may run before any constructor).  gt_init()
 * reads the environment once (env.c), from the library constructor or from
 * whichever hook runs first (another preloaded library may call dlsym
 * before our constructor); it never touches the driver, so a process that
 * never uses CUDA pays only for reading the GPUTUNE_* variables. */
#include "state.h"

#include "gputune.h"

#include <pthread.h>
#include <unistd.h>

#define MAP_INIT {.lock = PTHREAD_MUTEX_INITIALIZER}

struct gt_state gt = {
    .mode = GT_MODE_RUN,
    .log = {.level = GT_LOG_WARN, .fd = 2},
    .track = {
        .reg = {.lock = PTHREAD_MUTEX_INITIALIZER, .handles = MAP_INIT, .owners = MAP_INIT, .by_key = MAP_INIT},
        .mem = {.lock = PTHREAD_RWLOCK_INITIALIZER},
        .rtc = {.lock = PTHREAD_MUTEX_INITIALIZER, .live = MAP_INIT},
        .triton = {.lock = PTHREAD_MUTEX_INITIALIZER},
    },
    .tune = {
        .ser = {.lock = PTHREAD_MUTEX_INITIALIZER},
        .records = {.lock = PTHREAD_MUTEX_INITIALIZER},
        .devk_lock = PTHREAD_MUTEX_INITIALIZER,
        .budget = {.lock = PTHREAD_MUTEX_INITIALIZER, .meters = MAP_INIT},
        .online = {.lock = PTHREAD_MUTEX_INITIALIZER, .trials = MAP_INIT},
    },
    .launch = {.lock = PTHREAD_MUTEX_INITIALIZER, .graphs_lock = PTHREAD_MUTEX_INITIALIZER},
    .run = {.writes = {.lock = PTHREAD_MUTEX_INITIALIZER}, .launches = GT_TALLY_INIT},
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
    gt_debug("libgputune %s loaded, mode %s", GPUTUNE_VERSION, gt_mode_name(gt.mode));
}

void gt_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_once);
}
