/* replay: search strategies on recorded landscapes, on the CPU.
 *
 *   replay [OPTIONS] DIR
 *   replay [OPTIONS] POLICY KERNEL LANDSCAPE [POLICY KERNEL LANDSCAPE ...]
 *
 *   --runs N             seeded runs per strategy and landscape (default 50)
 *   --seed S             the seed each run's seed derives from (default 0x853c49e6748fea9b)
 *   --strategies a,b     these strategies only (random always runs: it is the reference)
 *   --budget-share F     a trial budget of F times the space (default 1: the whole space)
 *   --policies DIR       where DIR's policies are (default examples/suite)
 *   --t4 T4FILE T1FILE   also a Kernel Tuner landscape (T4 results, .json or .json.gz through
 *                        gzip -dc) with its space (T1: parameters, defaults, conditions)
 *   --max-trials N       a run's trial budget at most N
 *   --candidate NAME:KEY=VALUE,...
 *                        also strategy NAME with these parameters (strategy.KEY = VALUE), a row
 *                        of the table and a candidate for the leave-one-out choice
 *   --loo                then, per landscape, auto's choice made on the others (leave-one-out)
 *   --seconds S          each session's time budget too (budget.seconds), in simulated seconds, with
 *                        the pace the engine then gives the strategy (gt_strategy_width) and its
 *                        share for estimates (gt_strategy_may_estimate)
 *   --unpaced            with --seconds, no pace: the strategy's own steps
 *
 * DIR holds baselines.csv (kernel,us: the original's time per kernel) and
 * KERNEL.csv for each kernel it names, replayed in its order with the
 * policy POLICIES/KERNEL.ini.  A landscape is a GPUTUNE_TRIALS record of an
 * exhaustive session (columns configuration, outcome and us; build_s and
 * the estimates' columns instr, regions, threads, block_threads,
 * blocks_per_sm and regs optional; rows `estimated` give estimates only);
 * the original's time is the row of its kernel in the baselines.csv beside
 * it.
 *
 * Each strategy (every name of strategy.c's table, then auto) is driven as
 * shim/tune/session.c's search() drives it, with the policy's settings for
 * sm_90: batches of up to 16 proposals (-1: run what it has), each trial's
 * time read from the landscape, rows other than `ok` (and configurations
 * the landscape lacks) reported invalid, the watchdog simulated (a trial
 * slower than the policy's factor, default 2, times the best time so far
 * or the time the strategy measures it against, at least its floor, is
 * reported aborted at that deadline unless the strategy keeps it whole), estimates answered from the landscape's columns
 * (none where it has none), until the trial budget ends or the strategy
 * stops.  Runs repeat for a seed; each strategy runs in a child process,
 * so one that crashes or hangs (TIMEOUT_S) is reported and the others go on.
 *
 * Per landscape and strategy it prints the median number of trials after
 * which the best time so far (the original's at first) is within 90%, 95%
 * and 99% of the optimum's speed (optimum / best >= 0.95; '-' when fewer
 * than half the runs get there), as a share of the space too; the share of
 * runs that reach 95% within 2% of the space; the share that reach 98%
 * within the default budget, in sessions given that budget (one_run); whether its median to 95%
 * beats random's; the simulated tuning seconds to 95% (each batch costs its
 * slowest build, as builds overlap on 16 threads, then its trials their
 * times x (1 + timing.repeat, default 5) runs, a cut trial its deadline
 * once); the median trials run, the median variants estimated (built, not
 * run) and the median final speed.  Then a summary line per strategy.
 *
 * --loo then judges auto's choice, of a strategy and its parameters, by
 * leave-one-out: for each landscape, the row (not auto) that did best on
 * the others (met the bar on the most; ties: the higher mean share at 98%
 * within 64 trials, then the lower median trials to 95% as a share of the
 * space), and what it did on the one held out, which its choice never saw;
 * then the choice made on all of them, which auto's defaults should be.
 * Exit 0, 2 on
 * a bad argument or a landscape, baseline or policy that cannot be used. */
#include "arena.h"
#include "json.h"
#include "policy.h"
#include "strategy.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BATCH 16              /* proposals compiled ahead, as in shim/tune/session.c */
#define DEFAULT_REPEAT 5      /* timed runs of a trial after its first, as in shim/tune/session.c */
#define DEFAULT_SEED 0x853c49e6748fea9bULL
#define DEFAULT_WD_FACTOR 2.0
#define DEFAULT_WD_FLOOR_MS 0.1
#define SHARE_95 0.02         /* "within 2% of the space" */
#define GOAL_98 0.98          /* the share of runs at 98% of the optimum ... */
#define TRIALS_98 64          /* ... within the default budget of trials */
#define BAR_LARGE 1000        /* the bar's 98%-in-64 part holds for spaces larger than this */
#define MAX_STRATEGIES 64
#define MAX_LANDSCAPES 64
#define SPACE_LIMIT (1u << 24) /* configurations of a replayable space at most */
#define TIMEOUT_S 600         /* one strategy's runs on one landscape at most */
#define SHOW_MISSING 5
#define MAX_PARAMS 8          /* a candidate's parameters at most */
#define CANDIDATE_LEN 128     /* a candidate's text at most */

static const double goals[3] = {0.90, 0.95, 0.99};

enum row { ROW_MISSING, ROW_OK, ROW_INVALID };

struct landscape {
    const char *kernel, *policy, *csv;
    const char *t1;            /* a T4 landscape (csv: the T4 file) and its T1 space, else NULL */
    char *policy_text;         /* the T1 space as a policy section */
    size_t policy_len;
    const char *baseline_note; /* what stands for a T4 landscape's original */
    struct gt_policy *p;
    const struct gt_section *sec;
    struct gt_space *s;
    unsigned char *row;        /* per rank: enum row */
    double *us, *build_s;      /* per rank */
    struct gt_estimate *est;   /* per rank */
    unsigned char *has_est;    /* per rank */
    int have_build;
    uint64_t nvalid, default_rank, opt_rank;
    uint64_t missing, outside;        /* valid configurations it lacks; rows outside the space */
    uint64_t shown[SHOW_MISSING];     /* the first ones it lacks */
    double baseline, optimum;  /* optimum: the fastest ok time, or the baseline when faster */
    double wd_factor, wd_floor_us;
    int watchdog, runs_per_trial;
};

/* One run's outcome. */
struct run {
    long reach[3];   /* trials to each goal, -1: never */
    long reach98;    /* trials to 98% in a session of the default budget (one_run), -1: never */
    long trials, bad, estimates;
    double best_us, secs95;
};

/* What a child sends back before its runs. */
struct head {
    int ok;
    char name[32];   /* what ran: auto's choice */
    char err[256];
};

struct result {
    char name[CANDIDATE_LEN];
    struct head h;
    struct run *runs;
    char failed[128];  /* the child died: how */
};

static struct {
    long runs;
    uint64_t seed;
    double share;
    const char *policies;
    const char *only[MAX_STRATEGIES];
    size_t nonly;
    const char *cands[MAX_STRATEGIES];   /* --candidate */
    size_t ncands;
    const char *t4[MAX_LANDSCAPES][2]; /* --t4 T4FILE T1FILE */
    size_t nt4;
    int loo;
    long max_trials;
    double seconds; /* --seconds, 0: no time budget */
    int unpaced;
} opt = {50, DEFAULT_SEED, 1.0, "examples/suite", {0}, 0, {0}, 0, {{0}}, 0, 0, 0, 0, 0};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("replay: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        die("out of memory");
    return p;
}

/* ---- CSV ---- */

/* Splits line into at most max fields in place (quotes with "" escapes);
 * returns the count, or -1 for an unterminated quote. */
static int split_csv(char *line, char **f, int max)
{
    int n = 0;
    char *r = line, *w = line;
    line[strcspn(line, "\r\n")] = 0;
    for (;;) {
        if (n == max)
            return n;
        f[n++] = w;
        if (*r == '"') {
            for (r++;; r++) {
                if (!*r)
                    return -1;
                if (*r == '"' && r[1] != '"')
                    break;
                r += *r == '"';
                *w++ = *r;
            }
            r++;
        }
        while (*r && *r != ',')
            *w++ = *r++;
        int more = *r == ',';
        *w++ = 0;
        if (!more)
            return n;
        r++;
    }
}

/* The index of each named column in the header, -1 where absent. */
static void columns(char **f, int n, const char *const *names, int *col, int ncol)
{
    for (int c = 0; c < ncol; c++) {
        col[c] = -1;
        for (int i = 0; i < n; i++)
            if (!strcmp(f[i], names[c]))
                col[c] = i;
    }
}

static int parse_time(const char *t, double *v)
{
    char *end;
    *v = strtod(t, &end);
    return end != t && !*end && isfinite(*v) ? 0 : -1;
}

/* The original's time: kernel's row of the baselines.csv beside csv. */
static double read_baseline(const char *csv, const char *kernel)
{
    char path[4096], *line = NULL, *f[8];
    size_t cap = 0;
    const char *slash = strrchr(csv, '/');
    snprintf(path, sizeof path, "%.*sbaselines.csv", slash ? (int)(slash - csv + 1) : 0, csv);
    FILE *in = fopen(path, "r");
    if (!in)
        die("%s: cannot read: %s (the originals' times)", path, strerror(errno));
    static const char *const names[] = {"kernel", "us"};
    int col[2], lineno = 0;
    double us = -1;
    while (us < 0 && getline(&line, &cap, in) > 0) {
        int n = split_csv(line, f, 8);
        if (++lineno == 1) {
            columns(f, n, names, col, 2);
            if (col[0] < 0 || col[1] < 0)
                die("%s:1: expected the columns kernel,us", path);
        } else if (n > col[0] && n > col[1] && !strcmp(f[col[0]], kernel) &&
                   (parse_time(f[col[1]], &us) != 0 || us <= 0)) {
            die("%s:%d: '%s' is not a time in microseconds", path, lineno, f[col[1]]);
        }
    }
    free(line);
    fclose(in);
    if (us < 0)
        die("%s: no time for kernel %s", path, kernel);
    return us;
}

/* ---- landscapes ---- */

static void load_policy(struct landscape *L)
{
    struct gt_diags d = {0};
    struct gt_arch a;
    L->p = gt_policy_new();
    if (!L->p)
        die("out of memory");
    int rc = L->t1 ? gt_policy_load_string(L->p, L->t1, L->policy_text, L->policy_len, &d)
                   : gt_policy_load_file(L->p, L->policy, &d);
    if (rc == 0 && (L->sec = gt_policy_find(L->p, L->kernel, NULL)) && !L->sec->errors) {
        gt_arch_for_sm(90, &a);
        L->s = gt_policy_space(L->sec, &a, 0, &d);
    }
    for (size_t i = 0; i < d.n; i++) {
        char msg[1024];
        gt_diag_format(&d.v[i], msg, sizeof msg);
        fprintf(stderr, "replay: %s\n", msg);
    }
    gt_diags_clear(&d);
    if (rc == 0 && !L->sec)
        die("%s: no section selects kernel %s", L->policy, L->kernel);
    if (!L->s)
        exit(2);
    if (L->s->size > SPACE_LIMIT)
        die("%s: kernel %s: %llu configurations, more than a replay holds (%u)", L->policy, L->kernel,
            (unsigned long long)L->s->size, SPACE_LIMIT);
    const struct gt_settings *set = &L->sec->set;
    L->watchdog = set->watchdog != GT_WATCHDOG_OFF;
    L->wd_factor = set->watchdog_factor >= 1 ? set->watchdog_factor : DEFAULT_WD_FACTOR;
    L->wd_floor_us = (set->watchdog_floor_ms >= 0 ? set->watchdog_floor_ms : DEFAULT_WD_FLOOR_MS) * 1e3;
    L->runs_per_trial = 1 + (set->timing_repeat > 0 ? (set->timing_repeat < 64 ? (int)set->timing_repeat : 64)
                                                    : DEFAULT_REPEAT);
}

#define NCOLS 10   /* configuration, outcome, us, build_s, then the estimate's six */

/* The estimate's columns of a row (all empty: none): 1 and *e, 0 for none. */
static int load_estimate(const struct landscape *L, char **f, int n, const int *col, int lineno,
                         struct gt_estimate *e)
{
    double v[6];
    int empty = 0;
    for (int i = 0; i < 6; i++) {
        int c = col[4 + i];
        if (c < 0 || n <= c || !*f[c]) {
            empty++;
            continue;
        }
        char *end;
        v[i] = strtod(f[c], &end);
        if (end == f[c] || *end || !isfinite(v[i]) || v[i] < 0)
            die("%s:%d: '%s' is not a count", L->csv, lineno, f[c]);
    }
    if (empty == 6)
        return 0;
    if (empty)
        die("%s:%d: an estimate lacks some of instr, regions, threads, block_threads, blocks_per_sm, regs", L->csv,
            lineno);
    *e = (struct gt_estimate){.instr = v[0], .regions = v[1], .threads = v[2], .block_threads = (unsigned)v[3],
                              .blocks_per_sm = (int)v[4], .regs = (int)v[5]};
    return 1;
}

/* One row: its configuration's rank gets its outcome, times and estimate. */
static void load_row(struct landscape *L, char **f, int n, const int *col, int lineno, uint32_t *cfg)
{
    char err[512];
    size_t off;
    double us = -1, build = 0;
    for (int c = 0; c < 3; c++)
        if (n <= col[c])
            die("%s:%d: %d fields, expected at least %d", L->csv, lineno, n, col[c] + 1);
    if (gt_space_parse(L->s, f[col[0]], 0, cfg, err, sizeof err, &off) != 0)
        die("%s:%d: configuration '%s': %s", L->csv, lineno, f[col[0]], err);
    uint64_t r = gt_space_rank(L->s, cfg);
    struct gt_estimate e;
    if (load_estimate(L, f, n, col, lineno, &e)) {
        L->est[r] = e;
        L->has_est[r] = 1;
    }
    if (!strcmp(f[col[1]], "estimated"))
        return;
    int ok = !strcmp(f[col[1]], "ok");
    if (!ok && strcmp(f[col[1]], "invalid") && strcmp(f[col[1]], "failed") && strcmp(f[col[1]], "wrong") &&
        strcmp(f[col[1]], "cut"))
        die("%s:%d: outcome '%s': expected ok, invalid, failed, wrong, cut or estimated", L->csv, lineno,
            f[col[1]]);
    if (ok && (parse_time(f[col[2]], &us) != 0 || us <= 0))
        die("%s:%d: us '%s' is not a time in microseconds", L->csv, lineno, f[col[2]]);
    if (col[3] >= 0 && (n <= col[3] || parse_time(f[col[3]], &build) != 0))
        die("%s:%d: build_s '%s' is not a time in seconds", L->csv, lineno, n > col[3] ? f[col[3]] : "");
    if (L->row[r] != ROW_MISSING)
        die("%s:%d: configuration '%s' given twice", L->csv, lineno, f[col[0]]);
    L->row[r] = ok ? ROW_OK : ROW_INVALID;
    L->us[r] = us;
    L->build_s[r] = build > 0 ? build : 0;
}

static void load_landscape(struct landscape *L)
{
    static const char *const names[NCOLS] = {"configuration", "outcome",       "us",  "build_s",
                                             "instr",         "regions",       "threads", "block_threads",
                                             "blocks_per_sm", "regs"};
    char *line = NULL, *f[16];
    size_t cap = 0;
    int col[NCOLS], lineno = 0;
    FILE *in = fopen(L->csv, "r");
    if (!in)
        die("%s: cannot read: %s", L->csv, strerror(errno));
    L->row = xcalloc(L->s->size, 1);
    L->us = xcalloc(L->s->size, sizeof *L->us);
    L->build_s = xcalloc(L->s->size, sizeof *L->build_s);
    L->est = xcalloc(L->s->size, sizeof *L->est);
    L->has_est = xcalloc(L->s->size, 1);
    uint32_t *cfg = xcalloc(L->s->ndims + 1, sizeof *cfg);
    while (getline(&line, &cap, in) > 0) {
        int n = split_csv(line, f, 16);
        lineno++;
        if (n < 0)
            die("%s:%d: a quoted field does not end", L->csv, lineno);
        if (lineno > 1) {
            load_row(L, f, n, col, lineno, cfg);
            continue;
        }
        columns(f, n, names, col, NCOLS);
        for (int c = 0; c < 3; c++)
            if (col[c] < 0)
                die("%s:1: no '%s' column (expected kernel,signature,configuration,outcome,us,build_s)", L->csv,
                    names[c]);
        L->have_build = col[3] >= 0;
    }
    if (lineno < 2)
        die("%s: no trials", L->csv);
    free(cfg);
    free(line);
    fclose(in);
}

/* ---- T4 landscapes and T1 spaces (Kernel Tuner's formats) ---- */

/* The whole of path, NUL-terminated; a .gz file through `gzip -dc` (zlib is
 * not linked). */
static char *slurp(const char *path, size_t *len)
{
    size_t n = strlen(path), cap = 1 << 16, got = 0;
    int gz = n > 3 && !strcmp(path + n - 3, ".gz"), fd, p[2];
    pid_t pid = -1;
    if (access(path, R_OK) != 0)
        die("%s: cannot read: %s", path, strerror(errno));
    if (gz) {
        if (pipe(p) != 0)
            die("pipe: %s", strerror(errno));
        fflush(stdout);
        if ((pid = fork()) < 0)
            die("fork: %s", strerror(errno));
        if (pid == 0) {
            dup2(p[1], 1);
            close(p[0]);
            close(p[1]);
            execlp("gzip", "gzip", "-dc", "--", path, (char *)NULL);
            _exit(127);
        }
        close(p[1]);
        fd = p[0];
    } else if ((fd = open(path, O_RDONLY)) < 0) {
        die("%s: cannot read: %s", path, strerror(errno));
    }
    char *buf = xcalloc(cap, 1);
    for (;;) {
        if (got + 1 >= cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b)
                die("out of memory");
            buf = b;
        }
        ssize_t r = read(fd, buf + got, cap - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            die("%s: cannot read: %s", path, strerror(errno));
        if (r == 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (gz) {
        int status;
        waitpid(pid, &status, 0);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
            die("%s: cannot run gzip (not on PATH?): a .gz landscape is read through `gzip -dc`; "
                "decompress it first or install gzip", path);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            die("%s: gzip -dc failed", path);
    }
    buf[got] = 0;
    *len = got;
    return buf;
}

/* path parsed as JSON into a, or an error naming file and line. */
static const struct gt_json *read_json(const char *path, struct gt_arena *a, char **keep)
{
    size_t len;
    char err[512];
    char *text = slurp(path, &len);
    const struct gt_json *doc = gt_json_parse(a, text, len, err, sizeof err);
    if (!doc)
        die("%s: malformed JSON: %s", path, err);
    if (keep)
        *keep = text;
    else
        free(text);
    return doc;
}

static const struct gt_json *need(const char *path, const struct gt_json *obj, const char *key, enum gt_json_kind k,
                                  const char *what)
{
    const struct gt_json *v = gt_json_member(obj, key);
    if (!v || v->kind != k)
        die("%s: no %s (\"%s\")", path, what, key);
    return v;
}

/* A T1 condition, Python, as a policy expression.  Supported: integers,
 * the space's parameter names, + - * // % (// of non-negative values), unary -,
 * comparisons < <= > >= == != (chained too: a <= b <= c), and, or, not and
 * parentheses.  Anything else (/, **, calls, lists, `in`, strings, floats)
 * is refused with the condition and the word. */
struct pyx {
    const char *path, *src, *p;
    char *out;
    size_t len, cap;
    char tok[64]; /* the current token */
};

static void pyx_next(struct pyx *x)
{
    while (*x->p == ' ' || *x->p == '\t' || *x->p == '\n')
        x->p++;
    const char *s = x->p;
    if (!*s) {
        x->tok[0] = 0;
        return;
    }
    if (isalpha((unsigned char)*s) || *s == '_' || isdigit((unsigned char)*s)) {
        while (isalnum((unsigned char)*x->p) || *x->p == '_' || *x->p == '.')
            x->p++;
    } else {
        static const char *const two[] = {"<=", ">=", "==", "!=", "//", "**"};
        x->p++;
        for (size_t i = 0; i < sizeof two / sizeof *two; i++)
            if (!strncmp(s, two[i], 2))
                x->p = s + 2;
    }
    if ((size_t)(x->p - s) >= sizeof x->tok)
        die("%s: condition '%s': '%.*s' is too long a word", x->path, x->src, (int)(x->p - s), s);
    snprintf(x->tok, sizeof x->tok, "%.*s", (int)(x->p - s), s);
}

static void pyx_put(struct pyx *x, const char *s)
{
    size_t n = strlen(s);
    if (x->len + n + 1 > x->cap) {
        x->cap = 2 * (x->len + n + 1);
        char *o = realloc(x->out, x->cap);
        if (!o)
            die("out of memory");
        x->out = o;
    }
    memcpy(x->out + x->len, s, n + 1);
    x->len += n;
}

static void pyx_refuse(struct pyx *x, const char *why)
{
    die("%s: condition '%s': %s '%s' is not supported (T1 conditions may use integers, parameter names, "
        "+ - * // %%, comparisons, and, or, not, parentheses)",
        x->path, x->src, why, x->tok[0] ? x->tok : "(end)");
}

static int pyx_is(const struct pyx *x, const char *t)
{
    return !strcmp(x->tok, t);
}

static void pyx_or(struct pyx *x);

static void pyx_primary(struct pyx *x)
{
    if (pyx_is(x, "(")) {
        pyx_put(x, "(");
        pyx_next(x);
        pyx_or(x);
        if (!pyx_is(x, ")"))
            pyx_refuse(x, "expected ')', not");
        pyx_put(x, ")");
        pyx_next(x);
    } else if (pyx_is(x, "-")) {
        pyx_put(x, "-");
        pyx_next(x);
        pyx_primary(x);
    } else if (isdigit((unsigned char)x->tok[0])) {
        for (const char *c = x->tok; *c; c++)
            if (!isdigit((unsigned char)*c))
                pyx_refuse(x, "the number");
        pyx_put(x, x->tok);
        pyx_next(x);
    } else if (isalpha((unsigned char)x->tok[0]) || x->tok[0] == '_') {
        static const char *const words[] = {"and", "or", "not", "in", "is", "if", "else", "True", "False", "None"};
        for (size_t i = 0; i < sizeof words / sizeof *words; i++)
            if (pyx_is(x, words[i]))
                pyx_refuse(x, "the word");
        char name[64];
        snprintf(name, sizeof name, "%s", x->tok);
        pyx_next(x);
        if (pyx_is(x, "(") || pyx_is(x, "[") || strchr(name, '.'))
            die("%s: condition '%s': calls, indexing and attributes ('%s%s') are not supported", x->path, x->src,
                name, x->tok);
        pyx_put(x, name);
    } else {
        pyx_refuse(x, "the operand");
    }
}

static void pyx_term(struct pyx *x)
{
    pyx_primary(x);
    while (pyx_is(x, "*") || pyx_is(x, "//") || pyx_is(x, "%") || pyx_is(x, "/") || pyx_is(x, "**")) {
        if (pyx_is(x, "/") || pyx_is(x, "**"))
            pyx_refuse(x, "the operator");
        pyx_put(x, pyx_is(x, "//") ? " / " : pyx_is(x, "*") ? " * " : " % ");
        pyx_next(x);
        pyx_primary(x);
    }
}

static void pyx_sum(struct pyx *x)
{
    pyx_term(x);
    while (pyx_is(x, "+") || pyx_is(x, "-")) {
        pyx_put(x, pyx_is(x, "+") ? " + " : " - ");
        pyx_next(x);
        pyx_term(x);
    }
}

static int pyx_cmp(const struct pyx *x)
{
    return pyx_is(x, "<") || pyx_is(x, "<=") || pyx_is(x, ">") || pyx_is(x, ">=") || pyx_is(x, "==") ||
           pyx_is(x, "!=");
}

/* pyx_sum's text, taken out of the output */
static char *pyx_render_sum(struct pyx *x)
{
    size_t start = x->len;
    pyx_put(x, "");
    pyx_sum(x);
    char *r = strdup(x->out + start);
    if (!r)
        die("out of memory");
    x->len = start;
    x->out[start] = 0;
    return r;
}

/* a < b <= c: ((a < b) && (b <= c)), the middle operand written twice */
static void pyx_comparison(struct pyx *x)
{
    char *left = pyx_render_sum(x);
    if (!pyx_cmp(x)) {
        pyx_put(x, left);
        free(left);
        return;
    }
    pyx_put(x, "(");
    for (int first = 1; pyx_cmp(x); first = 0) {
        char op[8];
        snprintf(op, sizeof op, "%.3s", x->tok);
        pyx_next(x);
        char *right = pyx_render_sum(x);
        if (!first)
            pyx_put(x, " && ");
        pyx_put(x, "(");
        pyx_put(x, left);
        pyx_put(x, " ");
        pyx_put(x, op);
        pyx_put(x, " ");
        pyx_put(x, right);
        pyx_put(x, ")");
        free(left);
        left = right;
    }
    free(left);
    pyx_put(x, ")");
}

static void pyx_not(struct pyx *x)
{
    if (pyx_is(x, "not")) {
        pyx_put(x, "!(");
        pyx_next(x);
        pyx_not(x);
        pyx_put(x, ")");
    } else {
        pyx_comparison(x);
    }
}

static void pyx_and(struct pyx *x)
{
    pyx_not(x);
    while (pyx_is(x, "and")) {
        pyx_put(x, " && ");
        pyx_next(x);
        pyx_not(x);
    }
}

static void pyx_or(struct pyx *x)
{
    pyx_and(x);
    while (pyx_is(x, "or")) {
        pyx_put(x, " || ");
        pyx_next(x);
        pyx_and(x);
    }
}

/* The condition src as a policy expression, to be freed. */
static char *translate_condition(const char *path, const char *src)
{
    struct pyx x = {.path = path, .src = src, .p = src};
    pyx_put(&x, "");
    pyx_next(&x);
    pyx_or(&x);
    if (x.tok[0])
        pyx_refuse(&x, "after a complete condition,");
    return x.out;
}

/* A T1 parameter's values: a JSON array, or a string holding a Python list
 * of integers (as the benchmark hub writes them); text "v1, v2, ...". */
static void t1_values(const char *path, const char *name, const struct gt_json *v, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    if (v && v->kind == GT_JSON_ARRAY) {
        for (size_t i = 0; i < v->n; i++) {
            const struct gt_json *e = &v->items[i];
            if (e->kind != GT_JSON_NUMBER || e->number != floor(e->number) || fabs(e->number) > 1e15)
                die("%s: parameter %s: only integer values are supported", path, name);
            at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%.0f", i ? ", " : "", e->number);
        }
    } else if (v && v->kind == GT_JSON_STRING) {
        const char *s = v->text;
        while (*s == ' ')
            s++;
        if (*s++ != '[')
            die("%s: parameter %s: Values '%s' is not a list", path, name, v->text);
        for (int i = 0;; i++) {
            char *end;
            while (*s == ' ')
                s++;
            if (*s == ']' && i == 0)
                break;
            long long k = strtoll(s, &end, 10);
            if (end == s)
                die("%s: parameter %s: only integer values are supported ('%s')", path, name, v->text);
            at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%lld", i ? ", " : "", k);
            for (s = end; *s == ' '; s++)
                ;
            if (*s == ']')
                break;
            if (*s++ != ',')
                die("%s: parameter %s: only integer values are supported ('%s')", path, name, v->text);
        }
    } else {
        die("%s: parameter %s: no Values", path, name);
    }
    if (at >= len)
        die("%s: parameter %s: too many values", path, name);
    if (!buf[0])
        die("%s: parameter %s: no values", path, name);
}

/* The T1 file's space as a policy section's text: its parameters, its
 * conditions as constraints, its defaults as the baseline. */
static void load_t1(struct landscape *L)
{
    struct gt_arena *a = gt_arena_new();
    if (!a)
        die("out of memory");
    const struct gt_json *doc = read_json(L->t1, a, NULL);
    const struct gt_json *gen = gt_json_member(doc, "General");
    const struct gt_json *name = gt_json_member(gen, "BenchmarkName");
    const struct gt_json *cs = need(L->t1, doc, "ConfigurationSpace", GT_JSON_OBJECT, "configuration space");
    const struct gt_json *tp = need(L->t1, cs, "TuningParameters", GT_JSON_ARRAY, "tuning parameters");
    const struct gt_json *conds = gt_json_member(cs, "Conditions");
    char *text = NULL, *base = NULL;
    size_t tlen = 0, blen = 0;
    FILE *t = open_memstream(&text, &tlen), *b = open_memstream(&base, &blen);
    if (!t || !b)
        die("out of memory");
    L->kernel = name && name->kind == GT_JSON_STRING && name->text[0] ? strdup(name->text) : L->t1;
    fprintf(t, "[kernel \"%s\"]\n", L->kernel);
    for (size_t i = 0; i < tp->n; i++) {
        const struct gt_json *p = &tp->items[i], *n = gt_json_member(p, "Name"), *d = gt_json_member(p, "Default");
        static char vals[1 << 16];
        if (!n || n->kind != GT_JSON_STRING || !n->text[0])
            die("%s: tuning parameter %zu has no Name", L->t1, i + 1);
        for (const char *c = n->text; *c; c++)
            if (!isalnum((unsigned char)*c) && *c != '_')
                die("%s: parameter name '%s' is not supported (letters, digits and _ only)", L->t1, n->text);
        t1_values(L->t1, n->text, gt_json_member(p, "Values"), vals, sizeof vals);
        fprintf(t, "param %s = %s\n", n->text, vals);
        /* the default, where it is one of the values; else the first value */
        char dv[32] = "";
        if (d && d->kind == GT_JSON_NUMBER && d->number == floor(d->number)) {
            snprintf(dv, sizeof dv, "%.0f", d->number);
            char look[40];
            snprintf(look, sizeof look, ", %s,", dv);
            char *all = NULL;
            if (asprintf(&all, ", %s,", vals) < 0)
                die("out of memory");
            if (!strstr(all, look))
                dv[0] = 0;
            free(all);
        }
        if (!dv[0])
            snprintf(dv, sizeof dv, "%.*s", (int)strcspn(vals, ","), vals);
        fprintf(b, "%s%s=%s", i ? " " : "", n->text, dv);
    }
    for (size_t i = 0; conds && conds->kind == GT_JSON_ARRAY && i < conds->n; i++) {
        const struct gt_json *c = &conds->items[i];
        const struct gt_json *e = c->kind == GT_JSON_STRING ? c : gt_json_member(c, "Expression");
        if (!e || e->kind != GT_JSON_STRING)
            die("%s: condition %zu has no Expression", L->t1, i + 1);
        char *x = translate_condition(L->t1, e->text);
        fprintf(t, "constraint = %s\n", x);
        free(x);
    }
    if (conds && conds->kind != GT_JSON_ARRAY)
        die("%s: Conditions is not a list", L->t1);
    fclose(b);
    fprintf(t, "baseline = %s\n", base);
    fclose(t);
    free(base);
    L->policy_text = text;
    L->policy_len = tlen;
    gt_arena_free(a);
}

static double t4_scale(const struct gt_json *doc)
{
    const struct gt_json *u = gt_json_member(gt_json_member(doc, "metadata"), "timeunit");
    if (!u || u->kind != GT_JSON_STRING)
        return 1e3; /* Kernel Tuner's milliseconds */
    if (!strcmp(u->text, "seconds") || !strcmp(u->text, "s"))
        return 1e6;
    if (!strcmp(u->text, "microseconds") || !strcmp(u->text, "us"))
        return 1;
    if (!strcmp(u->text, "milliseconds") || !strcmp(u->text, "miliseconds") || !strcmp(u->text, "ms"))
        return 1e3;
    return -1;
}

static int t4_line(const char *text, const struct gt_json *v)
{
    int line, col;
    gt_json_where(text, v->at, &line, &col);
    return line;
}

/* The T4 results: each configuration's objective (time) and validity; a
 * result not "correct", or without a numeric objective, is invalid. */
static void load_t4(struct landscape *L)
{
    struct gt_arena *a = gt_arena_new();
    char *text, words[GT_SPACE_TEXT_MAX * 2], err[512];
    size_t off;
    if (!a)
        die("out of memory");
    const struct gt_json *doc = read_json(L->csv, a, &text);
    const struct gt_json *res = need(L->csv, doc, "results", GT_JSON_ARRAY, "results");
    double scale = t4_scale(doc);
    if (scale < 0)
        die("%s: timeunit '%s' is not one of seconds, milliseconds, microseconds", L->csv,
            gt_json_member(gt_json_member(doc, "metadata"), "timeunit")->text);
    L->row = xcalloc(L->s->size, 1);
    L->us = xcalloc(L->s->size, sizeof *L->us);
    L->build_s = xcalloc(L->s->size, sizeof *L->build_s);
    L->est = xcalloc(L->s->size, sizeof *L->est);
    L->has_est = xcalloc(L->s->size, 1);
    uint32_t *cfg = xcalloc(L->s->ndims + 1, sizeof *cfg);
    L->have_build = 1;
    for (size_t i = 0; i < res->n; i++) {
        const struct gt_json *r = &res->items[i], *c = gt_json_member(r, "configuration");
#define line t4_line(text, r) /* only for messages: it counts lines from the start */
        size_t at = 0;
        if (!c || c->kind != GT_JSON_OBJECT)
            die("%s:%d: a result without a configuration", L->csv, line);
        for (size_t d = 0; d < L->s->ndims; d++) {
            const struct gt_json *v = gt_json_member(c, L->s->dims[d].name);
            if (!v)
                die("%s:%d: the configuration has no value for parameter %s", L->csv, line, L->s->dims[d].name);
            if (v->kind != GT_JSON_NUMBER || v->number != floor(v->number))
                die("%s:%d: parameter %s: only integer values are supported", L->csv, t4_line(text, v),
                    L->s->dims[d].name);
            at += (size_t)snprintf(words + at, at < sizeof words ? sizeof words - at : 0, "%s%s=%.0f",
                                   d ? " " : "", L->s->dims[d].name, v->number);
        }
        if (at >= sizeof words)
            die("%s:%d: configuration too long", L->csv, line);
        if (gt_space_parse(L->s, words, 0, cfg, err, sizeof err, &off) != 0)
            die("%s:%d: configuration '%s': %s", L->csv, line, words, err);
        uint64_t rank = gt_space_rank(L->s, cfg);
        if (L->row[rank] != ROW_MISSING)
            die("%s:%d: configuration '%s' given twice", L->csv, line, words);
        const struct gt_json *inv = gt_json_member(r, "invalidity"), *ms = gt_json_member(r, "measurements");
        const struct gt_json *obj = gt_json_member(r, "objectives");
        const char *objective = obj && obj->kind == GT_JSON_ARRAY && obj->n && obj->items[0].kind == GT_JSON_STRING
                                    ? obj->items[0].text
                                    : "time";
        double us = -1;
        for (size_t k = 0; ms && ms->kind == GT_JSON_ARRAY && k < ms->n; k++) {
            const struct gt_json *nm = gt_json_member(&ms->items[k], "name"), *v = gt_json_member(&ms->items[k], "value");
            if (nm && nm->kind == GT_JSON_STRING && !strcmp(nm->text, objective) && v && v->kind == GT_JSON_NUMBER &&
                v->number > 0 && isfinite(v->number))
                us = v->number * scale;
        }
        int ok = (!inv || (inv->kind == GT_JSON_STRING && !strcmp(inv->text, "correct"))) && us > 0;
        L->row[rank] = ok ? ROW_OK : ROW_INVALID;
        L->us[rank] = ok ? us : -1;
        const struct gt_json *comp = gt_json_member(gt_json_member(r, "times"), "compilation");
        L->build_s[rank] = comp && comp->kind == GT_JSON_NUMBER && comp->number > 0 ? comp->number / 1e3 : 0;
#undef line
    }
    if (!res->n)
        die("%s: no results", L->csv);
    free(cfg);
    free(text);
    gt_arena_free(a);
}

/* The original of a T4 landscape: the T1 default configuration where it
 * was measured valid; else there is none (baseline -1), as in Kernel
 * Tuner's own runs. */
static void t4_baseline(struct landscape *L)
{
    uint32_t *def = xcalloc(L->s->ndims + 1, sizeof *def);
    gt_space_default(L->s, def);
    uint64_t r = gt_space_rank(L->s, def);
    free(def);
    if (L->row[r] == ROW_OK) {
        L->baseline = L->us[r];
        L->baseline_note = "the T1 default configuration";
        return;
    }
    L->baseline = -1;
    L->baseline_note = "none (the T1 default is not a valid configuration): the first valid trial sets the best";
}

static void print_cfg(const struct landscape *L, uint64_t rank, char *buf, size_t len)
{
    uint32_t *cfg = xcalloc(L->s->ndims + 1, sizeof *cfg);
    gt_space_unrank(L->s, rank, cfg);
    gt_space_format(L->s, cfg, buf, len);
    free(cfg);
}

/* Counts the valid configurations and those the landscape lacks, finds
 * the optimum and ignores rows outside the space (or of the original). */
static void survey(struct landscape *L)
{
    struct gt_space_iter it;
    uint32_t *def = xcalloc(L->s->ndims + 1, sizeof *def);
    unsigned char *valid = xcalloc(L->s->size, 1);
    gt_space_default(L->s, def);
    L->default_rank = gt_space_rank(L->s, def);
    free(def);
    if (gt_space_iter_init(&it, L->s, NULL) != 0)
        die("out of memory");
    while (gt_space_iter_next(&it) == 1) {
        uint64_t r = gt_space_rank(L->s, it.cfg);
        if (r == L->default_rank)
            continue;
        valid[r] = 1;
        L->nvalid++;
        if (L->row[r] == ROW_MISSING && L->missing++ < SHOW_MISSING)
            L->shown[L->missing - 1] = r;
    }
    gt_space_iter_clear(&it);
    L->optimum = L->baseline > 0 ? L->baseline : INFINITY;
    L->opt_rank = L->default_rank;
    for (uint64_t r = 0; r < L->s->size; r++) {
        if (L->row[r] != ROW_MISSING && !valid[r]) {
            L->outside++;
            L->row[r] = ROW_MISSING;
        } else if (L->row[r] == ROW_OK && L->us[r] < L->optimum) {
            L->optimum = L->us[r];
            L->opt_rank = r;
        }
    }
    free(valid);
    if (!L->nvalid)
        die("%s: kernel %s: no valid configuration besides the original", L->policy, L->kernel);
}

/* ---- the simulated session ---- */

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t run_seed(const struct landscape *L, long i)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char *c = L->kernel; *c; c++)
        h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
    return mix64(opt.seed ^ h ^ mix64((uint64_t)i));
}

static long budget_of(const struct landscape *L)
{
    long b = (long)ceil(opt.share * (double)L->nvalid);
    if (opt.max_trials > 0 && b > opt.max_trials)
        b = opt.max_trials;
    return b > 0 ? b : 1;
}

/* The trial budget the session keeps: 0 when it may not be cut. */
static double deadline(const struct landscape *L, int may_cut, double base, double best)
{
    best = base > 0 ? base : best;
    if (!L->watchdog || !may_cut || best <= 0)
        return 0;
    return L->wd_factor * best > L->wd_floor_us ? L->wd_factor * best : L->wd_floor_us;
}

/* Notes which goals the best time so far meets, after `trials`. */
static void progress(const struct landscape *L, struct run *r, double best, double secs)
{
    for (int g = 0; g < 3; g++)
        if (r->reach[g] < 0 && best > 0 && L->optimum / best >= goals[g] - 1e-12) {
            r->reach[g] = r->trials;
            if (g == 1)
                r->secs95 = secs;
        }
    if (r->reach98 < 0 && best > 0 && L->optimum / best >= GOAL_98 - 1e-12)
        r->reach98 = r->trials;
}

/* Runs one trial as the engine would; returns what it cost in seconds. */
static double trial(const struct landscape *L, struct gt_strategy *st, const uint32_t *cfg, int may_cut,
                    unsigned char *seen, struct run *r)
{
    uint64_t rank = gt_space_rank(L->s, cfg);
    double us = -1, cost = 0, cut = deadline(L, may_cut, gt_strategy_cut_base(st, cfg), r->best_us);
    enum gt_trial_status status = GT_TRIAL_INVALID;
    r->bad += seen[rank] || rank == L->default_rank || gt_space_check(L->s, cfg, NULL, NULL) != 1;
    seen[rank] = 1;
    if (L->row[rank] == ROW_OK && cut > 0 && L->us[rank] > cut) {
        status = GT_TRIAL_ABORTED;
        us = cost = cut;
    } else if (L->row[rank] == ROW_OK) {
        status = GT_TRIAL_OK;
        us = L->us[rank];
        cost = L->runs_per_trial * us;
    }
    r->trials++;
    gt_strategy_report(st, cfg, us, status);
    if (status == GT_TRIAL_OK && (r->best_us <= 0 || us < r->best_us))
        r->best_us = us;
    return cost * 1e-6;
}

/* A candidate: a strategy's name, or NAME:KEY=VALUE,KEY=VALUE for the
 * strategy with those parameters (--candidate). */
struct candidate {
    char strategy[CANDIDATE_LEN], text[CANDIDATE_LEN];
    struct gt_kv kv[MAX_PARAMS];
    size_t nkv;
};

static void parse_candidate(const char *name, struct candidate *c)
{
    *c = (struct candidate){0};
    snprintf(c->text, sizeof c->text, "%s", name);
    char *params = strchr(c->text, ':');
    if (params)
        *params++ = 0;
    snprintf(c->strategy, sizeof c->strategy, "%s", c->text);
    for (char *kv = params ? strtok(params, ",") : NULL; kv && c->nkv < MAX_PARAMS; kv = strtok(NULL, ",")) {
        char *eq = strchr(kv, '=');
        if (!eq)
            die("--candidate %s: expected NAME:KEY=VALUE,...", name);
        *eq = 0;
        c->kv[c->nkv++] = (struct gt_kv){kv, eq + 1, {"--candidate", 1, 1}};
    }
}

/* One seeded session of strategy name, as shim/tune/session.c's search(). */
static int simulate(const struct landscape *L, const char *name, uint64_t seed, long budget, struct run *r,
                    struct head *h)
{
    struct gt_settings set = L->sec->set;
    size_t n = L->s->ndims;
    struct candidate c;
    parse_candidate(name, &c);
    /* the policy's strategy parameters are for the strategy it names; a
     * candidate's own replace them */
    if (c.nkv || !set.strategy || strcmp(set.strategy, c.strategy)) {
        set.sparams = c.kv;
        set.nsparams = c.nkv;
    }
    struct gt_strategy *st = gt_strategy_new(c.strategy, L->s, NULL, &set, budget, seed, h->err, sizeof h->err);
    if (!st)
        return -1;
    snprintf(h->name, sizeof h->name, "%s", gt_strategy_name(st));
    gt_strategy_baseline(st, L->baseline);
    *r = (struct run){.reach = {-1, -1, -1}, .reach98 = -1, .best_us = L->baseline, .secs95 = -1};
    uint32_t *cfg = xcalloc(BATCH * (n + 1), sizeof *cfg);
    unsigned char *seen = xcalloc(L->s->size, 1);
    int may_cut[BATCH], kind[BATCH], more = 1;
    double secs = 0;
    progress(L, r, r->best_us, secs);
    while (more && r->trials < budget && (opt.seconds <= 0 || secs < opt.seconds)) {
        int nb = 0, ntrials = 0, tried = 0;
        double build = 0, tsum = 0;
        for (; nb < BATCH && r->trials + ntrials < budget; nb++) {
            uint32_t *c = cfg + nb * (n + 1);
            int got = gt_strategy_next(st, c);
            if (got != GT_NEXT_TRIAL && got != GT_NEXT_ESTIMATE) {
                more = got == GT_NEXT_WAIT && nb > 0;
                break;
            }
            if (got == GT_NEXT_ESTIMATE && opt.seconds > 0 && !gt_strategy_may_estimate(secs, opt.seconds)) {
                gt_strategy_estimated(st, c, NULL); /* not built, as the engine does past that share */
                nb--;
                continue;
            }
            kind[nb] = got;
            ntrials += got == GT_NEXT_TRIAL;
            may_cut[nb] = gt_strategy_may_cut(st, c);
            uint64_t rank = gt_space_rank(L->s, c);
            if (L->build_s[rank] > build)
                build = L->build_s[rank];
        }
        secs += build;
        for (int i = 0; i < nb; i++) {
            const uint32_t *c = cfg + i * (n + 1);
            if (kind[i] == GT_NEXT_ESTIMATE) {
                uint64_t rank = gt_space_rank(L->s, c);
                r->estimates++;
                gt_strategy_estimated(st, c, L->has_est[rank] ? &L->est[rank] : NULL);
                continue;
            }
            if (opt.seconds > 0 && secs >= opt.seconds)
                continue; /* past the session's time: not run */
            double t = trial(L, st, c, may_cut[i], seen, r);
            secs += t;
            tsum += t;
            tried++;
            progress(L, r, r->best_us, secs);
        }
        if (opt.seconds > 0 && !opt.unpaced)
            gt_strategy_pace(st, gt_strategy_width(budget - r->trials, opt.seconds - secs, build,
                                                   tried ? tsum / tried : 0, BATCH));
    }
    free(seen);
    free(cfg);
    gt_strategy_free(st);
    return 0;
}

/* ---- strategies in child processes ---- */

static int write_all(int fd, const void *buf, size_t len)
{
    for (const char *p = buf; len;) {
        ssize_t w = write(fd, p, len);
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static size_t read_all(int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    return got;
}

/* One run: the session with the landscape's budget, and where that is
 * larger than the default budget, the same seed's session with the
 * default budget, whose trials to 98% are the run's.  A strategy paces
 * itself to its budget (a larger one explores longer before it closes in),
 * so what a user gets within the default budget is a session given that
 * budget, not the first trials of a longer one. */
static int one_run(const struct landscape *L, const char *name, uint64_t seed, struct run *r, struct head *h)
{
    long budget = budget_of(L);
    struct run d;
    struct head dh = {0}; /* the row names what the longer session ran (auto's choice depends on the budget) */
    int rc = simulate(L, name, seed, budget, r, h);
    if (rc != 0 || budget <= TRIALS_98)
        return rc;
    if ((rc = simulate(L, name, seed, TRIALS_98, &d, &dh)) != 0)
        snprintf(h->err, sizeof h->err, "%s", dh.err);
    r->reach98 = d.reach98;
    return rc;
}

/* The child: every run of one strategy, written to fd. */
static void child(const struct landscape *L, const char *name, int fd)
{
    struct head h = {0};
    struct run r;
    alarm(TIMEOUT_S);
    for (long i = 0; i < opt.runs; i++) {
        int rc = one_run(L, name, run_seed(L, i), &r, &h);
        if (i == 0 && ((h.ok = rc == 0), write_all(fd, &h, sizeof h) != 0 || rc != 0))
            _exit(rc != 0 ? 0 : 1);
        if (rc != 0)
            fprintf(stderr, "replay: %s, %s, run %ld: %s\n", L->kernel, name, i + 1, h.err);
        if (rc != 0 || write_all(fd, &r, sizeof r) != 0)
            _exit(1);
    }
    _exit(0);
}

static pid_t start(const struct landscape *L, const char *name, int *fd)
{
    int p[2];
    if (pipe(p) != 0)
        die("pipe: %s", strerror(errno));
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        close(p[0]);
        child(L, name, p[1]);
    }
    close(p[1]);
    *fd = p[0];
    return pid;
}

/* Collects a child's runs; a child that died says how in res->failed. */
static void collect(struct result *res, pid_t pid, int fd)
{
    size_t want = (size_t)opt.runs * sizeof *res->runs;
    res->runs = xcalloc((size_t)opt.runs, sizeof *res->runs);
    size_t got = read_all(fd, &res->h, sizeof res->h);
    if (got == sizeof res->h && res->h.ok)
        got = read_all(fd, res->runs, want);
    close(fd);
    int status;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        snprintf(res->failed, sizeof res->failed, "timed out after %d s", TIMEOUT_S);
    else if (WIFSIGNALED(status))
        snprintf(res->failed, sizeof res->failed, "crashed: %s", strsignal(WTERMSIG(status)));
    else if (!res->h.name[0] && !res->h.err[0])
        snprintf(res->failed, sizeof res->failed, "failed (exit %d)", WEXITSTATUS(status));
    else if (res->h.ok && got != want)
        snprintf(res->failed, sizeof res->failed, "failed: %zu of %ld runs", got / sizeof *res->runs, opt.runs);
}

/* ---- statistics ---- */

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    x = x < 0 ? LONG_MAX : x;
    y = y < 0 ? LONG_MAX : y;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    x = x < 0 ? INFINITY : x;
    y = y < 0 ? INFINITY : y;
    return (x > y) - (x < y);
}

/* The lower median, negative values counting as never: it is negative
 * when fewer than half the runs got there. */
static long median_long(const struct result *res, size_t off)
{
    long *v = xcalloc((size_t)opt.runs, sizeof *v);
    for (long i = 0; i < opt.runs; i++)
        v[i] = *(const long *)((const char *)&res->runs[i] + off);
    qsort(v, (size_t)opt.runs, sizeof *v, cmp_long);
    long m = v[(opt.runs - 1) / 2];
    free(v);
    return m;
}

static double median_double(const struct result *res, size_t off, const struct landscape *L, int speed)
{
    double *v = xcalloc((size_t)opt.runs, sizeof *v);
    for (long i = 0; i < opt.runs; i++) {
        v[i] = *(const double *)((const char *)&res->runs[i] + off);
        if (speed)
            v[i] = v[i] > 0 ? L->optimum / v[i] : 0;
    }
    qsort(v, (size_t)opt.runs, sizeof *v, cmp_double);
    double m = v[(opt.runs - 1) / 2];
    free(v);
    return m;
}

static long median_reach(const struct result *res, int g)
{
    return median_long(res, offsetof(struct run, reach) + (size_t)g * sizeof(long));
}

static int usable(const struct result *res)
{
    return res->h.ok && !res->failed[0];
}

/* Share of runs reaching 95% within 2% of the space. */
static double share_fast(const struct landscape *L, const struct result *res)
{
    long n = 0;
    for (long i = 0; i < opt.runs; i++)
        n += res->runs[i].reach[1] >= 0 && (double)res->runs[i].reach[1] <= SHARE_95 * (double)L->nvalid;
    return (double)n / (double)opt.runs;
}

/* Share of runs reaching 98% within 64 trials. */
static double share_98(const struct result *res)
{
    long n = 0;
    for (long i = 0; i < opt.runs; i++)
        n += res->runs[i].reach98 >= 0 && res->runs[i].reach98 <= TRIALS_98;
    return (double)n / (double)opt.runs;
}

static int beats(const struct result *res, const struct result *ref)
{
    long a = median_reach(res, 1), b = median_reach(ref, 1);
    return a >= 0 && (b < 0 || a < b);
}

/* ---- output ---- */

static void cell_trials(const struct landscape *L, long m, char *buf, size_t len)
{
    if (m < 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%4ld %5.1f%%", m, 100.0 * (double)m / (double)L->nvalid);
}

static void print_header(const struct landscape *L)
{
    char text[512];
    printf("\n== %s: %llu configurations besides the original (%s, %s)\n", L->kernel,
           (unsigned long long)L->nvalid, L->policy, L->csv);
    if (L->baseline_note && L->baseline > 0)
        printf("   the original: %s, %.1f us\n", L->baseline_note, L->baseline);
    else if (L->baseline_note)
        printf("   the original: %s\n", L->baseline_note);
    if (L->baseline <= 0) {
        print_cfg(L, L->opt_rank, text, sizeof text);
        printf("   optimum %.1f us: %s\n", L->optimum, text);
    } else if (L->opt_rank == L->default_rank) {
        printf("   optimum: the original, %.1f us\n", L->baseline);
    } else {
        print_cfg(L, L->opt_rank, text, sizeof text);
        printf("   optimum %.1f us, %.2fx the original's %.1f us: %s\n", L->optimum, L->baseline / L->optimum,
               L->baseline, text);
    }
    for (uint64_t i = 0; i < L->missing && i < SHOW_MISSING; i++) {
        print_cfg(L, L->shown[i], text, sizeof text);
        printf("   missing from the landscape: %s\n", text);
    }
    if (L->missing > SHOW_MISSING)
        printf("   ... and %llu more missing\n", (unsigned long long)(L->missing - SHOW_MISSING));
    if (L->missing)
        printf("   valid configurations missing from the landscape: %llu, reported invalid when proposed\n",
               (unsigned long long)L->missing);
    else
        printf("   the landscape covers every valid configuration\n");
    if (L->outside)
        printf("   %llu rows outside the space (or of the original) ignored\n", (unsigned long long)L->outside);
}

static void print_setup(const struct landscape *L)
{
    long budget = budget_of(L);
    printf("   %ld runs from seed 0x%llx, budget %ld trials (%.0f%% of the space), ", opt.runs,
           (unsigned long long)opt.seed, budget, 100.0 * (double)budget / (double)L->nvalid);
    if (L->watchdog)
        printf("watchdog at %gx the best so far (at least %g ms)\n", L->wd_factor, L->wd_floor_us / 1e3);
    else
        printf("watchdog off\n");
    printf("\n   %-22s %-12s %-12s %-12s %9s %9s  %-7s %8s %6s %7s %6s\n", "strategy", "to 90%", "to 95%", "to 99%",
           "95% in 2%", "98% in 64", "random", "s to 95%", "trials", "estim.", "final");
}

static void print_row(const struct landscape *L, const struct result *res, const struct result *ref)
{
    char shown[CANDIDATE_LEN + 40], c[3][32], secs[16] = "-";
    snprintf(shown, sizeof shown, "%.*s", CANDIDATE_LEN - 1, res->name);
    if (res->h.name[0] && !strchr(res->name, ':') && strcmp(res->h.name, res->name))
        snprintf(shown, sizeof shown, "%.31s (%.31s)", res->name, res->h.name);
    if (!usable(res)) {
        printf("   %-22s not available: %s\n", shown, res->failed[0] ? res->failed : res->h.err);
        return;
    }
    for (int g = 0; g < 3; g++)
        cell_trials(L, median_reach(res, g), c[g], sizeof c[g]);
    double s95 = median_double(res, offsetof(struct run, secs95), L, 0);
    if (L->have_build && s95 >= 0)
        snprintf(secs, sizeof secs, "%.1f", s95);
    const char *vs = res == ref ? "(ref)" : !usable(ref) ? "?" : beats(res, ref) ? "beats" : "no";
    printf("   %-22s %-12s %-12s %-12s %8.0f%% %8.0f%%  %-7s %8s %6ld %7ld %5.1f%%\n", shown, c[0], c[1], c[2],
           100.0 * share_fast(L, res), 100.0 * share_98(res), vs, secs, median_long(res, offsetof(struct run, trials)),
           median_long(res, offsetof(struct run, estimates)),
           100.0 * median_double(res, offsetof(struct run, best_us), L, 1));
}

static void print_notes(const struct result *res, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        long bad = 0;
        for (long j = 0; usable(&res[i]) && j < opt.runs; j++)
            bad += res[i].runs[j].bad;
        if (bad)
            printf("   ! %s proposed %ld configurations that were repeated, invalid or the original\n",
                   res[i].name, bad);
    }
}

/* ---- driver ---- */

/* What a strategy did on a landscape, kept for the leave-one-out choice. */
struct fig {
    int ok;
    long med95;      /* median trials to 95%, -1: never in half the runs */
    double share98;  /* share of runs at 98% within 64 trials */
    char ran[32];    /* what ran (auto's choice) */
};

static struct fig figs[MAX_LANDSCAPES][MAX_STRATEGIES];

struct tally {
    int fast, beaten, landscapes;
    char detail[1024];
};

/* Every strategy then auto, or those of --strategies and random; then the
 * candidates. */
static size_t strategy_list(const char **names)
{
    size_t n = 0;
    int random = 0;
    for (size_t i = 0; i < opt.nonly; i++) {
        names[n++] = opt.only[i];
        random |= !strcmp(opt.only[i], "random");
    }
    if (opt.nonly && !random)
        names[n++] = "random";
    for (size_t i = 0; !opt.nonly && gt_strategy_names(i) && n < MAX_STRATEGIES - 1; i++)
        names[n++] = gt_strategy_names(i);
    if (!opt.nonly)
        names[n++] = "auto";
    for (size_t i = 0; i < opt.ncands && n < MAX_STRATEGIES; i++)
        names[n++] = opt.cands[i];
    return n;
}

static void replay(struct landscape *L, size_t li, const char **names, size_t n, struct tally *t)
{
    struct result res[MAX_STRATEGIES];
    pid_t pid[MAX_STRATEGIES];
    int fd[MAX_STRATEGIES];
    const struct result *ref = NULL;
    survey(L);
    print_header(L);
    print_setup(L);
    for (size_t i = 0; i < n; i++) {
        memset(&res[i], 0, sizeof res[i]);
        snprintf(res[i].name, sizeof res[i].name, "%s", names[i]);
        pid[i] = start(L, names[i], &fd[i]);
    }
    for (size_t i = 0; i < n; i++) {
        collect(&res[i], pid[i], fd[i]);
        if (!strcmp(names[i], "random"))
            ref = &res[i];
    }
    for (size_t i = 0; i < n; i++)
        print_row(L, &res[i], ref);
    print_notes(res, n);
    for (size_t i = 0; i < n; i++)
        if (usable(&res[i])) {
            figs[li][i] = (struct fig){.ok = 1, .med95 = median_reach(&res[i], 1), .share98 = share_98(&res[i])};
            snprintf(figs[li][i].ran, sizeof figs[li][i].ran, "%s", res[i].h.name);
        }
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(t[i].detail);
        if (!usable(&res[i])) {
            snprintf(t[i].detail + len, sizeof t[i].detail - len, "%s %s n/a", len ? "," : "", L->kernel);
            continue;
        }
        int fast = share_fast(L, &res[i]) >= 0.5, beat = ref && usable(ref) && beats(&res[i], ref);
        long m = median_reach(&res[i], 1), mr = ref && usable(ref) ? median_reach(ref, 1) : -1;
        char a[24] = "-", b[24] = "-";
        if (m >= 0)
            snprintf(a, sizeof a, "%ld", m);
        if (mr >= 0)
            snprintf(b, sizeof b, "%ld", mr);
        t[i].landscapes++;
        t[i].fast += fast;
        t[i].beaten += beat;
        snprintf(t[i].detail + len, sizeof t[i].detail - len, "%s %s %s/%s%s", len ? "," : "", L->kernel, a, b,
                 beat ? " beats" : "");
    }
    for (size_t i = 0; i < n; i++)
        free(res[i].runs);
}

static void summary(const char **names, size_t n, const struct tally *t, size_t nland)
{
    printf("\n== summary over %zu landscapes: on how many a strategy reached 95%% of the optimum within 2%% of the "
           "space in >= 50%% of its runs, and beat random's median trials to 95%%\n"
           "   (per landscape: its median trials to 95%% / random's; landscapes where it did not run are named)\n\n",
           nland);
    for (size_t i = 0; i < n; i++) {
        if (!t[i].landscapes)
            printf("   %-12s not available on any:%s\n", names[i], t[i].detail);
        else if (!strcmp(names[i], "random"))
            printf("   %-12s 95%% within 2%%: %d/%d  (the reference)\n", names[i], t[i].fast, t[i].landscapes);
        else
            printf("   %-12s 95%% within 2%%: %d/%d  beats random: %d/%d  (%s)\n", names[i], t[i].fast,
                   t[i].landscapes, t[i].beaten, t[i].landscapes, t[i].detail + 1);
    }
}

/* A strategy's score on a landscape: its median trials to 95% as a share
 * of the space, infinite where fewer than half its runs got there. */
static double score(const struct landscape *L, const struct fig *f)
{
    return f->ok && f->med95 >= 0 ? (double)f->med95 / (double)L->nvalid : INFINITY;
}

static int cmp_score(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int meets_bar(const struct landscape *L, const struct fig *f)
{
    return f->ok && f->med95 >= 0 && (double)f->med95 <= SHARE_95 * (double)L->nvalid &&
           (L->nvalid <= BAR_LARGE || f->share98 >= 0.9);
}

static void cell_fig(const struct landscape *L, const struct fig *f, char *buf, size_t len)
{
    char t[32];
    cell_trials(L, f->med95, t, sizeof t);
    snprintf(buf, len, "%-12s %8.0f%%  %s", t, 100.0 * f->share98, meets_bar(L, f) ? "yes" : "no");
}

/* How a candidate did on the landscapes other than `out` (SIZE_MAX: on
 * all): on how many it met the bar, its mean share of runs at 98% within
 * 64 trials, and the median of its median trials to 95% as a share of the
 * space. */
struct standing {
    int met;
    double share98, med95;
};

static struct standing stand(const struct landscape *L, size_t nland, size_t c, size_t out, double *v)
{
    struct standing r = {0, 0, INFINITY};
    size_t k = 0;
    for (size_t o = 0; o < nland; o++)
        if (o != out) {
            r.met += meets_bar(&L[o], &figs[o][c]);
            r.share98 += figs[o][c].share98;
            v[k++] = score(&L[o], &figs[o][c]);
        }
    if (k) {
        qsort(v, k, sizeof *v, cmp_score);
        r.med95 = v[(k - 1) / 2];
        r.share98 /= (double)k;
    }
    return r;
}

static int better(const struct standing *a, const struct standing *b)
{
    if (a->met != b->met)
        return a->met > b->met;
    if (a->share98 != b->share98)
        return a->share98 > b->share98;
    return a->med95 < b->med95;
}

/* The candidate (every row of the table but auto) that did best on the
 * landscapes other than `out`: the most on which it met the bar, then the
 * higher mean share at 98% within 64 trials, then the lower median of its
 * median trials to 95% as a share of the space, then the table's order. */
static size_t choose(const struct landscape *L, size_t nland, const char **names, size_t n, size_t out,
                     struct standing *how, double *v)
{
    size_t best = SIZE_MAX;
    for (size_t c = 0; c < n; c++) {
        if (!strcmp(names[c], "auto"))
            continue;
        struct standing s = stand(L, nland, c, out, v);
        if (best == SIZE_MAX || better(&s, how)) {
            best = c;
            *how = s;
        }
    }
    return best;
}

/* For each landscape, auto's choice made without it (choose), then what
 * that choice did on the landscape held out, beside what auto did; then
 * the choice made on every landscape, which auto's defaults should be. */
static void leave_one_out(const struct landscape *L, size_t nland, const char **names, size_t n)
{
    double *v = xcalloc(nland, sizeof *v);
    int met = 0, met_auto = 0;
    struct standing how;
    printf("\n== leave-one-out: auto's choice for each landscape made on the others (the candidate that met the bar on "
           "the most of them, then the higher mean share at 98%% within %d trials, then the lower median trials to "
           "95%% as a share of the space), and its result there\n"
           "   bar: median trials to 95%% <= 2%% of the space, and >= 90%% of runs at 98%% within %d trials where "
           "the space is over %d configurations\n\n",
           TRIALS_98, TRIALS_98, BAR_LARGE);
    printf("   %-20s %7s  %-44s %-12s %9s  %-4s | %-14s %-12s %9s  %s\n", "held out", "space", "choice (bar met on the others)",
           "to 95%", "98% in 64", "bar", "auto (now)", "to 95%", "98% in 64", "bar");
    for (size_t h = 0; h < nland; h++) {
        size_t best = choose(L, nland, names, n, h, &how, v), autoi = SIZE_MAX;
        for (size_t c = 0; c < n; c++)
            if (!strcmp(names[c], "auto"))
                autoi = c;
        char a[64] = "-", b[64] = "-", choice[CANDIDATE_LEN + 48] = "-", au[48] = "auto";
        if (best != SIZE_MAX && figs[h][best].ok) {
            cell_fig(&L[h], &figs[h][best], a, sizeof a);
            met += meets_bar(&L[h], &figs[h][best]);
        }
        if (autoi != SIZE_MAX && figs[h][autoi].ok) {
            cell_fig(&L[h], &figs[h][autoi], b, sizeof b);
            met_auto += meets_bar(&L[h], &figs[h][autoi]);
        }
        if (best != SIZE_MAX)
            snprintf(choice, sizeof choice, "%.*s (%d/%zu)", CANDIDATE_LEN - 1, names[best], how.met, nland - 1);
        if (autoi != SIZE_MAX && figs[h][autoi].ran[0])
            snprintf(au, sizeof au, "%.40s", figs[h][autoi].ran);
        printf("   %-20.20s %7llu  %-44s %-32s | %-14s %s\n", L[h].kernel, (unsigned long long)L[h].nvalid, choice, a,
               au, b);
    }
    printf("\n   held-out choices meeting the bar: %d/%zu (auto as it is: %d/%zu)\n", met, nland, met_auto, nland);
    size_t all = choose(L, nland, names, n, SIZE_MAX, &how, v);
    if (all != SIZE_MAX)
        printf("   the choice made on every landscape: %s (bar met on %d/%zu, mean share at 98%% within %d trials "
               "%.0f%%, median trials to 95%% %.1f%% of the space)\n",
               names[all], how.met, nland, TRIALS_98, 100 * how.share98, 100 * how.med95);
    free(v);
}

static const char usage[] =
    "usage: replay [OPTIONS] DIR\n"
    "       replay [OPTIONS] POLICY KERNEL LANDSCAPE [POLICY KERNEL LANDSCAPE ...]\n"
    "  DIR holds baselines.csv (kernel,us) and KERNEL.csv for each kernel it names\n"
    "  --runs N            seeded runs per strategy and landscape (default 50)\n"
    "  --seed S            seed of the runs (default 0x853c49e6748fea9b)\n"
    "  --strategies a,b    these only (random always runs, as the reference)\n"
    "  --budget-share F    trial budget as a share of the space, in (0, 1] (default 1)\n"
    "  --policies DIR      the policies of DIR's kernels, KERNEL.ini (default examples/suite)\n"
    "  --t4 T4FILE T1FILE  also a Kernel Tuner landscape (T4, .json or .json.gz) with its space (T1)\n"
    "  --max-trials N      a run's trial budget at most N (default: no limit)\n"
    "  --candidate NAME:K=V,...  also this strategy with these parameters\n"
    "  --loo               then auto's choice per landscape made on the others (leave-one-out)\n"
    "  --seconds S         a session's time budget too, simulated, with the engine's pace\n"
    "  --unpaced           with --seconds, the strategy's own steps\n";

static void parse_strategies(char *list)
{
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
        if (opt.nonly < MAX_STRATEGIES - 1)
            opt.only[opt.nonly++] = tok;
}

static int parse_options(int argc, char **argv)
{
    static const struct option longs[] = {{"runs", required_argument, 0, 'r'},
                                          {"seed", required_argument, 0, 's'},
                                          {"strategies", required_argument, 0, 'S'},
                                          {"budget-share", required_argument, 0, 'b'},
                                          {"policies", required_argument, 0, 'p'},
                                          {"t4", required_argument, 0, 't'},
                                          {"loo", no_argument, 0, 'l'},
                                          {"candidate", required_argument, 0, 'c'},
                                          {"max-trials", required_argument, 0, 'm'},
                                          {"seconds", required_argument, 0, 'T'},
                                          {"unpaced", no_argument, 0, 'u'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "+", longs, NULL)) != -1) {
        errno = 0;
        if (c == 'r' && ((opt.runs = strtol(optarg, &end, 10)) < 1 || *end || opt.runs > 100000))
            die("--runs %s: expected a count from 1 to 100000", optarg);
        else if (c == 's' && ((opt.seed = strtoull(optarg, &end, 0)), *end || errno))
            die("--seed %s: expected an integer", optarg);
        else if (c == 'S')
            parse_strategies(optarg);
        else if (c == 'b' && ((opt.share = strtod(optarg, &end)), *end || !(opt.share > 0 && opt.share <= 1)))
            die("--budget-share %s: expected a number in (0, 1]", optarg);
        else if (c == 'p')
            opt.policies = optarg;
        else if (c == 'm' && ((opt.max_trials = strtol(optarg, &end, 10)) < 1 || *end))
            die("--max-trials %s: expected a count of at least 1", optarg);
        else if (c == 'T' && ((opt.seconds = strtod(optarg, &end)), *end || !(opt.seconds > 0)))
            die("--seconds %s: expected a positive number", optarg);
        else if (c == 'u')
            opt.unpaced = 1;
        else if (c == 't' && (optind >= argc || opt.nt4 == MAX_LANDSCAPES))
            die("--t4 %s: expected T4FILE T1FILE (a T4 landscape and its T1 space)", optarg);
        else if (c == 't') {
            opt.t4[opt.nt4][0] = optarg;
            opt.t4[opt.nt4++][1] = argv[optind++];
        } else if (c == 'l') {
            opt.loo = 1;
        } else if (c == 'c' && opt.ncands + opt.nonly + 24 >= MAX_STRATEGIES) {
            die("--candidate %s: more than %d strategies and candidates", optarg, MAX_STRATEGIES);
        } else if (c == 'c') {
            opt.cands[opt.ncands++] = optarg;
        }
        else if (c == 'h' || c == '?') {
            fputs(usage, c == 'h' ? stdout : stderr);
            exit(c == 'h' ? 0 : 2);
        }
    }
    return optind;
}

/* DIR: its baselines.csv names the kernels, in order. */
static size_t from_dir(const char *dir, struct landscape *L)
{
    char path[4096], *line = NULL, *f[8];
    size_t cap = 0, n = 0;
    int lineno = 0;
    snprintf(path, sizeof path, "%s/baselines.csv", dir);
    FILE *in = fopen(path, "r");
    if (!in)
        die("%s: cannot read: %s", path, strerror(errno));
    while (getline(&line, &cap, in) > 0) {
        int k = split_csv(line, f, 8);
        if (++lineno == 1 || k < 1 || !*f[0])
            continue;
        if (n == MAX_LANDSCAPES)
            die("%s: more than %d kernels", path, MAX_LANDSCAPES);
        char *kernel = strdup(f[0]), *policy, *csv;
        if (!kernel || asprintf(&policy, "%s/%s.ini", opt.policies, f[0]) < 0 ||
            asprintf(&csv, "%s/%s.csv", dir, f[0]) < 0)
            die("out of memory");
        L[n++] = (struct landscape){.kernel = kernel, .policy = policy, .csv = csv};
    }
    free(line);
    fclose(in);
    return n;
}

int main(int argc, char **argv)
{
    static struct landscape L[MAX_LANDSCAPES];
    static struct tally t[MAX_STRATEGIES];
    const char *names[MAX_STRATEGIES];
    /* options and positional words in any order (--t4 takes two words) */
    static char *pos[3 * MAX_LANDSCAPES + 1];
    int left = 0, at = 0;
    for (int i = parse_options(argc, argv); i < argc; i = parse_options(argc, argv)) {
        if (left == (int)(sizeof pos / sizeof *pos))
            die("more than %d landscapes", MAX_LANDSCAPES);
        pos[left++] = argv[i];
        optind = i + 1;
    }
    argv = pos;
    size_t nland = 0;
    if (left == 0 && opt.nt4) {
        /* T4 landscapes only */
    } else if (left == 1) {
        nland = from_dir(argv[at], L);
    } else if (left >= 3 && left % 3 == 0 && left / 3 <= MAX_LANDSCAPES) {
        for (; at < left; at += 3, nland++)
            L[nland] = (struct landscape){.policy = argv[at], .kernel = argv[at + 1], .csv = argv[at + 2]};
    } else {
        fputs(usage, stderr);
        return 2;
    }
    if (!nland && !opt.nt4)
        die("%s: no kernels", argv[at]);
    size_t nown = nland;
    for (size_t i = 0; i < opt.nt4; i++, nland++) {
        if (nland == MAX_LANDSCAPES)
            die("more than %d landscapes", MAX_LANDSCAPES);
        L[nland] = (struct landscape){.csv = opt.t4[i][0], .t1 = opt.t4[i][1], .policy = opt.t4[i][1]};
    }
    for (size_t i = 0; i < nland; i++) {
        if (i >= nown)
            load_t1(&L[i]);
        load_policy(&L[i]);
        if (i >= nown) {
            load_t4(&L[i]);
            t4_baseline(&L[i]);
            continue;
        }
        load_landscape(&L[i]);
        L[i].baseline = read_baseline(L[i].csv, L[i].kernel);
    }
    size_t n = strategy_list(names);
    printf("replay: %zu strategies on %zu landscapes; trials to reach 90/95/99%% of the optimum's speed (median, "
           "and as a share of the space)\n",
           n, nland);
    for (size_t i = 0; i < nland; i++)
        replay(&L[i], i, names, n, t);
    summary(names, n, t, nland);
    if (opt.loo)
        leave_one_out(L, nland, names, n);
    return 0;
}
