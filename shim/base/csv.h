/* csv.h: CSV fields as RFC 4180 writes and reads them (see csv.c). */
#ifndef GT_CSV_H
#define GT_CSV_H

#include <stddef.h>
#include <stdio.h>

/* Writes s as one quoted field: "a ""b"", c". */
void gt_csv_quoted(FILE *f, const char *s);

/* Reading a text record by record. */
struct gt_csv {
    const char *p, *end;
    int line;              /* of the next record's first character */
    int record_line;       /* where the record read last began */
    char **fields;         /* its fields, valid until the next call */
    size_t n;
    char *buf;             /* the fields' bytes, each ended by NUL */
    size_t cap, fcap, *offs, ocap;
};

void gt_csv_init(struct gt_csv *c, const char *text, size_t len);
int gt_csv_next(struct gt_csv *c, char *err, size_t errlen);
void gt_csv_free(struct gt_csv *c);

#endif
