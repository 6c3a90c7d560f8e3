/* state.c: the one global of the shim and its start-up.
 *
 * Everything the shim remembers lives in `gt`, ready before any code runs
 * (static initializers: a hook may run before any constructor).  gt_init()
 * reads the environment once, from the library constructor or from
 * whichever hook runs first (another preloaded library may call dlsym
 * before our constructor); it never touches the driver, so a process that
 * never uses CUDA pays only for a few getenv() calls. */
#include "state.h"

#include "gputune.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAP_INIT {.lock = PTHREAD_MUTEX_INITIALIZER}

struct gt_state gt = {
    .mode = GT_MODE_RUN,
    .log = {.level = GT_LOG_WARN, .fd = 2},
    .track = {
        .reg = {.lock = PTHREAD_MUTEX_INITIALIZER, .handles = MAP_INIT, .owners = MAP_INIT, .by_key = MAP_INIT},
        .mem = {.lock = PTHREAD_RWLOCK_INITIALIZER},
        .rtc = {.lock = PTHREAD_MUTEX_INITIALIZER, .live = MAP_INIT},
    },
    .tune = {
        .ser = {.lock = PTHREAD_MUTEX_INITIALIZER},
        .records = {.lock = PTHREAD_MUTEX_INITIALIZER},
        .devk_lock = PTHREAD_MUTEX_INITIALIZER,
    },
    .launch = {.lock = PTHREAD_MUTEX_INITIALIZER},
};

static const char *const mode_names[] = {"off", "run", "tune", "retune", NULL};
static const char *const level_names[] = {"error", "warn", "info", "debug", NULL};

const char *gt_mode_name(enum gt_mode mode)
{
    return mode_names[mode];
}

/* Reads an environment variable that must be one of `choices`.  Unset or
 * empty gives `fallback` silently; anything else unknown gives one warning
 * naming the variable and what it accepts, then `fallback`. */
int gt_env_choice(const char *var, const char *const *choices, int fallback)
{
    const char *v = getenv(var);
    if (!v || !*v)
        return fallback;
    for (int i = 0; choices[i]; i++)
        if (strcmp(v, choices[i]) == 0)
            return i;
    char accepted[256] = "";
    for (int i = 0; choices[i]; i++) {
        strncat(accepted, i ? ", " : "", sizeof accepted - strlen(accepted) - 1);
        strncat(accepted, choices[i], sizeof accepted - strlen(accepted) - 1);
    }
    gt_warn("%s=%s is not one of %s; using %s", var, v, accepted, choices[fallback]);
    return fallback;
}

static void init_once(void)
{
    /* The level first, so that warnings about the other variables obey it. */
    gt.log.level = gt_env_choice(GPUTUNE_ENV_LOG, level_names, GT_LOG_WARN);
    gt_log_open(&gt.log, gt.log.level, getenv(GPUTUNE_ENV_LOG_FILE));
    gt.mode = (enum gt_mode)gt_env_choice(GPUTUNE_ENV_MODE, mode_names, GT_MODE_RUN);
    gt_debug("libgputune %s loaded, mode %s", GPUTUNE_VERSION, gt_mode_name(gt.mode));
}

void gt_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_once);
}
