/* test_env: the table of GPUTUNE_* variables (shim/env.c): every default is
 * a value its variable accepts, enum words in the order of the enums that
 * read them, integers refused whole (non-numbers, signs, blanks, trailing
 * text, out of range), refused and unknown variables named once each, and
 * unset or empty silently the default. */
#include "env.h"
#include "log.h"
#include "state.h"
#include "../policy/policy.h"
#include "tap.h"

static char said[8][512];
static int nsaid;

static void collect(const char *msg)
{
    if (nsaid < 8)
        snprintf(said[nsaid], sizeof said[nsaid], "%s", msg);
    nsaid++;
}

/* Parses the one entry "NAME=text" and collects what would be said about it. */
static void parse_one(struct gt_env *e, const char *entry)
{
    char *envp[] = {(char *)entry, NULL};
    gt_env_parse(e, envp);
    nsaid = 0;
    gt_env_check(e, envp, collect);
}

static void defaults(void)
{
    struct gt_env e;
    char *none[] = {NULL};
    gt_env_parse(&e, none);
    int all_default = 1;
    for (int id = 0; id < GT_ENV_COUNT; id++)
        all_default &= e.origin[id] == GT_ENV_DEFAULT && !e.text[id];
    ok(all_default, "an empty environment: every variable has its default");
    is_int(e.mode, GT_MODE_RUN, "  run mode");
    is_int(e.log, GT_LOG_WARN, "  warnings logged");
    is_int(e.watchdog, GT_WATCHDOG_LOOPS, "  the watchdog on loops");
    is_int(e.guard, 1, "  the guard on");
    is_int(e.jobs, 0, "  jobs 0: the processors");
    ok(e.seed == 0x853c49e6748fea9bULL, "  the fixed seed");
    ok(!e.log_file && !e.policy && !e.force && !e.cache_dir && !e.report && !e.set && !e.trials, "  no texts");
    is_int(gt_env_check(&e, NULL, collect), 0, "  nothing to say, even without an environment");
    for (int id = 0; id < GT_ENV_COUNT; id++) {
        const struct gt_env_var *v = gt_env_var(id);
        char entry[128];
        if (!v->dflt) {
            ok(v->unset && v->unset[0], "%s: says what having no value means", v->name);
            continue;
        }
        snprintf(entry, sizeof entry, "%s=%s", v->name, v->dflt);
        parse_one(&e, entry);
        ok(e.origin[id] == GT_ENV_GIVEN && nsaid == 0, "%s: its default %s is a value it accepts", v->name, v->dflt);
    }
}

static void words(void)
{
    is_str(gt_env_word(GT_ENV_MODE, GT_MODE_TUNE), "tune", "GPUTUNE_MODE's words in the order of enum gt_mode");
    is_str(gt_env_word(GT_ENV_MODE, GT_MODE_ONLINE), "online", "  to its end");
    is_str(gt_env_word(GT_ENV_LOG, GT_LOG_DEBUG), "debug", "GPUTUNE_LOG's in the order of enum gt_log_level");
    is_str(gt_env_word(GT_ENV_WATCHDOG, GT_WATCHDOG_ENTRY), "entry", "GPUTUNE_WATCHDOG's in that of enum gt_watchdog");
    is_str(gt_env_word(GT_ENV_GUARD, 1), "on", "GPUTUNE_GUARD: off, on");
    struct gt_env e;
    parse_one(&e, "GPUTUNE_MODE=retune");
    ok(e.mode == GT_MODE_RETUNE && e.origin[GT_ENV_MODE] == GT_ENV_GIVEN && nsaid == 0, "a word is taken");
    parse_one(&e, "GPUTUNE_MODE=Tune");
    ok(e.mode == GT_MODE_RUN && e.origin[GT_ENV_MODE] == GT_ENV_REFUSED, "another is refused: the default");
    is_int(nsaid, 1, "  said once");
    is_str(said[0], "GPUTUNE_MODE=Tune is not one of off, run, tune, retune, online; using run", "  with what it accepts");
}

static void integers(void)
{
    static const struct {
        const char *entry;
        int taken;
        unsigned long long value;
    } cases[] = {
        {"GPUTUNE_JOBS=4", 1, 4},
        {"GPUTUNE_JOBS=1024", 1, 1024},
        {"GPUTUNE_JOBS=0x10", 1, 16},
        {"GPUTUNE_JOBS=abc", 0, 0},
        {"GPUTUNE_JOBS=4x", 0, 0},
        {"GPUTUNE_JOBS= 4", 0, 0},
        {"GPUTUNE_JOBS=+4", 0, 0},
        {"GPUTUNE_JOBS=-1", 0, 0},
        {"GPUTUNE_JOBS=0", 0, 0},
        {"GPUTUNE_JOBS=1025", 0, 0},
        {"GPUTUNE_JOBS=0x", 0, 0},
        {"GPUTUNE_JOBS=0x0x5", 0, 0},
        {"GPUTUNE_JOBS=4.5", 0, 0},
        {"GPUTUNE_SEED=18446744073709551615", 1, 18446744073709551615ULL},
        {"GPUTUNE_SEED=0", 1, 0},
        {"GPUTUNE_SEED=18446744073709551616", 0, 0x853c49e6748fea9bULL},
        {"GPUTUNE_SEED=12abc", 0, 0x853c49e6748fea9bULL},
        {"GPUTUNE_SEED=-1", 0, 0x853c49e6748fea9bULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct gt_env e;
        parse_one(&e, cases[i].entry);
        int seed = strncmp(cases[i].entry, "GPUTUNE_SEED", 12) == 0;
        enum gt_env_id id = seed ? GT_ENV_SEED : GT_ENV_JOBS;
        uint64_t got = seed ? e.seed : e.jobs;
        ok(e.origin[id] == (cases[i].taken ? GT_ENV_GIVEN : GT_ENV_REFUSED) && got == cases[i].value &&
               nsaid == !cases[i].taken,
           "%s: %s", cases[i].entry, cases[i].taken ? "taken" : "refused, said once, the default kept");
    }
    struct gt_env e;
    parse_one(&e, "GPUTUNE_JOBS=4x");
    is_str(said[0], "GPUTUNE_JOBS=4x is not an integer from 1 to 1024; using the processors this process may use",
           "the message names the variable, the range and what is used");
    is_str(gt_env_shown(&e, GT_ENV_JOBS), "the processors this process may use", "  as gputune env shows it");
    is_str(gt_env_origin_name(e.origin[GT_ENV_JOBS]), "env refused, default", "  with its origin");
}

static void texts_and_names(void)
{
    struct gt_env e;
    char *envp[] = {"GPUTUNE_REPORT=/tmp/r.csv", "GPUTUNE_POLICY=", "GPUTUNE_MOED=tune", "HOME=/x",
                    "GPUTUNE_VERBOSE=1", "GPUTUNE_SEED=7", NULL};
    gt_env_parse(&e, envp);
    is_str(e.report, "/tmp/r.csv", "a path is taken as it is");
    is_str(gt_env_shown(&e, GT_ENV_REPORT), "/tmp/r.csv", "  and shown");
    ok(!e.policy && e.origin[GT_ENV_POLICY] == GT_ENV_DEFAULT, "empty is unset, silently");
    nsaid = 0;
    is_int(gt_env_check(&e, envp, collect), 2, "two unknown GPUTUNE_ variables, nothing else, are said");
    is_str(said[0], "GPUTUNE_MOED is not a variable of libgputune and is ignored; did you mean GPUTUNE_MODE?",
           "  a typo with the name nearest to it");
    is_str(said[1], "GPUTUNE_VERBOSE is not a variable of libgputune and is ignored (gputune env lists them)",
           "  a name near none");
    ok(e.seed == 7 && e.mode == GT_MODE_RUN, "  and neither changes a value");
}

int main(void)
{
    defaults();
    words();
    integers();
    texts_and_names();
    return done_testing();
}
