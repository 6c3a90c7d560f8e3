/* csv.c: CSV fields as RFC 4180 writes them.
 *
 * Kernel names carry commas (argument lists), quotes (character literals
 * in template arguments) and anything else a C++ name can hold, and the
 * files the shim writes (GPUTUNE_REPORT, GPUTUNE_TRIALS) are read by
 * spreadsheets, pandas and other tuners: every text field is quoted, and a
 * quote inside is doubled. */
#include "csv.h"

void gt_csv_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}
