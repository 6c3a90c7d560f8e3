/* env.h: the GPUTUNE_* environment variables, declared once (see env.c). */
#ifndef GT_ENV_H
#define GT_ENV_H

#include <stddef.h>
#include <stdint.h>

enum gt_env_id {
    GT_ENV_MODE,
    GT_ENV_LOG,
    GT_ENV_LOG_FILE,
    GT_ENV_POLICY,
    GT_ENV_FORCE,
    GT_ENV_CACHE_DIR,
    GT_ENV_JOBS,
    GT_ENV_SEED,
    GT_ENV_REPORT,
    GT_ENV_WATCHDOG,
    GT_ENV_GUARD,
    GT_ENV_SET,
    GT_ENV_TRIALS,
    GT_ENV_BUDGET,
    GT_ENV_CACHE_FILE,
    GT_ENV_CACHE_PATH,
    GT_ENV_PLOTS,
    GT_ENV_STRICT_DEVICE,
    GT_ENV_PATH_NS,
    GT_ENV_COUNT
};

/* What a variable accepts: one of its words (the value is the word's
 * index), a decimal or 0x integer in a range, a number of seconds (a
 * positive decimal, up to max), a path, or any text. */
enum gt_env_kind { GT_ENV_ENUM, GT_ENV_INT, GT_ENV_SECONDS, GT_ENV_PATH, GT_ENV_TEXT };

/* Where a value came from: the default (unset or empty), the environment,
 * or the default because the environment's text was refused. */
enum gt_env_origin { GT_ENV_DEFAULT, GT_ENV_GIVEN, GT_ENV_REFUSED };

struct gt_env_var {
    const char *name;
    enum gt_env_kind kind;
    size_t at;                /* offset of its value in struct gt_env */
    const char *const *words; /* GT_ENV_ENUM: the accepted words, NULL-terminated */
    uint64_t min, max;        /* GT_ENV_INT: the accepted range; GT_ENV_SECONDS: max */
    const char *dflt;         /* the default as it would be written; NULL: none */
    const char *unset;        /* what having no value means, when dflt is NULL */
    const char *meaning;
};

/* The values the library reads, parsed once at start.  Texts point into the
 * environment; a variable without a value has its default (0 or NULL when
 * it has none). */
struct gt_env {
    int mode;     /* enum gt_mode */
    int log;      /* enum gt_log_level */
    int watchdog; /* enum gt_watchdog */
    int guard;    /* 0 off, 1 on */
    int strict_device; /* 1: only this device's cache entries */
    uint64_t jobs; /* 0: the processors */
    uint64_t seed;
    uint64_t path_ns; /* host ns a launch of the shim's path is charged; 0: measured */
    double budget; /* seconds of tuning for the whole process; 0: no bound */
    const char *log_file, *policy, *force, *cache_dir, *report, *set, *trials, *cache_file, *cache_path,
        *plots;
    unsigned char origin[GT_ENV_COUNT]; /* enum gt_env_origin */
    const char *text[GT_ENV_COUNT];     /* the environment's text, NULL when unset or empty */
};

void gt_env_parse(struct gt_env *e, char *const *envp);
int gt_env_check(const struct gt_env *e, char *const *envp, void (*say)(const char *msg));
const struct gt_env_var *gt_env_var(enum gt_env_id id);
const char *gt_env_word(enum gt_env_id id, int value);
const char *gt_env_shown(const struct gt_env *e, enum gt_env_id id);
const char *gt_env_origin_name(enum gt_env_origin origin);
void gt_env_accepts(enum gt_env_id id, char *buf, size_t len);

#endif
