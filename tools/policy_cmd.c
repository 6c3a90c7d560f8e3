/* policy_cmd.c: `gputune policy check FILE...` and `gputune space FILE KERNEL`.
 *
 *   policy check  validates policy files; prints each kernel section's space
 *                 size after and before constraints; errors go to stderr as
 *                 file:line:col: message.  Exit 0 valid, 1 errors, 2 a file
 *                 could not be read (or bad usage).
 *   space         lists the configurations of the section that selects a
 *                 kernel (the automatic space if none does), one per line in
 *                 enumeration order; --count prints their number. */
#include "policy_cmd.h"

#include "../policy/policy.h"
#include "demangle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VISITS 100000000u /* partial configurations a count may visit */

static const char policy_usage[] =
    "usage: gputune policy check [--arch sm_NN] FILE...\n"
    "  Validates policy files and prints, per [kernel] section, the number of\n"
    "  configurations after and before constraints (for sm_90 unless --arch).\n";

static const char space_usage[] =
    "usage: gputune space [OPTIONS] FILE KERNEL\n"
    "  Lists the configurations of the section of FILE that selects KERNEL\n"
    "  (mangled or demangled), or of the automatic space if none does.\n"
    "  --count            print only how many there are\n"
    "  --arch sm_NN       architecture for `auto` values (default sm_90)\n"
    "  --no-ptx           the kernel has SASS only: JIT knobs stay at their default\n"
    "  --grid X[,Y[,Z]]   --block X[,Y[,Z]]   --smem BYTES\n"
    "  --arg POS=VALUE | --arg NAME=VALUE\n"
    "                     a launch: constraints that read orig.* or arguments apply\n"
    "  --geometry         append each configuration's grid, block and smem\n";

static void print_diags(const struct gt_diags *d, size_t from)
{
    for (size_t i = from; i < d->n; i++) {
        char line[1024];
        gt_diag_format(&d->v[i], line, sizeof line);
        fprintf(stderr, "%s\n", line);
    }
}

static int parse_arch(const char *s, struct gt_arch *a)
{
    char *end;
    if (strncmp(s, "sm_", 3) == 0)
        s += 3;
    long sm = strtol(s, &end, 10);
    if (*end || sm < 10 || sm > 1000)
        return -1;
    if (gt_arch_for_sm((int)sm, a) < 0)
        fprintf(stderr, "gputune: sm_%ld is not known; using sm_90's limits\n", sm);
    return 0;
}

/* The first evaluation failure met while enumerating, as a located message. */
static void report_fault(const struct gt_space *s, const struct gt_space_iter *it, struct gt_diags *d)
{
    if (!it->failures)
        return;
    const struct gt_expr *e = s->cons[it->fault.con].e;
    char why[256], cfg[1024];
    gt_expr_error_text(e, &it->fault.err, why, sizeof why);
    gt_space_format(s, it->fault_cfg, cfg, sizeof cfg);
    gt_diags_add(d, gt_expr_error_loc(e, &it->fault.err), "%s (with %s)%s", why, cfg,
                 it->failures > 1 ? "; more configurations fail the same way" : "");
}

/* One line per kernel section; messages about the spaces join d. */
static void summarize(const struct gt_policy *p, const struct gt_arch *a, struct gt_diags *d, FILE *out)
{
    for (size_t i = 0; i < p->nsections; i++) {
        const struct gt_section *sec = p->sections[i];
        fprintf(out, "%s:%d: kernel \"%s\": ", sec->loc.file, sec->loc.line, sec->pattern);
        if (sec->set.tune == 0) {
            fprintf(out, "not tuned (tune = no)\n");
            continue;
        }
        struct gt_space *s = gt_policy_space(sec, a, 0, d);
        if (!s) {
            fprintf(out, "no space\n");
            continue;
        }
        struct gt_space_iter it;
        uint64_t count = 0;
        enum gt_rc r = gt_space_iter_init(&it, s, NULL) < 0 ? GT_FAILED : gt_space_count(&it, MAX_VISITS, &count);
        if (r == GT_TOO_LARGE)
            fprintf(out, "%llu configurations before constraints, too many to count after them\n",
                    (unsigned long long)s->size);
        else
            fprintf(out, "%llu configuration%s (%llu before constraints)", (unsigned long long)count,
                    count == 1 ? "" : "s", (unsigned long long)s->size);
        size_t nl = gt_space_launch_constraints(s);
        if (r != GT_TOO_LARGE && nl)
            fprintf(out, ", %zu constraint%s checked at launch", nl, nl == 1 ? "" : "s");
        if (r != GT_TOO_LARGE)
            fputc('\n', out);
        if (r == GT_OK)
            report_fault(s, &it, d);
        gt_space_iter_clear(&it);
        gt_space_free(s);
    }
}

/* Checks one file: 0 valid, 1 errors, 2 unreadable. */
static int check_file(const char *path, const struct gt_arch *a)
{
    struct gt_policy *p = gt_policy_new();
    struct gt_diags d = {0};
    if (!p) {
        fprintf(stderr, "%s: out of memory\n", path);
        return 2;
    }
    int r = gt_policy_load_file(p, path, &d);
    int rc = r < 0 ? 2 : r > 0 ? 1 : 0;
    if (rc == 0) {
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        if (out) {
            if (p->nsections == 0)
                fprintf(out, "%s: no [kernel] sections\n", path);
            summarize(p, a, &d, out);
            fclose(out);
        }
        gt_diags_sort(&d);
        if (d.n)
            rc = 1;
        else if (text)
            fputs(text, stdout);
        free(text);
    }
    print_diags(&d, 0);
    gt_diags_clear(&d);
    gt_policy_free(p);
    return rc;
}

int gt_cmd_policy(int argc, char **argv)
{
    struct gt_arch a;
    gt_arch_for_sm(90, &a);
    int i = 1;
    if (i < argc && (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)) {
        fputs(policy_usage, stdout);
        return 0;
    }
    if (i >= argc || strcmp(argv[i], "check") != 0) {
        fputs(policy_usage, stderr);
        return 2;
    }
    for (i++; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (strcmp(argv[i], "--arch") == 0 && i + 1 < argc && parse_arch(argv[i + 1], &a) == 0) {
            i++;
        } else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else {
            fprintf(stderr, "gputune policy check: bad option '%s'\n%s", argv[i], policy_usage);
            return 2;
        }
    }
    if (i >= argc) {
        fputs(policy_usage, stderr);
        return 2;
    }
    int worst = 0;
    for (; i < argc; i++) {
        int r = check_file(argv[i], &a);
        worst = r > worst ? r : worst;
    }
    return worst;
}

/* ---- gputune space ---- */

struct space_opts {
    int count, geometry, no_ptx, have_launch;
    struct gt_arch arch;
    struct gt_launch launch;
    int64_t argv_vals[64];
    unsigned char arg_ok[64];
    int maxpos;
    char *names[32];
    int64_t name_vals[32];
    int nnames;
    int argpos[32];
    const char *file, *kernel;
};

static int triple_opt(const char *s, int64_t *v)
{
    v[0] = v[1] = v[2] = 1;
    for (int i = 0; i < 3; i++) {
        char *end;
        long long x = strtoll(s, &end, 10);
        if (end == s)
            return -1;
        v[i] = x;
        if (!*end)
            return 0;
        if (*end != ',')
            return -1;
        s = end + 1;
    }
    return -1;
}

static int arg_opt(struct space_opts *o, const char *s)
{
    const char *eq = strchr(s, '=');
    char *end;
    if (!eq || eq == s)
        return -1;
    long long v = strtoll(eq + 1, &end, 0);
    if (*end || end == eq + 1)
        return -1;
    const char *name = s;
    if (strncmp(s, "arg", 3) == 0 && (s[3] == '[' || (s[3] >= '0' && s[3] <= '9')))
        name = s + 3 + (s[3] == '[');
    if (name[0] >= '0' && name[0] <= '9') {
        long pos = strtol(name, &end, 10);
        if ((*end != '=' && !(*end == ']' && end[1] == '=')) || pos < 0 || pos >= 64)
            return -1;
        o->argv_vals[pos] = v;
        o->arg_ok[pos] = 1;
        if (pos + 1 > o->maxpos)
            o->maxpos = (int)pos + 1;
        return 0;
    }
    if (strncmp(name, "arg.", 4) == 0)
        name += 4;
    if (o->nnames == 32)
        return -1;
    o->names[o->nnames] = strndup(name, (size_t)(eq - name));
    o->name_vals[o->nnames++] = v;
    return 0;
}

static int space_options(int argc, char **argv, struct space_opts *o)
{
    gt_arch_for_sm(90, &o->arch);
    for (int i = 0; i < GT_ORIG_N; i++)
        o->launch.orig[i] = i == GT_ORIG_SMEM ? 0 : 1;
    int pos = 0;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1;
        if (strcmp(s, "--count") == 0)
            o->count = 1;
        else if (strcmp(s, "--geometry") == 0)
            o->geometry = 1;
        else if (strcmp(s, "--no-ptx") == 0)
            o->no_ptx = 1;
        else if (strcmp(s, "--arch") == 0 && next)
            ok = parse_arch(argv[++i], &o->arch) == 0;
        else if (strcmp(s, "--grid") == 0 && next)
            ok = triple_opt(argv[++i], o->launch.orig + GT_ORIG_GRID_X) == 0, o->have_launch = 1;
        else if (strcmp(s, "--block") == 0 && next)
            ok = triple_opt(argv[++i], o->launch.orig + GT_ORIG_BLOCK_X) == 0, o->have_launch = 1;
        else if (strcmp(s, "--smem") == 0 && next) {
            char *end;
            o->launch.orig[GT_ORIG_SMEM] = strtoll(argv[++i], &end, 0);
            ok = !*end && end != argv[i];
            o->have_launch = 1;
        } else if (strcmp(s, "--arg") == 0 && next)
            ok = arg_opt(o, argv[++i]) == 0, o->have_launch = 1;
        else if (s[0] == '-' && s[1])
            ok = 0;
        else if (pos == 0)
            o->file = s, pos++;
        else if (pos == 1)
            o->kernel = s, pos++;
        else
            ok = 0;
        if (!ok) {
            fprintf(stderr, "gputune space: bad argument '%s'\n%s", s, space_usage);
            return -1;
        }
    }
    if (pos != 2) {
        fputs(space_usage, stderr);
        return -1;
    }
    return 0;
}

/* The launch the options describe, with arg.NAME resolved through the
 * section's names: named values are stored after the positional ones. */
static const struct gt_launch *make_launch(struct space_opts *o, const struct gt_section *sec)
{
    if (!o->have_launch)
        return NULL;
    int n = o->maxpos;
    size_t names = sec ? sec->argnames.n : 0;
    for (size_t j = 0; j < names && j < 32; j++) {
        o->argpos[j] = -1;
        for (int k = 0; k < o->nnames && n < 64; k++)
            if (strcmp(o->names[k], sec->argnames.v[j]) == 0) {
                o->argv_vals[n] = o->name_vals[k];
                o->arg_ok[n] = 1;
                o->argpos[j] = n++;
                break;
            }
    }
    o->launch.nargs = n;
    o->launch.args = o->argv_vals;
    o->launch.arg_ok = o->arg_ok;
    o->launch.argpos = o->argpos;
    o->launch.nargpos = names < 32 ? names : 32;
    return &o->launch;
}

static void print_geometry(const struct gt_section *sec, const struct gt_space *s, const uint32_t *cfg,
                           const struct gt_launch *l, const struct gt_arch *a, FILE *out)
{
    struct gt_launch plain = {.orig = {1, 1, 1, 1, 1, 1, 0}};
    struct gt_geometry g;
    char err[512];
    if (!sec) {
        l = l ? l : &plain;
        g = (struct gt_geometry){{l->orig[0], l->orig[1], l->orig[2]}, {l->orig[3], l->orig[4], l->orig[5]}, l->orig[6]};
    } else if (gt_policy_geometry(sec, s, cfg, l ? l : &plain, a, &g, err, sizeof err) < 0) {
        fprintf(out, "  geometry: %s", err);
        return;
    }
    fprintf(out, "  grid=%lld,%lld,%lld block=%lld,%lld,%lld smem=%lld", (long long)g.grid[0], (long long)g.grid[1],
            (long long)g.grid[2], (long long)g.block[0], (long long)g.block[1], (long long)g.block[2],
            (long long)g.smem);
}

static int list_space(const struct space_opts *o, const struct gt_section *sec, const struct gt_space *s,
                      const struct gt_launch *l, struct gt_diags *d)
{
    struct gt_space_iter it;
    if (gt_space_iter_init(&it, s, l) < 0) {
        fprintf(stderr, "gputune space: out of memory\n");
        return 1;
    }
    size_t nl = gt_space_launch_constraints(s);
    if (!l && nl)
        fprintf(stderr, "note: %zu constraint%s read%s the launch and %s not applied; give --grid, --block, "
                "--smem or --arg to apply them\n", nl, nl == 1 ? "" : "s", nl == 1 ? "s" : "", nl == 1 ? "is" : "are");
    uint64_t count = 0;
    if (o->count) {
        if (gt_space_count(&it, 0, &count) == GT_OK)
            printf("%llu\n", (unsigned long long)count);
    } else {
        size_t cap = 256;
        char *buf = malloc(cap);
        while (buf && gt_space_iter_next(&it) == 1) {
            int need = gt_space_format(s, it.cfg, buf, cap);
            if (need >= 0 && (size_t)need >= cap) {
                char *nb = realloc(buf, (size_t)need + 1);
                if (!nb)
                    break;
                buf = nb;
                cap = (size_t)need + 1;
                gt_space_format(s, it.cfg, buf, cap);
            }
            fputs(s->ndims ? buf : "(no dimensions)", stdout);
            if (o->geometry)
                print_geometry(sec, s, it.cfg, l, &o->arch, stdout);
            fputc('\n', stdout);
        }
        free(buf);
    }
    report_fault(s, &it, d);
    gt_space_iter_clear(&it);
    return 0;
}

static int space_main(struct space_opts *o)
{
    struct gt_policy *p = gt_policy_new();
    struct gt_diags d = {0};
    if (!p)
        return 2;
    int r = gt_policy_load_file(p, o->file, &d);
    int rc = r < 0 ? 2 : r > 0 ? 1 : 0;
    if (rc == 0) {
        char *dem = gt_demangle(o->kernel);
        const struct gt_section *sec = gt_policy_find(p, o->kernel, dem);
        struct gt_space *s = NULL;
        if (sec && sec->set.tune == 0) {
            fprintf(stderr, "%s:%d: kernel \"%s\" selects %s and says tune = no\n", sec->loc.file, sec->loc.line,
                    sec->pattern, o->kernel);
        } else if (!sec && p->unnamed.unnamed == 0) {
            fprintf(stderr, "%s: no section selects %s, and [defaults] says unnamed = skip\n", o->file, o->kernel);
        } else if (!sec) {
            fprintf(stderr, "%s: no section selects %s: its automatic space%s\n", o->file, o->kernel,
                    o->no_ptx ? " without PTX" : "");
            s = gt_space_auto(&o->arch, !o->no_ptx, &d);
        } else {
            s = gt_policy_space(sec, &o->arch, o->no_ptx && !sec->source ? GT_SPACE_NO_JIT : 0, &d);
        }
        if (s)
            list_space(o, sec, s, make_launch(o, sec), &d);
        if (d.n)
            rc = 1;
        gt_space_free(s);
        free(dem);
    }
    gt_diags_sort(&d);
    print_diags(&d, 0);
    gt_diags_clear(&d);
    gt_policy_free(p);
    return rc;
}

int gt_cmd_space(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(space_usage, stdout);
        return 0;
    }
    struct space_opts o = {0};
    int rc = space_options(argc, argv, &o) < 0 ? 2 : space_main(&o);
    for (int i = 0; i < o.nnames; i++)
        free(o.names[i]);
    return rc;
}
