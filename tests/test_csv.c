/* test_csv: CSV fields as RFC 4180 writes them, read back as a CSV reader
 * would; and the per-process paths of the files the shim writes. */
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
    is_str(buf, want, name);
}

int main(void)
{
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
