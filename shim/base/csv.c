/* csv.c: CSV fields as RFC 4180 writes and reads them.
 *
 * Kernel names carry commas (argument lists), quotes (character literals
 * in template arguments) and anything else a C++ name can hold, and the
 * files the shim writes (GPUTUNE_REPORT, GPUTUNE_TRIALS) are read by
 * spreadsheets, pandas and other tuners: every text field is quoted, and a
 * quote inside is doubled.  The reader takes them back (`gputune cache
 * export --trials`): a quoted field may hold commas, doubled quotes and
 * line breaks; a quote anywhere else is an error, named by its line. */
#include "csv.h"
#include "arena.h"
#include "errmsg.h"

#include <stdlib.h>
#include <string.h>

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

void gt_csv_init(struct gt_csv *c, const char *text, size_t len)
{
    *c = (struct gt_csv){.p = text, .end = text + len, .line = 1};
}

void gt_csv_free(struct gt_csv *c)
{
    free(c->fields);
    free(c->buf);
    free(c->offs);
    *c = (struct gt_csv){0};
}

static int put(struct gt_csv *c, size_t *used, char ch)
{
    if (gt_grow((void **)&c->buf, &c->cap, *used + 1, 1) != 0)
        return -1;
    c->buf[(*used)++] = ch;
    return 0;
}

static int at(const struct gt_csv *c, char ch)
{
    return c->p < c->end && *c->p == ch;
}

static int field_end(const struct gt_csv *c)
{
    return c->p >= c->end || *c->p == ',' || *c->p == '\n' || *c->p == '\r';
}

/* One field at c->p into buf; 0, or -1 with err. */
static int field(struct gt_csv *c, size_t *used, char *err, size_t errlen)
{
    if (!at(c, '"')) {
        while (!field_end(c))
            if (*c->p == '"')
                return gt_errf(err, errlen, "line %d: a quote inside a field that does not begin with one", c->line);
            else if (put(c, used, *c->p++) != 0)
                return gt_errf(err, errlen, "out of memory");
        return 0;
    }
    int open_line = c->line;
    for (c->p++;; c->p++) {
        if (c->p >= c->end)
            return gt_errf(err, errlen, "line %d: a quoted field is not closed", open_line);
        if (*c->p == '"' && !(c->p + 1 < c->end && c->p[1] == '"'))
            break;
        c->p += *c->p == '"'; /* a doubled quote stands for one */
        c->line += *c->p == '\n';
        if (put(c, used, *c->p) != 0)
            return gt_errf(err, errlen, "out of memory");
    }
    c->p++;
    return field_end(c) ? 0 : gt_errf(err, errlen, "line %d: text after a quoted field's closing quote", c->line);
}

/* The next record into c->fields and c->n: 1, 0 at the end of the text,
 * or -1 with err. */
int gt_csv_next(struct gt_csv *c, char *err, size_t errlen)
{
    if (c->p >= c->end)
        return 0;
    size_t used = 0;
    c->n = 0;
    c->record_line = c->line;
    for (;;) {
        if (gt_grow((void **)&c->offs, &c->ocap, c->n + 1, sizeof *c->offs) != 0)
            return gt_errf(err, errlen, "out of memory");
        c->offs[c->n++] = used;
        if (field(c, &used, err, errlen) != 0)
            return -1;
        if (put(c, &used, '\0') != 0)
            return gt_errf(err, errlen, "out of memory");
        if (!at(c, ','))
            break;
        c->p++;
    }
    c->p += at(c, '\r');
    if (at(c, '\n')) {
        c->p++;
        c->line++;
    }
    if (gt_grow((void **)&c->fields, &c->fcap, c->n, sizeof *c->fields) != 0)
        return gt_errf(err, errlen, "out of memory");
    for (size_t i = 0; i < c->n; i++)
        c->fields[i] = c->buf + c->offs[i];
    return 1;
}
