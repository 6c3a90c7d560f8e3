/* csv.h: CSV fields as RFC 4180 writes them (see csv.c). */
#ifndef GT_CSV_H
#define GT_CSV_H

#include <stdio.h>

/* Writes s as one quoted field: "a ""b"", c". */
void gt_csv_quoted(FILE *f, const char *s);

#endif
