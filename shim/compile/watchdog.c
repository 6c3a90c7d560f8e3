/* watchdog.c: PTX instrumentation that stops a trial at its deadline.
 *
 * A variant tens of times slower than the best cannot win, and waiting for
 * it dominates tuning time.  `trap` would stop it but poisons the context
 * for good, so an instrumented build stops itself: its threads compare
 * %globaltimer with a deadline and `exit`.  The deadline lives in the
 * module variable __gputune_watchdog, armed before each trial (deadline 0,
 * a budget) on the trial's stream; the first block to start fixes it at
 * start + budget with a compare-and-swap, so it is one absolute time for
 * the whole grid, whenever the grid actually starts.  Threads that stop
 * set the word the host reads afterwards.
 *
 * Exits must never strand a thread that waits for another, so where checks
 * go depends on what the kernel (and every function it calls) does:
 *
 *   - at entry, always: thread 0 decides, and a barrier-reduction
 *     (bar.red.or) hands its decision to the whole block before any of
 *     the kernel's own code runs;
 *   - with no barriers, warp-collective or asynchronous instructions at
 *     all, each thread checks at every loop head and may leave alone;
 *   - with block barriers `bar.sync 0` (and only those on barrier 0, no
 *     asynchronous copies in flight to abandon), the first of each loop
 *     becomes a barrier-reduction that decides for the block, so a loop
 *     with a __syncthreads() in it is checked once per iteration (every
 *     thread of a block runs the same bar.sync of each phase; barriers
 *     without .aligned may pair with one another, so all of those change);
 *   - any other loop keeps only the entry check, said in the report;
 *   - kernels of thread block clusters get no checks: a cluster's blocks
 *     cannot decide together.
 *
 * Checks sit in blocks of their own `{ }` with their own registers; the
 * kernel keeps the deadline in one 64-bit register for its loop checks.
 * Reads of the deadline may come from L1: it changes once, from 0 to its
 * value, by the compare-and-swap of a thread 0 that read 0 on the same SM
 * (which drops that SM's copy), so a cached read is never wrong, and a
 * volatile read by every block would queue the whole grid on one line of
 * L2. */
#include "watchdog.h"
#include "alloc.h"
#include "errmsg.h"
#include "policy.h"
#include "ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W GT_WATCHDOG_SYMBOL

const char gt_watchdog_header[] =
    "/* gputune_watchdog.h: the trial's deadline, for kernels that check it themselves.\n"
    " * Included in source variants built for trials that may be cut short. */\n"
    "#define GPUTUNE_WATCHDOG 1\n"
    "extern \"C\" {\n"
    "__device__ unsigned long long " W "[3] = {~0ull, 0ull, 0ull};\n"
    "}\n"
    "/* True once the trial is past its deadline (and then marks it cut short).  A\n"
    " * kernel that returns on it must do so uniformly over its block, e.g.\n"
    " * if (__syncthreads_or(gputune_expired())) return; */\n"
    "static __device__ __forceinline__ bool gputune_expired(void)\n"
    "{\n"
    "    unsigned long long now, deadline = __ldca(&" W "[0]);\n"
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(now));\n"
    "    if (deadline == 0 || now <= deadline)\n"
    "        return false;\n"
    "    *(volatile unsigned long long *)&" W "[1] = 1;\n"
    "    return true;\n"
    "}\n";

/* ---- the checks ---- */

/* Sets the predicate when past the deadline (%gtw_n gets the time).  The
 * kernel holds the deadline in %gtw_dl; a function it calls reads it again,
 * where 0 (not started) never expires. */
static void emit_expired(FILE *f, int in_kernel, const char *pred)
{
    if (!f)
        return;
    fputs("\tmov.u64 %gtw_n, %globaltimer;\n", f);
    if (in_kernel) {
        fprintf(f, "\tsetp.gt.u64 %s, %%gtw_n, %%gtw_dl;\n", pred);
        return;
    }
    fprintf(f, "\tld.global.ca.u64 %%gtw_d, [" W "];\n\tsetp.ne.u64 %s, %%gtw_d, 0;\n"
               "\tsetp.gt.and.u64 %s, %%gtw_n, %%gtw_d, %s;\n", pred, pred, pred);
}

/* Threads with %gtw_p set go to the function's stop block. */
static void emit_stop(FILE *f)
{
    fputs("\t@%gtw_p bra $gtw_stop;\n", f);
}

/* Out of line, so that a check costs a branch: the time it stopped marks
 * the trial cut short.  `ret` first: nothing falls into it. */
static void emit_stop_block(FILE *f)
{
    if (!f)
        return;
    fputs("\tret;\n"
          "$gtw_stop: // gputune watchdog: stop\n"
          "\t{\n"
          "\t.reg .b64 %gtw_n;\n"
          "\tmov.u64 %gtw_n, %globaltimer;\n"
          "\tst.global.u64 [" W "+8], %gtw_n;\n"
          "\texit;\n"
          "\t}\n", f);
}

/* Thread 0 reads the deadline, or fixes it if its block is the grid's
 * first; the block stops together on its word. */
static void emit_entry(FILE *f, int keep_deadline)
{
    if (!f)
        return;
    fputs("\n\t// gputune watchdog: entry check\n", f);
    if (keep_deadline)
        fputs("\t.reg .b64 %gtw_dl;\n", f);
    fputs("\t{\n"
          "\t.reg .pred %gtw_p, %gtw_q, %gtw_s;\n"
          "\t.reg .b32 %gtw_t, %gtw_u;\n"
          "\t.reg .b64 %gtw_n, %gtw_d, %gtw_b;\n"
          "\tmov.u32 %gtw_t, %tid.x;\n"
          "\tmov.u32 %gtw_u, %tid.y;\n"
          "\tor.b32 %gtw_t, %gtw_t, %gtw_u;\n"
          "\tmov.u32 %gtw_u, %tid.z;\n"
          "\tor.b32 %gtw_t, %gtw_t, %gtw_u;\n"
          "\tsetp.eq.u32 %gtw_q, %gtw_t, 0;\n"
          "\tmov.u64 %gtw_d, -1;\n"
          "\tmov.u64 %gtw_n, %globaltimer;\n"
          "\t@%gtw_q ld.global.ca.u64 %gtw_d, [" W "];\n"
          "\tsetp.eq.and.u64 %gtw_s, %gtw_d, 0, %gtw_q;\n"
          "\t@%gtw_s ld.global.ca.u64 %gtw_b, [" W "+16];\n"
          "\t@%gtw_s add.u64 %gtw_b, %gtw_n, %gtw_b;\n"
          "\t@%gtw_s atom.global.cas.b64 %gtw_d, [" W "], 0, %gtw_b;\n"
          "\t@%gtw_s setp.eq.u64 %gtw_s, %gtw_d, 0;\n"
          "\t@%gtw_s mov.u64 %gtw_d, %gtw_b;\n"
          "\tsetp.gt.and.u64 %gtw_p, %gtw_n, %gtw_d, %gtw_q;\n"
          "\tbar.red.or.pred %gtw_p, 0, %gtw_p;\n", f);
    emit_stop(f);
    /* Thread 0's swap is done: a 0 here is a stale copy, read again from L2.
     * A thread that still reads 0 never stops: a late stop, never a wrong one. */
    if (keep_deadline)
        fputs("\tld.global.ca.u64 %gtw_dl, [" W "];\n"
              "\tsetp.eq.u64 %gtw_s, %gtw_dl, 0;\n"
              "\t@%gtw_s ld.volatile.global.u64 %gtw_dl, [" W "];\n"
              "\tsetp.eq.u64 %gtw_s, %gtw_dl, 0;\n"
              "\t@%gtw_s mov.u64 %gtw_dl, -1;\n", f);
    fputs("\t}\n", f);
}

static void emit_loop_check(FILE *f, int in_kernel)
{
    if (!f)
        return;
    fputs("\n\t{ // gputune watchdog: loop check\n"
          "\t.reg .pred %gtw_p;\n"
          "\t.reg .b64 %gtw_n, %gtw_d;\n", f);
    emit_expired(f, in_kernel, "%gtw_p");
    emit_stop(f);
    fputs("\t}\n", f);
}

/* `[guard] bar.sync 0;` as the barrier-reduction of every thread's verdict;
 * a thread whose guard is false keeps %gtw_p false. */
static void emit_barrier_check(FILE *f, const char *text, const struct gt_ptx_barrier *b, int in_kernel)
{
    if (!f)
        return;
    const char *op = text + b->opcode;
    size_t glen = b->opcode - b->begin, sync = 0;
    while (glen && (text[b->begin + glen - 1] == ' ' || text[b->begin + glen - 1] == '\t'))
        glen--;
    for (size_t i = 0; i + 5 <= b->opcode_len; i++)
        if (memcmp(op + i, ".sync", 5) == 0 && (i + 5 == b->opcode_len || op[i + 5] == '.'))
            sync = i;
    fputs("{ // gputune watchdog: barrier check\n"
          "\t.reg .pred %gtw_p, %gtw_q;\n"
          "\t.reg .b64 %gtw_n, %gtw_d;\n", f);
    emit_expired(f, in_kernel, "%gtw_q");
    if (glen)
        fprintf(f, "\tsetp.ne.u64 %%gtw_p, %%gtw_n, %%gtw_n;\n\t%.*s ", (int)glen, text + b->begin);
    else
        fputc('\t', f);
    fprintf(f, "%.*s.red%.*s.or.pred %%gtw_p, 0, %%gtw_q;\n", (int)sync, op, (int)(b->opcode_len - sync - 5),
            op + sync + 5);
    emit_stop(f);
    fputs("\t}", f);
}

/* ---- planning the edits ---- */

struct edit {
    size_t at, cut; /* replace text[at, at+cut) */
    char *text;
    size_t len, order;
};

struct plan {
    const char *ptx;
    const struct gt_ptx_module *m;
    const struct gt_ptx_func *kernel;
    struct edit *v;
    size_t n, cap;
    FILE *f;        /* the edit being written */
    char *buf;
    size_t len;
    int failed;
};

/* A stream for the next edit's text; NULL once out of memory (emitters
 * then write nothing). */
static FILE *edit_begin(struct plan *p)
{
    p->buf = NULL;
    p->f = p->failed ? NULL : open_memstream(&p->buf, &p->len);
    p->failed |= !p->f;
    return p->f;
}

static void edit_end(struct plan *p, size_t at, size_t cut)
{
    if (!p->f)
        return;
    int bad = ferror(p->f) != 0;
    bad |= fclose(p->f) != 0;
    p->f = NULL;
    if (!bad && p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        struct edit *v = gt_realloc(p->v, cap * sizeof *v);
        if (v) {
            p->v = v;
            p->cap = cap;
        }
    }
    if (bad || p->n == p->cap) {
        free(p->buf);
        p->failed = 1;
        return;
    }
    p->v[p->n] = (struct edit){at, cut, p->buf, p->len, p->n};
    p->n++;
}

static int cmp_edit(const void *a, const void *b)
{
    const struct edit *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The text with the edits made, or NULL without memory. */
static char *apply(struct plan *p)
{
    size_t size = strlen(p->ptx), total = size + 1;
    for (size_t i = 0; i < p->n; i++)
        total += p->v[i].len;
    char *out = gt_malloc(total), *w = out;
    if (!out)
        return NULL;
    qsort(p->v, p->n, sizeof *p->v, cmp_edit);
    size_t at = 0;
    for (size_t i = 0; i < p->n; i++) {
        memcpy(w, p->ptx + at, p->v[i].at - at);
        w += p->v[i].at - at;
        memcpy(w, p->v[i].text, p->v[i].len);
        w += p->v[i].len;
        at = p->v[i].at + p->v[i].cut;
    }
    memcpy(w, p->ptx + at, size - at);
    w[size - at] = '\0';
    return out;
}

/* Where a loop check goes: just after the label's ':'. */
static int after_label(const char *text, const struct gt_ptx_loop *l, size_t *at)
{
    size_t i = l->offset + strlen(l->label);
    while (text[i] == ' ' || text[i] == '\t')
        i++;
    if (text[i] != ':')
        return -1;
    *at = i + 1;
    return 0;
}

/* Marks the defined functions the kernel reaches; *uses gets what they use,
 * *external whether it calls code defined elsewhere. */
static int reach(const struct gt_ptx_module *m, size_t kernel, unsigned char *in, unsigned *uses, int *external)
{
    if (gt_ptx_reach(m, kernel, in) != 0)
        return -1;
    *uses = 0;
    *external = 0;
    for (size_t i = 0; i < m->nfuncs; i++) {
        *uses |= in[i] ? m->funcs[i].uses : 0;
        *external |= in[i] && m->funcs[i].is_extern;
    }
    return 0;
}

/* The first barrier inside the loop, or -1. */
static int first_barrier(const struct gt_ptx_func *f, const struct gt_ptx_loop *l)
{
    for (unsigned i = 0; i < f->nbarriers; i++)
        if (f->barriers[i].begin > l->offset && f->barriers[i].begin < l->back)
            return (int)i;
    return -1;
}

/* bar.sync and barrier.sync.aligned: every thread of the block at the same one. */
static int aligned(const char *text, const struct gt_ptx_barrier *b)
{
    const char *op = text + b->opcode;
    if (b->opcode_len > 4 && memcmp(op, "bar.", 4) == 0)
        return 1;
    for (size_t i = 0; i + 8 <= b->opcode_len; i++)
        if (memcmp(op + i, ".aligned", 8) == 0)
            return 1;
    return 0;
}

/* Why loops of a kernel with these uses get no checks of their own. */
static const char *why_open(int mode, unsigned uses, int external, int merge)
{
    if (mode == GT_WATCHDOG_ENTRY)
        return "the watchdog is set to entry";
    if (external)
        return "the kernel calls code defined in another module";
    if (uses & GT_PTX_USES_ASYNC)
        return "the kernel uses asynchronous copies or barriers";
    if (uses & GT_PTX_USES_BAR_MIXED)
        return "the kernel uses barrier 0 with arrive, red or a thread count";
    if (merge)
        return "no block barrier inside, and the kernel uses warp-collective instructions or named barriers";
    return "the kernel uses warp-collective instructions or named barriers";
}

struct counts {
    int loop_checks, barrier_checks, open_loops;
    unsigned open_lines[4];
};

/* Whether loop i lies inside another loop of f that gets a check at its
 * head: one check per iteration of the outer loop bounds how late a thread
 * stops, and a check in a short inner loop would cost more than its body. */
static int enclosed(const char *text, const struct gt_ptx_func *f, unsigned i)
{
    size_t at;
    for (unsigned j = 0; j < f->nloops; j++)
        if (j != i && f->loops[j].offset < f->loops[i].offset && f->loops[i].back <= f->loops[j].back &&
            after_label(text, &f->loops[j], &at) == 0)
            return 1;
    return 0;
}

/* The loop and barrier checks of one function the kernel reaches. */
static void plan_function(struct plan *p, const struct gt_ptx_func *f, int per_thread, int merge, struct counts *c)
{
    int in_kernel = f == p->kernel, before = c->loop_checks + c->barrier_checks;
    unsigned char *decide = gt_calloc(f->nbarriers ? f->nbarriers : 1, 1);
    if (!decide) {
        p->failed = 1;
        return;
    }
    for (unsigned i = 0; i < f->nloops; i++) {
        size_t at;
        int b = merge ? first_barrier(f, &f->loops[i]) : -1;
        if (per_thread && enclosed(p->ptx, f, i))
            continue;
        if (per_thread && after_label(p->ptx, &f->loops[i], &at) == 0) {
            emit_loop_check(edit_begin(p), in_kernel);
            edit_end(p, at, 0);
            c->loop_checks++;
        } else if (b >= 0) {
            decide[b] = 1;
        } else {
            if (c->open_loops < 4)
                c->open_lines[c->open_loops] = f->loops[i].line;
            c->open_loops++;
        }
    }
    for (unsigned i = 0; merge && i < f->nbarriers; i++) {
        if (!decide[i] && aligned(p->ptx, &f->barriers[i]))
            continue;
        emit_barrier_check(edit_begin(p), p->ptx, &f->barriers[i], in_kernel);
        edit_end(p, f->barriers[i].begin, f->barriers[i].end - f->barriers[i].begin);
        c->barrier_checks++;
    }
    free(decide);
    if (!in_kernel && c->loop_checks + c->barrier_checks > before) {
        emit_stop_block(edit_begin(p));
        edit_end(p, f->end - 1, 0);
    }
}

static void describe(struct gt_wd_report *rep, const struct counts *c, const char *why)
{
    int n = snprintf(rep->note, sizeof rep->note, "entry check, %d loop-head and %d barrier checks", c->loop_checks,
                     c->barrier_checks);
    if (c->open_loops && n > 0 && (size_t)n < sizeof rep->note) {
        char lines[64] = "";
        for (int i = 0; i < c->open_loops && i < 4; i++)
            snprintf(lines + strlen(lines), sizeof lines - strlen(lines), "%s%u", i ? ", " : "", c->open_lines[i]);
        snprintf(rep->note + n, sizeof rep->note - (size_t)n, "; %d loop%s (line %s%s) only the entry check: %s",
                 c->open_loops, c->open_loops > 1 ? "s" : "", lines, c->open_loops > 4 ? ", ..." : "", why);
    }
}

/* The checks of one kernel; 1 when it must stay as it is (rep->note says why). */
static int plan_kernel(struct plan *p, size_t kidx, int mode, struct gt_wd_report *rep)
{
    const struct gt_ptx_module *m = p->m;
    unsigned char *in = gt_calloc(m->nfuncs, 1);
    unsigned uses;
    int external;
    if (!in || reach(m, kidx, in, &uses, &external) != 0) {
        free(in);
        p->failed = 1;
        return -1;
    }
    if (uses & GT_PTX_USES_CLUSTER) {
        snprintf(rep->note, sizeof rep->note, "no checks: the kernel uses thread block clusters, whose blocks "
                 "cannot stop together");
        free(in);
        return 1;
    }
    unsigned collective = GT_PTX_USES_BAR0 | GT_PTX_USES_BAR_MIXED | GT_PTX_USES_BAR_NAMED | GT_PTX_USES_WARP |
                          GT_PTX_USES_ASYNC;
    int loops = mode == GT_WATCHDOG_LOOPS && !external;
    int per_thread = loops && !(uses & collective);
    int merge = loops && (uses & GT_PTX_USES_BAR0) && !(uses & (GT_PTX_USES_BAR_MIXED | GT_PTX_USES_ASYNC));
    struct counts c = {0};
    plan_function(p, p->kernel, per_thread, merge, &c);
    int own = c.loop_checks + c.barrier_checks; /* checks that read the kernel's deadline register */
    for (size_t i = 0; i < m->nfuncs; i++)
        if (in[i] && i != kidx && !m->funcs[i].is_extern)
            plan_function(p, &m->funcs[i], per_thread, merge, &c);
    free(in);
    emit_entry(edit_begin(p), own > 0);
    edit_end(p, p->kernel->body + 1, 0);
    emit_stop_block(edit_begin(p));
    edit_end(p, p->kernel->end - 1, 0);
    rep->entry = 1;
    rep->loop_checks = c.loop_checks;
    rep->barrier_checks = c.barrier_checks;
    rep->open_loops = c.open_loops;
    describe(rep, &c, why_open(mode, uses, external, merge));
    return 0;
}

/* The module variable, unless the module defines it (a source variant that
 * included gputune_watchdog.h); -1 if it only declares it. */
static int plan_variable(struct plan *p, char *err, size_t errlen)
{
    for (size_t i = 0; i < p->m->nvars; i++) {
        if (strcmp(p->m->vars[i].name, W) != 0)
            continue;
        if (p->m->vars[i].is_extern)
            return gt_errf(err, errlen, "the PTX declares " W " without defining it");
        return 0;
    }
    fputs("\n.visible .global .align 8 .u64 " W "[3] = {0xFFFFFFFFFFFFFFFF, 0, 0};\n", edit_begin(p));
    edit_end(p, p->m->header_end, 0);
    return 0;
}

/* Instruments `kernel` (its mangled name) in `ptx` for watchdog mode `mode`
 * (enum gt_watchdog).  Returns 0 with the new text in *out (free it), 1 when
 * the kernel stays as it is (rep->note says why, *out is NULL), -1 with a
 * message in err. */
int gt_watchdog_instrument(const char *ptx, const char *kernel, int mode, char **out, struct gt_wd_report *rep,
                           char *err, size_t errlen)
{
    memset(rep, 0, sizeof *rep);
    *out = NULL;
    if (mode == GT_WATCHDOG_OFF) {
        snprintf(rep->note, sizeof rep->note, "no checks: the watchdog is off");
        return 1;
    }
    struct gt_ptx_module m;
    if (gt_ptx_parse(ptx, strlen(ptx), &m, err, errlen) != 0)
        return -1;
    const struct gt_ptx_func *k = gt_ptx_find(&m, kernel);
    if (!k || !k->is_entry || k->is_extern) {
        gt_ptx_free(&m);
        return gt_errf(err, errlen, "the PTX defines no kernel %s", kernel);
    }
    struct plan p = {.ptx = ptx, .m = &m, .kernel = k};
    int rc = plan_variable(&p, err, errlen);
    if (rc == 0)
        rc = plan_kernel(&p, (size_t)(k - m.funcs), mode, rep);
    if (rc == 0 && !p.failed && !(*out = apply(&p)))
        p.failed = 1;
    if (p.failed && rc >= 0) {
        free(*out);
        *out = NULL;
        rc = gt_errf(err, errlen, "out of memory");
    }
    for (size_t i = 0; i < p.n; i++)
        free(p.v[i].text);
    free(p.v);
    gt_ptx_free(&m);
    return rc;
}
