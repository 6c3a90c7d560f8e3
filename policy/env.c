/* env.c: the GPUTUNE_* environment variables, declared once.
 *
 * One table, in the manner of NCCL's NCCL_PARAM and Redis's
 * static_configs[], says for every variable the library and the gputune
 * tool read: its name, what it accepts, its default and what it means.
 * gt_env_parse() reads them all at once into a plain struct that the rest
 * of the code reads; nothing else calls getenv for a GPUTUNE_* variable.
 * Parsing is silent, so that the caller can first set up the log the
 * values describe; gt_env_check() then names each refused value once, with
 * what is accepted and the default used, and each GPUTUNE_* variable the
 * table does not know (a typo) with the nearest known name.  Unset and
 * empty are the same: the default, silently. */
#include "env.h"

#include "diag.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char prefix[] = "GPUTUNE_";

#define FIELD(f) offsetof(struct gt_env, f)
#define WORDS(...) (const char *const[]){__VA_ARGS__, NULL}

static const struct gt_env_var vars[GT_ENV_COUNT] = {
    [GT_ENV_MODE] = {"GPUTUNE_MODE", GT_ENV_ENUM, FIELD(mode), WORDS("off", "run", "tune", "retune", "online"),
                     .dflt = "run", .meaning = "off: pass-through; run: apply the cache file; tune: tune what it lacks; "
                                               "retune: tune everything again; online: tune launch-time knobs on "
                                               "the application's own launches"},
    [GT_ENV_LOG] = {"GPUTUNE_LOG", GT_ENV_ENUM, FIELD(log), WORDS("error", "warn", "info", "debug"), .dflt = "warn",
                    .meaning = "what the shim says: info adds the exit table, debug a line per kernel"},
    [GT_ENV_LOG_FILE] = {"GPUTUNE_LOG_FILE", GT_ENV_PATH, FIELD(log_file), .unset = "stderr",
                         .meaning = "where log lines are appended; %p in it becomes the process id"},
    [GT_ENV_POLICY] = {"GPUTUNE_POLICY", GT_ENV_TEXT, FIELD(policy), .unset = "none",
                       .meaning = "policy files separated by ':': which kernels to tune over which space"},
    [GT_ENV_FORCE] = {"GPUTUNE_FORCE", GT_ENV_TEXT, FIELD(force), .unset = "none",
                      .meaning = "GLOB CONFIG[; GLOB CONFIG...]: run the kernels GLOB selects with CONFIG"},
    [GT_ENV_CACHE_DIR] = {"GPUTUNE_CACHE_DIR", GT_ENV_PATH, FIELD(cache_dir),
                          .unset = "$XDG_CACHE_HOME/gputune, else ~/.cache/gputune",
                          .meaning = "where cache files and compiled variants are kept"},
    [GT_ENV_JOBS] = {"GPUTUNE_JOBS", GT_ENV_INT, FIELD(jobs), .min = 1, .max = 1024,
                     .unset = "the processors this process may use", .meaning = "threads that compile variants"},
    [GT_ENV_SEED] = {"GPUTUNE_SEED", GT_ENV_INT, FIELD(seed), .max = UINT64_MAX, .dflt = "0x853c49e6748fea9b",
                     .meaning = "seed of the random search strategies, mixed with each kernel and signature"},
    [GT_ENV_REPORT] = {"GPUTUNE_REPORT", GT_ENV_PATH, FIELD(report), .unset = "none",
                       .meaning = "a CSV of every signature tuned in the run, written at exit; %p in it becomes "
                                  "the process id"},
    [GT_ENV_WATCHDOG] = {"GPUTUNE_WATCHDOG", GT_ENV_ENUM, FIELD(watchdog), WORDS("off", "entry", "loops"),
                         .dflt = "loops", .meaning = "how trials far slower than the best are cut short"},
    [GT_ENV_GUARD] = {"GPUTUNE_GUARD", GT_ENV_ENUM, FIELD(guard), WORDS("off", "on"), .dflt = "on",
                      .meaning = "check applied configurations against the original on the application's launches"},
    [GT_ENV_SET] = {"GPUTUNE_SET", GT_ENV_TEXT, FIELD(set), .unset = "none",
                    .meaning = "KEY=VALUE ...: settings over every policy file's"},
    [GT_ENV_TRIALS] = {"GPUTUNE_TRIALS", GT_ENV_PATH, FIELD(trials), .unset = "none",
                       .meaning = "every trial of tune mode appended to this CSV; %p in it becomes the process id"},
    [GT_ENV_CACHE_FILE] = {"GPUTUNE_CACHE_FILE", GT_ENV_PATH, FIELD(cache_file),
                           .unset = "named after the program, in GPUTUNE_CACHE_DIR",
                           .meaning = "the cache file this process reads and writes"},
    [GT_ENV_CACHE_PATH] = {"GPUTUNE_CACHE_PATH", GT_ENV_TEXT, FIELD(cache_path), .unset = "none",
                           .meaning = "more cache files separated by ':', read after it and never written"},
    [GT_ENV_PLOTS] = {"GPUTUNE_PLOTS", GT_ENV_PATH, FIELD(plots), .unset = "none",
                      .meaning = "a directory, made if missing, where an SVG per signature tuned in the run is "
                                 "written at exit: the best time so far against the trials; %p in it becomes "
                                 "the process id"},
    [GT_ENV_STRICT_DEVICE] = {"GPUTUNE_STRICT_DEVICE", GT_ENV_ENUM, FIELD(strict_device), WORDS("0", "1"),
                              .dflt = "0", .meaning = "1: use only cache entries tuned on this device; 0: also "
                                                      "those of another device of its architecture, with a warning"},
    [GT_ENV_BUDGET] = {"GPUTUNE_BUDGET", GT_ENV_SECONDS, FIELD(budget), .max = 1000000, .unset = "no bound",
                       .meaning = "seconds of tuning for the whole process, hottest signatures first"},
    [GT_ENV_PATH_NS] = {"GPUTUNE_PATH_NS", GT_ENV_INT, FIELD(path_ns), .min = 1, .max = 1000000,
                        .unset = "measured in the process, at least 60",
                        .meaning = "host ns a launch that run mode's path is charged, against which the guard "
                                   "weighs what kept configurations saved"},
};

const struct gt_env_var *gt_env_var(enum gt_env_id id)
{
    return &vars[id];
}

const char *gt_env_word(enum gt_env_id id, int value)
{
    return vars[id].words[value];
}

/* A decimal or 0x integer with nothing around it: no sign, no blanks, no
 * trailing text. */
static int parse_int(const char *s, const struct gt_env_var *v, uint64_t *out)
{
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    char *end;
    if (!isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    unsigned long long n = strtoull(s, &end, hex ? 16 : 10);
    if (*end || errno == ERANGE || n < v->min || n > v->max)
        return -1;
    *out = n;
    return 0;
}

/* Stores text as v's value; leaves it alone and returns -1 when v does not
 * accept it. */
static int take(struct gt_env *e, const struct gt_env_var *v, const char *text)
{
    char *field = (char *)e + v->at;
    switch (v->kind) {
    case GT_ENV_ENUM:
        for (int i = 0; v->words[i]; i++)
            if (strcmp(text, v->words[i]) == 0) {
                memcpy(field, &i, sizeof i);
                return 0;
            }
        return -1;
    case GT_ENV_INT: {
        uint64_t n;
        if (parse_int(text, v, &n) != 0)
            return -1;
        memcpy(field, &n, sizeof n);
        return 0;
    }
    case GT_ENV_SECONDS: {
        char *end;
        double s = isdigit((unsigned char)text[0]) || text[0] == '.' ? strtod(text, &end) : -1;
        if (s <= 0 || *end || !(s <= (double)v->max))
            return -1;
        memcpy(field, &s, sizeof s);
        return 0;
    }
    case GT_ENV_PATH:
    case GT_ENV_TEXT:
        memcpy(field, &text, sizeof text);
        return 0;
    }
    return -1;
}

static const char *lookup(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (char *const *p = envp; p && *p; p++)
        if (strncmp(*p, name, n) == 0 && (*p)[n] == '=')
            return *p + n + 1;
    return NULL;
}

void gt_env_parse(struct gt_env *e, char *const *envp)
{
    int saved_errno = errno;
    memset(e, 0, sizeof *e);
    for (int id = 0; id < GT_ENV_COUNT; id++) {
        const struct gt_env_var *v = &vars[id];
        const char *text = lookup(envp, v->name);
        if (v->dflt)
            take(e, v, v->dflt); /* tests/test_env.c checks that every default is taken */
        if (!text || !*text)
            continue;
        e->text[id] = text;
        e->origin[id] = take(e, v, text) == 0 ? GT_ENV_GIVEN : GT_ENV_REFUSED;
    }
    errno = saved_errno;
}

void gt_env_accepts(enum gt_env_id id, char *buf, size_t len)
{
    const struct gt_env_var *v = &vars[id];
    size_t n;
    switch (v->kind) {
    case GT_ENV_ENUM:
        n = (size_t)snprintf(buf, len, "one of ");
        for (int i = 0; v->words[i] && n < len; i++)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", v->words[i]);
        break;
    case GT_ENV_INT:
        snprintf(buf, len, "an integer from %llu to %llu", (unsigned long long)v->min, (unsigned long long)v->max);
        break;
    case GT_ENV_SECONDS:
        snprintf(buf, len, "a number of seconds over 0, up to %llu", (unsigned long long)v->max);
        break;
    case GT_ENV_PATH:
        snprintf(buf, len, "a path");
        break;
    case GT_ENV_TEXT:
        snprintf(buf, len, "text");
        break;
    }
}

const char *gt_env_shown(const struct gt_env *e, enum gt_env_id id)
{
    if (e->origin[id] == GT_ENV_GIVEN)
        return e->text[id];
    return vars[id].dflt ? vars[id].dflt : vars[id].unset;
}

const char *gt_env_origin_name(enum gt_env_origin origin)
{
    static const char *const names[] = {"default", "env", "env refused, default"};
    return names[origin];
}

/* Says entry (NAME=VALUE) when the table does not know its name, with the
 * known name nearest to it if one is near; returns 1 if it did. */
static int check_unknown(const char *entry, void (*say)(const char *msg))
{
    const char *eq = strchr(entry, '=');
    char name[128], msg[512];
    snprintf(name, sizeof name, "%.*s", (int)(eq ? eq - entry : (ptrdiff_t)strlen(entry)), entry);
    const char *names[GT_ENV_COUNT];
    for (int id = 0; id < GT_ENV_COUNT; id++) {
        if (strcmp(name, vars[id].name) == 0)
            return 0;
        names[id] = vars[id].name;
    }
    const char *near = gt_nearest(name, names, GT_ENV_COUNT);
    if (near)
        snprintf(msg, sizeof msg, "%s is not a variable of libgputune and is ignored; did you mean %s?", name, near);
    else
        snprintf(msg, sizeof msg, "%s is not a variable of libgputune and is ignored (gputune env lists them)", name);
    say(msg);
    return 1;
}

int gt_env_check(const struct gt_env *e, char *const *envp, void (*say)(const char *msg))
{
    int problems = 0;
    for (int id = 0; id < GT_ENV_COUNT; id++) {
        if (e->origin[id] != GT_ENV_REFUSED)
            continue;
        char accepts[256], msg[1024];
        gt_env_accepts((enum gt_env_id)id, accepts, sizeof accepts);
        snprintf(msg, sizeof msg, "%s=%s is not %s; using %s", vars[id].name, e->text[id], accepts,
                 gt_env_shown(e, (enum gt_env_id)id));
        say(msg);
        problems++;
    }
    for (char *const *p = envp; p && *p; p++)
        if (strncmp(*p, prefix, sizeof prefix - 1) == 0)
            problems += check_unknown(*p, say);
    return problems;
}
