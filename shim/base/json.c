/* json.c: JSON text, read and written strictly (RFC 8259).
 *
 * `gputune inspect --json` writes reports, and `gputune cache` exports and
 * imports Kernel Tuner's T4 documents: no library is linked for that.  The
 * reader takes a whole document into a tree in an arena and refuses what
 * RFC 8259 does not allow (trailing commas, comments, leading zeros, NaN,
 * raw control characters, invalid UTF-8, unpaired surrogates, repeated
 * keys), naming the line and column; \u0000 too, since strings come back as
 * C strings.  Nesting is bounded, so that no file can exhaust the stack.
 *
 * The writer keeps UTF-8 as it is and escapes what JSON requires (quote,
 * backslash, control characters).  Names in device code are bytes, not
 * necessarily UTF-8: a byte that does not begin a valid UTF-8 sequence is
 * written as \u00XX, the character of that number, so the output always
 * parses.  Numbers take the fewest digits that read back as the same
 * double. */
#include "json.h"
#include "utf8.h"
#include "alloc.h"
#include "arena.h"
#include "errmsg.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at p, of which n bytes are
 * readable, or 0: overlong forms, surrogates and code points past U+10FFFF
 * are not valid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    unsigned c = p[0], cp, min;
    size_t len;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2, cp = c & 0x1f, min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3, cp = c & 0x0f, min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    return cp >= min && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? len : 0;
}

static size_t utf8_encode(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12);
        o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | cp >> 18);
    o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* ---- reading ---- */

struct reader {
    struct gt_arena *a;
    const char *text, *p, *end;
    char *err;
    size_t errlen;
    int depth;
    char *buf; /* a string's bytes while it is read */
    size_t cap;
};

/* 1-based line and column (in bytes) of offset `at`. */
void gt_json_where(const char *text, size_t at, int *line, int *column)
{
    *line = 1;
    size_t start = 0;
    for (size_t i = 0; i < at; i++)
        if (text[i] == '\n') {
            ++*line;
            start = i + 1;
        }
    *column = (int)(at - start) + 1;
}

static int fail(struct reader *r, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct reader *r, const char *at, const char *fmt, ...)
{
    char why[256];
    int line, column;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    gt_json_where(r->text, (size_t)(at - r->text), &line, &column);
    return gt_errf(r->err, r->errlen, "line %d, column %d: %s", line, column, why);
}

/* What stands where `want` should be, said. */
static int unexpected(struct reader *r, const char *want)
{
    if (r->p >= r->end)
        return fail(r, r->p, "the text ends where %s should be", want);
    unsigned char c = (unsigned char)*r->p;
    if (c > 0x20 && c < 0x7f)
        return fail(r, r->p, "'%c' where %s should be", c, want);
    return fail(r, r->p, "byte 0x%02x where %s should be", c, want);
}

static void skip_blanks(struct reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static int at_char(struct reader *r, char c)
{
    return r->p < r->end && *r->p == c;
}

static int value(struct reader *r, struct gt_json *v);

static int hex4(struct reader *r, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++, r->p++) {
        char c = r->p < r->end ? *r->p : 0;
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        *v = *v << 4 | (unsigned)d;
    }
    return 0;
}

/* The escape at r->p (a backslash) as UTF-8 in out; advances past it. */
static int escape(struct reader *r, char out[4], size_t *len)
{
    static const char names[] = "\"\\/bfnrt", chars[] = "\"\\/\b\f\n\r\t";
    const char *at = r->p;
    if (r->end - r->p < 2)
        return fail(r, at, "the string is not closed");
    char c = r->p[1];
    r->p += 2;
    const char *simple = c ? strchr(names, c) : NULL;
    if (simple) {
        out[0] = chars[simple - names];
        *len = 1;
        return 0;
    }
    if (c != 'u')
        return (unsigned char)c > 0x20 && (unsigned char)c < 0x7f ? fail(r, at, "unknown escape '\\%c'", c)
                                                                   : fail(r, at, "unknown escape");
    unsigned cp, lo;
    if (hex4(r, &cp) != 0)
        return fail(r, at, "\\u needs four hexadecimal digits");
    if (cp >= 0xdc00 && cp <= 0xdfff)
        return fail(r, at, "\\u%04x is a low surrogate without a high one before it", cp);
    if (cp >= 0xd800 && cp <= 0xdbff) {
        if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u' || (r->p += 2, hex4(r, &lo) != 0) || lo < 0xdc00 ||
            lo > 0xdfff)
            return fail(r, at, "\\u%04x is a high surrogate without a low one after it", cp);
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    }
    if (cp == 0)
        return fail(r, at, "\\u0000 is not accepted (strings are read as C strings)");
    *len = utf8_encode(out, cp);
    return 0;
}

/* The string at r->p into *out, its escapes undone. */
static int string(struct reader *r, const char **out)
{
    const char *start = r->p++;
    size_t n = 0;
    while (!at_char(r, '"')) {
        if (r->p >= r->end)
            return fail(r, start, "the string is not closed");
        unsigned char c = (unsigned char)*r->p;
        char esc[4];
        const char *from = r->p;
        size_t len = 0;
        if (c < 0x20)
            return fail(r, r->p, "control character 0x%02x inside a string (it must be escaped)", c);
        if (c == '\\') {
            if (escape(r, esc, &len) != 0)
                return -1;
            from = esc;
        } else if ((len = utf8_len((const unsigned char *)r->p, (size_t)(r->end - r->p))) == 0) {
            return fail(r, r->p, "byte 0x%02x is not valid UTF-8", c);
        } else {
            r->p += len;
        }
        if (gt_grow((void **)&r->buf, &r->cap, n + len, 1) != 0)
            return fail(r, start, "out of memory");
        memcpy(r->buf + n, from, len);
        n += len;
    }
    r->p++;
    *out = gt_arena_strndup(r->a, n ? r->buf : "", n);
    return *out ? 0 : fail(r, start, "out of memory");
}

static int digits(struct reader *r)
{
    const char *s = r->p;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
        r->p++;
    return r->p > s;
}

static int number(struct reader *r, struct gt_json *v)
{
    const char *s = r->p;
    if (at_char(r, '-'))
        r->p++;
    if (at_char(r, '0')) {
        r->p++;
        if (digits(r))
            return fail(r, s, "a number does not begin with 0 and more digits");
    } else if (!digits(r)) {
        return fail(r, r->p, "a number needs a digit here");
    }
    if (at_char(r, '.') && (r->p++, !digits(r)))
        return fail(r, r->p, "a number needs a digit after its '.'");
    if (at_char(r, 'e') || at_char(r, 'E')) {
        r->p++;
        if (at_char(r, '+') || at_char(r, '-'))
            r->p++;
        if (!digits(r))
            return fail(r, r->p, "a number needs a digit in its exponent");
    }
    v->kind = GT_JSON_NUMBER;
    v->text = gt_arena_strndup(r->a, s, (size_t)(r->p - s));
    if (!v->text)
        return fail(r, s, "out of memory");
    v->number = strtod(v->text, NULL);
    return isfinite(v->number) ? 0 : fail(r, s, "number %.40s is out of range", v->text);
}

static int literal(struct reader *r, struct gt_json *v, const char *word, enum gt_json_kind kind, int boolean)
{
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return unexpected(r, "a value");
    r->p += n;
    v->kind = kind;
    v->boolean = boolean;
    return 0;
}

/* Elements (and keys) gathered while a container is read, then copied
 * into the arena once its size is known. */
struct gather {
    struct gt_json *items;
    const char **keys;
    size_t n, cap, kcap;
};

static int finish(struct reader *r, struct gt_json *v, struct gather *g, enum gt_json_kind kind)
{
    v->kind = kind;
    v->n = g->n;
    v->items = gt_arena_memdup(r->a, g->items, g->n * sizeof *g->items);
    v->keys = kind == GT_JSON_OBJECT ? gt_arena_memdup(r->a, g->keys, g->n * sizeof *g->keys) : NULL;
    if (!v->items || (kind == GT_JSON_OBJECT && !v->keys))
        return fail(r, r->text + v->at, "out of memory");
    return 0;
}

struct placed_key {
    const char *key;
    size_t at;
};

static int by_key(const void *a, const void *b)
{
    const struct placed_key *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* No key twice: sorted, so that a large object costs n log n. */
static int unique_keys(struct reader *r, const struct gather *g, const size_t *key_at)
{
    if (g->n < 2)
        return 0;
    struct placed_key *k = gt_calloc(g->n, sizeof *k);
    if (!k)
        return fail(r, r->p, "out of memory");
    for (size_t i = 0; i < g->n; i++)
        k[i] = (struct placed_key){g->keys[i], key_at[i]};
    qsort(k, g->n, sizeof *k, by_key);
    int rc = 0;
    for (size_t i = 1; rc == 0 && i < g->n; i++)
        if (strcmp(k[i - 1].key, k[i].key) == 0)
            rc = fail(r, r->text + k[i].at, "key \"%.60s\" appears twice in one object", k[i].key);
    free(k);
    return rc;
}

static int member(struct reader *r, struct gather *g, size_t **key_at, size_t *atcap)
{
    skip_blanks(r);
    if (!at_char(r, '"'))
        return unexpected(r, "a key (a string)");
    if (gt_grow((void **)&g->items, &g->cap, g->n + 1, sizeof *g->items) != 0 ||
        gt_grow((void **)&g->keys, &g->kcap, g->n + 1, sizeof *g->keys) != 0 ||
        gt_grow((void **)key_at, atcap, g->n + 1, sizeof **key_at) != 0)
        return fail(r, r->p, "out of memory");
    (*key_at)[g->n] = (size_t)(r->p - r->text);
    if (string(r, &g->keys[g->n]) != 0)
        return -1;
    skip_blanks(r);
    if (!at_char(r, ':'))
        return unexpected(r, "':'");
    r->p++;
    g->items[g->n] = (struct gt_json){0};
    if (value(r, &g->items[g->n]) != 0)
        return -1;
    g->n++;
    return 0;
}

/* An array or an object, from its opening bracket. */
static int container(struct reader *r, struct gt_json *v, int object)
{
    const char close = object ? '}' : ']', *after = object ? "',' or '}'" : "',' or ']'";
    struct gather g = {0};
    size_t *key_at = NULL, atcap = 0;
    int rc = 0;
    if (++r->depth > GT_JSON_MAX_DEPTH)
        rc = fail(r, r->p, "arrays and objects nested deeper than %d", GT_JSON_MAX_DEPTH);
    r->p++;
    skip_blanks(r);
    if (rc == 0 && at_char(r, close)) {
        r->p++;
    } else {
        while (rc == 0) {
            if (object) {
                rc = member(r, &g, &key_at, &atcap);
            } else if (gt_grow((void **)&g.items, &g.cap, g.n + 1, sizeof *g.items) != 0) {
                rc = fail(r, r->p, "out of memory");
            } else {
                g.items[g.n] = (struct gt_json){0};
                rc = value(r, &g.items[g.n]);
                g.n += rc == 0;
            }
            skip_blanks(r);
            if (rc == 0 && at_char(r, close)) {
                r->p++;
                break;
            }
            if (rc == 0 && !at_char(r, ','))
                rc = unexpected(r, after);
            r->p += rc == 0;
        }
    }
    if (rc == 0 && object)
        rc = unique_keys(r, &g, key_at);
    if (rc == 0)
        rc = finish(r, v, &g, object ? GT_JSON_OBJECT : GT_JSON_ARRAY);
    free(g.items);
    free(g.keys);
    free(key_at);
    r->depth--;
    return rc;
}

static int value(struct reader *r, struct gt_json *v)
{
    skip_blanks(r);
    v->at = (size_t)(r->p - r->text);
    if (r->p >= r->end)
        return unexpected(r, "a value");
    switch (*r->p) {
    case '{':
        return container(r, v, 1);
    case '[':
        return container(r, v, 0);
    case '"':
        v->kind = GT_JSON_STRING;
        return string(r, &v->text);
    case 't':
        return literal(r, v, "true", GT_JSON_BOOL, 1);
    case 'f':
        return literal(r, v, "false", GT_JSON_BOOL, 0);
    case 'n':
        return literal(r, v, "null", GT_JSON_NULL, 0);
    default:
        return *r->p == '-' || (*r->p >= '0' && *r->p <= '9') ? number(r, v) : unexpected(r, "a value");
    }
}

/* The document in text[0, len) as a tree in a, or NULL with err ("line L,
 * column C: why"). */
struct gt_json *gt_json_parse(struct gt_arena *a, const char *text, size_t len, char *err, size_t errlen)
{
    struct reader r = {.a = a, .text = text, .p = text, .end = text + len, .err = err, .errlen = errlen};
    struct gt_json *v = gt_arena_alloc(a, sizeof *v);
    int rc = v ? value(&r, v) : gt_errf(err, errlen, "out of memory");
    skip_blanks(&r);
    if (rc == 0 && r.p < r.end)
        rc = fail(&r, r.p, "more text after the end of the document");
    free(r.buf);
    return rc == 0 ? v : NULL;
}

/* The value of obj's member `key`, or NULL (also when obj is not an object). */
const struct gt_json *gt_json_member(const struct gt_json *obj, const char *key)
{
    for (size_t i = 0; obj && obj->kind == GT_JSON_OBJECT && i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return &obj->items[i];
    return NULL;
}

/* ---- writing ---- */

/* `s` as a quoted JSON string; NULL as null. */
/* Names in device code and the paths of files are bytes, not necessarily
 * UTF-8, and JSON text must be (RFC 8259, section 8.1): well-formed
 * characters go as they are, so that a reader gets back the name it would
 * print; the quote, the backslash and the control characters are escaped;
 * each ill-formed part (utf8.c) becomes U+FFFD, the one change a reader
 * can see. */
static void put_escaped(FILE *f, unsigned char c)
{
    static const char hex[] = "0123456789abcdef";
    const char *named = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\t' ? "\\t"
                      : c == '\r' ? "\\r" : c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;
    if (named)
        fputs(named, f);
    else if (c < 0x20 || c == 0x7f) /* DEL may stand as it is, but no one wants it raw */
        fprintf(f, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
    else
        putc(c, f);
}

void gt_json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    putc('"', f);
    for (size_t len; *s; s += len) {
        if (!gt_utf8_next(s, &len))
            fputs(GT_UTF8_REPLACEMENT, f);
        else if (len == 1)
            put_escaped(f, (unsigned char)*s);
        else
            fwrite(s, 1, len, f);
    }
    putc('"', f);
}

void gt_jsonw_init(struct gt_jsonw *w, FILE *f, int indent)
{
    *w = (struct gt_jsonw){.f = f, .indent = indent};
}

static void newline(struct gt_jsonw *w)
{
    if (w->indent)
        fprintf(w->f, "\n%*s", w->depth * w->indent, "");
}

/* What goes before a value or a key: nothing after a key, else a comma
 * after the container's previous value, and the line break. */
static void next(struct gt_jsonw *w)
{
    if (w->keyed) {
        w->keyed = 0;
        return;
    }
    if (w->depth == 0)
        return;
    if (w->filled[w->depth - 1])
        putc(',', w->f);
    w->filled[w->depth - 1] = 1;
    newline(w);
}

/* Opens an array ('[') or an object ('{'), at most GT_JSON_MAX_DEPTH deep. */
void gt_jsonw_open(struct gt_jsonw *w, char bracket)
{
    next(w);
    putc(bracket, w->f);
    w->filled[w->depth++] = 0;
}

void gt_jsonw_close(struct gt_jsonw *w, char bracket)
{
    w->depth--;
    if (w->filled[w->depth])
        newline(w);
    putc(bracket, w->f);
}

void gt_jsonw_key(struct gt_jsonw *w, const char *key)
{
    next(w);
    gt_json_str(w->f, key);
    fputs(w->indent ? ": " : ":", w->f);
    w->keyed = 1;
}

void gt_jsonw_str(struct gt_jsonw *w, const char *s)
{
    next(w);
    gt_json_str(w->f, s);
}

/* v in the fewest digits that read back as v; null when it is not finite. */
void gt_jsonw_num(struct gt_jsonw *w, double v)
{
    char buf[32] = "null";
    for (int prec = 1; isfinite(v) && prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    gt_jsonw_literal(w, buf);
}

void gt_jsonw_int(struct gt_jsonw *w, long long v)
{
    next(w);
    fprintf(w->f, "%lld", v);
}

/* A number as written already, true, false or null. */
void gt_jsonw_literal(struct gt_jsonw *w, const char *text)
{
    next(w);
    fputs(text, w->f);
}
