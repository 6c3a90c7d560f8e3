/* plot.c: a tuned signature's convergence as an SVG picture.
 *
 * GPUTUNE_PLOTS=DIR asks for one picture per signature tuned in the run:
 * the best time so far after each trial, against the original's time, so
 * that one sees whether the budget was short (still falling at the end) or
 * long (flat after a few trials).  A session notes its trials only when
 * plots are asked for, a record each, so a series is bounded by the
 * session's budget.trials; at exit session.c writes them.  Each trial is a
 * dot: filled at its time, open at how long it ran when the watchdog cut
 * it short (a lower bound), red on the axis when it gave no time; the
 * best-so-far line has a point per trial from the first timed one on.
 * The file is plain SVG (no script, no outside style): browsers, notebooks
 * and XML parsers read it.  Its name is the kernel's name in the letters
 * any file system takes, then a hash of kernel, image and signature that
 * keeps two signatures of one kernel apart. */
#include "plot.h"
#include "arena.h"
#include "errmsg.h"
#include "utf8.h"
#include "xml.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 720
#define HEIGHT 440
#define LEFT 84    /* room for the time axis' labels */
#define RIGHT 24
#define TOP 76     /* the title's two lines and the legend */
#define BOTTOM 52
#define TITLE_CHARS 100 /* a kernel's name shown in full only in the tooltip */
#define NAME_BYTES 60

void gt_plot_add(struct gt_plot *pl, enum gt_trial_status st, double us)
{
    if (gt_grow((void **)&pl->v, &pl->cap, pl->n + 1, sizeof *pl->v) == 0) /* else the session keeps nothing */
        pl->v[pl->n++] = (struct gt_plot_trial){.us = us, .status = st};
}

void gt_plot_free(struct gt_plot *pl)
{
    free(pl->v);
    *pl = (struct gt_plot){0};
}

/* ---- the file's name ---- */

static int portable(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/* The kernel's name in portable letters, runs of others as one '_', no
 * leading dot, at most NAME_BYTES. */
static void file_stem(const char *kernel, char *out)
{
    size_t n = 0;
    for (const char *p = kernel; *p && n < NAME_BYTES; p++) {
        if (portable(*p) && !(n == 0 && *p == '.'))
            out[n++] = *p;
        else if (n && out[n - 1] != '_')
            out[n++] = '_';
    }
    while (n && out[n - 1] == '_')
        n--;
    out[n] = '\0';
    if (!n)
        strcpy(out, "kernel");
}

/* ---- scales ---- */

struct axis {
    double lo, hi;   /* the values at the two ends */
    double step;     /* between ticks */
};

/* 1, 2 or 5 times a power of ten, at least x. */
static double nice(double x)
{
    double p = pow(10, floor(log10(x))), f = x / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

static struct axis time_axis(const struct gt_plot *pl, double baseline)
{
    double lo = baseline, hi = baseline;
    for (size_t i = 0; i < pl->n; i++)
        if (pl->v[i].status == GT_TRIAL_OK && pl->v[i].us > 0) {
            lo = fmin(lo, pl->v[i].us);
            hi = fmax(hi, pl->v[i].us);
        }
    double pad = hi > lo ? (hi - lo) * 0.08 : fmax(hi * 0.1, 1e-3);
    struct axis a = {.lo = fmax(lo - pad, 0), .hi = hi + pad};
    a.step = nice((a.hi - a.lo) / 5);
    return a;
}

static double xpos(size_t trial, size_t n)
{
    return LEFT + (double)(WIDTH - LEFT - RIGHT) * (double)trial / (double)(n ? n : 1);
}

/* A time's height, held inside the plot (a cut trial may have run far longer). */
static double ypos(const struct axis *a, double us)
{
    double f = (us - a->lo) / (a->hi - a->lo);
    return TOP + (HEIGHT - TOP - BOTTOM) * (1 - fmin(fmax(f, 0), 1));
}

/* ---- drawing ---- */

/* At most TITLE_CHARS characters of s, whole ones, with an ellipsis when cut. */
static void put_cut(FILE *f, const char *s)
{
    size_t at = 0, chars = 0, len;
    for (; s[at] && chars < TITLE_CHARS; chars++) {
        gt_utf8_next(s + at, &len);
        at += len;
    }
    char buf[TITLE_CHARS * 4 + 1];
    memcpy(buf, s, at);
    buf[at] = '\0';
    gt_xml_text(f, buf);
    fputs(s[at] ? "\xe2\x80\xa6" : "", f);
}

static void header(FILE *f, const struct gt_plot_title *t)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n<title>",
            WIDTH, HEIGHT, WIDTH, HEIGHT);
    gt_xml_text(f, t->kernel);
    fputs(" / ", f);
    gt_xml_text(f, t->signature);
    fprintf(f, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n"
               "<text id=\"kernel\" x=\"%d\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">",
            WIDTH, HEIGHT, WIDTH / 2);
    put_cut(f, t->kernel);
    fprintf(f, "</text>\n<text id=\"signature\" x=\"%d\" y=\"38\" text-anchor=\"middle\">", WIDTH / 2);
    gt_xml_text(f, t->signature);
    fputs("</text>\n", f);
}

static void legend(FILE *f)
{
    int y = 58;
    fprintf(f, "<g id=\"legend\">\n"
               "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#1f77b4\" stroke-width=\"2\"/>"
               "<text x=\"%d\" y=\"%d\">best so far</text>\n"
               "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\" stroke-dasharray=\"6 4\"/>"
               "<text x=\"%d\" y=\"%d\">original</text>\n"
               "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"#999\"/><text x=\"%d\" y=\"%d\">trial</text>\n"
               "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"none\" stroke=\"#999\"/>"
               "<text x=\"%d\" y=\"%d\">cut short (ran at least)</text>\n"
               "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"#d62728\"/><text x=\"%d\" y=\"%d\">no time</text>\n"
               "</g>\n",
            LEFT, y - 4, LEFT + 24, y - 4, LEFT + 30, y, LEFT + 120, y - 4, LEFT + 144, y - 4, LEFT + 150, y,
            LEFT + 224, y - 4, LEFT + 232, y, LEFT + 290, y - 4, LEFT + 298, y, LEFT + 480, y - 4, LEFT + 488, y);
}

static void axes(FILE *f, const struct axis *ya, size_t n)
{
    int x0 = LEFT, x1 = WIDTH - RIGHT, y0 = HEIGHT - BOTTOM, y1 = TOP;
    fprintf(f, "<g id=\"axes\" stroke=\"black\">\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n"
               "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n</g>\n<g id=\"ticks\">\n",
            x0, y0, x1, y0, x0, y0, x0, y1);
    double xstep = n > 6 ? nice((double)n / 6) : 1;
    for (double t = 0; t <= (double)n; t += xstep)
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>"
                   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f</text>\n",
                xpos((size_t)t, n), y0, xpos((size_t)t, n), y0 + 5, xpos((size_t)t, n), y0 + 18, t);
    for (double v = ceil(ya->lo / ya->step) * ya->step; v <= ya->hi; v += ya->step)
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                x0, ypos(ya, v), x1, ypos(ya, v), x0 - 6, ypos(ya, v) + 4, v);
    fprintf(f, "</g>\n<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">trial</text>\n"
               "<text transform=\"translate(18 %d) rotate(-90)\" text-anchor=\"middle\">"
               "best time so far (\xc2\xb5s)</text>\n",
            (x0 + x1) / 2, HEIGHT - 14, (y0 + y1) / 2);
}

static void baseline(FILE *f, const struct axis *ya, double us)
{
    double y = ypos(ya, us);
    fprintf(f, "<line id=\"baseline\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#555\" "
               "stroke-dasharray=\"6 4\"/>\n<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">"
               "original %.2f \xc2\xb5s</text>\n",
            LEFT, y, WIDTH - RIGHT, y, WIDTH - RIGHT - 4, y - 5, us);
}

static void best_line(FILE *f, const struct axis *ya, const struct gt_plot *pl)
{
    double best = -1;
    int open = 0;
    for (size_t i = 0; i < pl->n; i++) {
        if (pl->v[i].status == GT_TRIAL_OK && pl->v[i].us > 0 && (best < 0 || pl->v[i].us < best))
            best = pl->v[i].us;
        if (best < 0)
            continue;
        if (!open)
            fputs("<polyline id=\"best\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"", f);
        fprintf(f, "%s%.1f,%.1f", open ? " " : "", xpos(i + 1, pl->n), ypos(ya, best));
        open = 1;
    }
    if (open)
        fputs("\"/>\n", f);
}

static void trials(FILE *f, const struct axis *ya, const struct gt_plot *pl)
{
    static const char *const what[] = {[GT_TRIAL_OK] = "ok", [GT_TRIAL_INVALID] = "invalid",
                                       [GT_TRIAL_ABORTED] = "cut"};
    fputs("<g id=\"trials\">\n", f);
    for (size_t i = 0; i < pl->n; i++) {
        const struct gt_plot_trial *t = &pl->v[i];
        int timed = t->status != GT_TRIAL_INVALID && t->us >= 0;
        const char *look = t->status == GT_TRIAL_OK ? "fill=\"#999\""
                           : timed                  ? "fill=\"none\" stroke=\"#999\""
                                                    : "fill=\"#d62728\"";
        fprintf(f, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" %s><title>trial %zu: ", what[t->status],
                xpos(i + 1, pl->n), timed ? ypos(ya, t->us) : (double)(HEIGHT - BOTTOM), look, i + 1);
        if (t->status == GT_TRIAL_OK)
            fprintf(f, "%.2f \xc2\xb5s", t->us);
        else if (timed)
            fprintf(f, "cut short after %.2f \xc2\xb5s", t->us);
        else
            fputs("no time (did not build, load, run or match)", f);
        fputs("</title></circle>\n", f);
    }
    fputs("</g>\n", f);
}

int gt_plot_save(const char *dir, const struct gt_plot_title *t, const struct gt_plot *pl, char *path, size_t cap,
                 char *err, size_t errlen)
{
    char stem[NAME_BYTES + 1];
    file_stem(t->kernel, stem);
    if (snprintf(path, cap, "%s/%s-%016llx.svg", dir, stem, (unsigned long long)t->key) >= (int)cap) {
        gt_errf(err, errlen, "%s/%s-...: the path is too long", dir, stem);
        return -1;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        gt_errf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct axis ya = time_axis(pl, t->baseline_us);
    header(f, t);
    legend(f);
    axes(f, &ya, pl->n);
    baseline(f, &ya, t->baseline_us);
    best_line(f, &ya, pl);
    trials(f, &ya, pl);
    fputs("</svg>\n", f);
    int bad = fflush(f) != 0 ? errno : ferror(f) ? EIO : 0;
    if (fclose(f) != 0 && !bad)
        bad = errno;
    if (bad)
        gt_errf(err, errlen, "%s: %s", path, strerror(bad));
    return bad ? -1 : 0;
}
