/* test_csv: CSV fields as RFC 4180 writes them, read back by the reader
 * (quotes, commas and line breaks inside fields; malformed records named by
 * their line); and the per-process paths of the files the shim writes. */
#include "csv.h"
#include "pidpath.h"
#include "tap.h"

#include <unistd.h>

static void field(const char *s, const char *want, const char *name)
{
    char buf[256] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    gt_csv_quoted(f, s);
    fclose(f);
    is_str(buf, want, "%s", name);
}

static int next(struct gt_csv *c, char *err)
{
    err[0] = '\0';
    return gt_csv_next(c, err, 256);
}

/* What gt_csv_quoted writes reads back the same. */
static void reading(void)
{
    static const char *const names[] = {"saxpy(int, float, float const*, float*)", "pick<'\"'>(char)", "", "two\nlines",
                                        "\"\""};
    char text[512] = "", err[256];
    FILE *f = fmemopen(text, sizeof text - 1, "w");
    fputs("kernel,us\r\n", f);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        gt_csv_quoted(f, names[i]);
        fprintf(f, ",%zu.5\n", i);
    }
    fputs("plain,,last", f);
    fclose(f);
    struct gt_csv c;
    gt_csv_init(&c, text, strlen(text));
    ok(next(&c, err) == 1 && c.n == 2 && !strcmp(c.fields[0], "kernel") && !strcmp(c.fields[1], "us"),
       "a header ended by CRLF");
    int same = 1;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char want[16];
        snprintf(want, sizeof want, "%zu.5", i);
        same &= next(&c, err) == 1 && c.n == 2 && !strcmp(c.fields[0], names[i]) && !strcmp(c.fields[1], want);
    }
    ok(same, "every quoted field reads back as written: commas, doubled quotes, a line break, empty");
    int r = next(&c, err);
    ok(r == 1 && c.n == 3 && !strcmp(c.fields[1], "") && !strcmp(c.fields[2], "last") && c.record_line == 8,
       "unquoted and empty fields, a last record without a line end, its line counted past the break: %d",
       c.record_line);
    ok(next(&c, err) == 0, "then the end");
    gt_csv_free(&c);

    static const struct {
        const char *text, *want;
    } bad[] = {
        {"a,b\n\"open,1\n", "line 2: a quoted field is not closed"},
        {"a,b\nx\"y,1\n", "line 2: a quote inside a field that does not begin with one"},
        {"a\n\"q\"x,1\n", "line 2: text after a quoted field's closing quote"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gt_csv_init(&c, bad[i].text, strlen(bad[i].text));
        while ((r = next(&c, err)) == 1)
            ;
        ok(r == -1 && strstr(err, bad[i].want), "refused: %s", err);
        gt_csv_free(&c);
    }
}

int main(void)
{
    reading();
    field("saxpy(int, float, float const*, float*)", "\"saxpy(int, float, float const*, float*)\"",
          "commas stay inside the quotes");
    field("pick<'\"'>(char)", "\"pick<'\"\"'>(char)\"", "a quote is doubled");
    field("\"\"", "\"\"\"\"\"\"", "  each of them");
    field("", "\"\"", "an empty field");
    field(NULL, "\"\"", "no text: an empty field");

    char path[64], want[64];
    snprintf(want, sizeof want, "/tmp/report.%ld.csv", (long)getpid());
    gt_pidpath("/tmp/report.%p.csv", path, sizeof path);
    is_str(path, want, "%%p becomes the process id");
    gt_pidpath("/tmp/plain.csv", path, sizeof path);
    is_str(path, "/tmp/plain.csv", "a path without it stays");
    gt_pidpath("/tmp/a%pb%p", path, 12);
    ok(strlen(path) == 11, "cut at its buffer, terminated: %s", path);
    return done_testing();
}
