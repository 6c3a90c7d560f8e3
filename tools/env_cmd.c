/* env_cmd.c: `gputune env`, the GPUTUNE_* variables as libgputune reads them.
 *
 * Parses this process's environment with the library's own table (env.c)
 * and prints every variable: its value, where it came from (default, env,
 * or refused and so the default), what it accepts and what it means.  What
 * the library would warn about goes to stderr the same way, and makes the
 * exit status 1, so that a job script can check its environment first. */
#include "env_cmd.h"
#include "env.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void say_problem(const char *msg)
{
    fprintf(stderr, "gputune env: %s\n", msg);
}

int gt_cmd_env(int argc, char **argv)
{
    if (argc > 1) {
        int help = strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0;
        fputs("usage: gputune env\n  prints every GPUTUNE_* variable as libgputune reads it here\n",
              help ? stdout : stderr);
        return help ? 0 : 2;
    }
    struct gt_env e;
    gt_env_parse(&e, environ);
    for (int id = 0; id < GT_ENV_COUNT; id++) {
        const struct gt_env_var *v = gt_env_var(id);
        char accepts[256];
        gt_env_accepts(id, accepts, sizeof accepts);
        printf("%s = %s (%s)\n    %s; %s\n", v->name, gt_env_shown(&e, id), gt_env_origin_name(e.origin[id]), accepts,
               v->meaning);
    }
    fflush(stdout);
    return gt_env_check(&e, environ, say_problem) ? 1 : 0;
}
