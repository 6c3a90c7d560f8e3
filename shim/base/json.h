/* json.h: JSON text, read and written strictly (see json.c). */
#ifndef GT_JSON_H
#define GT_JSON_H

#include <stddef.h>
#include <stdio.h>

struct gt_arena;

enum gt_json_kind { GT_JSON_NULL, GT_JSON_BOOL, GT_JSON_NUMBER, GT_JSON_STRING, GT_JSON_ARRAY, GT_JSON_OBJECT };

/* One value of a parsed document; everything lives in the parse's arena. */
struct gt_json {
    enum gt_json_kind kind;
    size_t at;             /* byte offset of its first character in the text, for messages */
    int boolean;
    double number;
    const char *text;      /* a string, UTF-8 without NUL inside; a number as written */
    size_t n;              /* elements of an array, members of an object */
    struct gt_json *items; /* the elements; an object's values */
    const char **keys;     /* an object's keys, in the order written */
};

#define GT_JSON_MAX_DEPTH 256 /* arrays and objects nested at most */

struct gt_json *gt_json_parse(struct gt_arena *a, const char *text, size_t len, char *err, size_t errlen);
const struct gt_json *gt_json_member(const struct gt_json *obj, const char *key);
void gt_json_where(const char *text, size_t at, int *line, int *column);

/* Writing: values are separated, indented and closed by the writer. */
struct gt_jsonw {
    FILE *f;
    int indent;            /* spaces per level; 0: all on one line */
    int depth;
    int keyed;             /* a key was just written: its value follows */
    unsigned char filled[GT_JSON_MAX_DEPTH]; /* the open array or object holds a value already */
};

void gt_jsonw_init(struct gt_jsonw *w, FILE *f, int indent);
void gt_jsonw_open(struct gt_jsonw *w, char bracket);
void gt_jsonw_close(struct gt_jsonw *w, char bracket);
void gt_jsonw_key(struct gt_jsonw *w, const char *key);
void gt_jsonw_str(struct gt_jsonw *w, const char *s);
void gt_jsonw_num(struct gt_jsonw *w, double v);
void gt_jsonw_int(struct gt_jsonw *w, long long v);
void gt_jsonw_literal(struct gt_jsonw *w, const char *text);

void gt_json_str(FILE *f, const char *s);

#endif
