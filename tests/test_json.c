/* test_json: the strict JSON reader and the writer: documents read into
 * trees, every kind of malformed text refused with its line and column,
 * UTF-8 kept and control characters escaped, numbers written in the fewest
 * digits that read back, and what the writer writes read back the same. */
#include "arena.h"
#include "json.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char err[256];

static const struct gt_json *parse(struct gt_arena *a, const char *text)
{
    err[0] = '\0';
    return gt_json_parse(a, text, strlen(text), err, sizeof err);
}

/* The text refused, with a message that holds `want`. */
static void refused(const char *text, const char *want, const char *name)
{
    struct gt_arena *a = gt_arena_new();
    const struct gt_json *v = gt_json_parse(a, text, strlen(text), err, sizeof err);
    ok(!v && strstr(err, want), "%s: %s", name, err);
    gt_arena_free(a);
}

static void reading(void)
{
    struct gt_arena *a = gt_arena_new();
    const char *doc = " {\"schema_version\": \"1.0.0\", \"results\": [ {\"n\": -12.5e1, \"ok\": true,"
                      " \"none\": null, \"no\": false, \"cfg\": {}}, [] ] }\n";
    const struct gt_json *v = parse(a, doc);
    ok(v && v->kind == GT_JSON_OBJECT && v->n == 2, "an object of two members: %s", err);
    const struct gt_json *res = gt_json_member(v, "results"), *r0 = res ? &res->items[0] : NULL;
    ok(res && res->kind == GT_JSON_ARRAY && res->n == 2 && res->items[1].kind == GT_JSON_ARRAY && res->items[1].n == 0,
       "  an array of an object and an empty array");
    is_str(gt_json_member(v, "schema_version")->text, "1.0.0", "  a string member");
    ok(r0 && gt_json_member(r0, "n")->number == -125 && !strcmp(gt_json_member(r0, "n")->text, "-12.5e1"),
       "  a number, and its text as written");
    ok(gt_json_member(r0, "ok")->kind == GT_JSON_BOOL && gt_json_member(r0, "ok")->boolean &&
           !gt_json_member(r0, "no")->boolean && gt_json_member(r0, "none")->kind == GT_JSON_NULL,
       "  true, false and null");
    ok(gt_json_member(gt_json_member(r0, "cfg"), "x") == NULL && gt_json_member(r0, "absent") == NULL &&
           gt_json_member(res, "results") == NULL,
       "  a missing member, or a member asked of an array: NULL");
    ok(res->items[0].at == (size_t)(strchr(doc, '[') - doc) + 2,
       "  each value knows its offset");

    v = parse(a, "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t \\u00e9 \\u20AC \\ud83d\\ude00 h\xc3\xa9 \xe2\x82\xac\"");
    is_str(v ? v->text : NULL, "a\"b\\c/d\b\f\n\r\t \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 h\xc3\xa9 \xe2\x82\xac",
           "escapes undone, a surrogate pair joined, UTF-8 kept");
    v = parse(a, "[0, -0, 1e5, 2E-3, 0.5, 123456789012345678901234567890]");
    ok(v && v->n == 6 && v->items[2].number == 1e5 && v->items[3].number == 2e-3 && v->items[4].number == 0.5 &&
           !strcmp(v->items[5].text, "123456789012345678901234567890"),
       "numbers of every form; a long integer keeps its digits as text");

    char deep[2 * GT_JSON_MAX_DEPTH + 1];
    memset(deep, '[', GT_JSON_MAX_DEPTH);
    memset(deep + GT_JSON_MAX_DEPTH, ']', GT_JSON_MAX_DEPTH);
    deep[2 * GT_JSON_MAX_DEPTH] = '\0';
    ok(parse(a, deep) != NULL, "nesting %d deep is read", GT_JSON_MAX_DEPTH);

    size_t n = 5000, at = 0;
    char *big = malloc(n * 16 + 8);
    big[at++] = '{';
    for (size_t i = 0; i < n; i++)
        at += (size_t)sprintf(big + at, "%s\"k%zu\":%zu", i ? "," : "", i, i);
    strcpy(big + at, "}");
    v = parse(a, big);
    ok(v && v->n == n && gt_json_member(v, "k4999")->number == 4999, "an object of %zu members", n);
    strcpy(big + at, ",\"k17\":0}");
    ok(!parse(a, big) && strstr(err, "key \"k17\" appears twice"), "  and one key written twice is refused: %s", err);
    free(big);
    gt_arena_free(a);
}

static void malformed(void)
{
    refused("", "line 1, column 1: the text ends where a value should be", "an empty text");
    refused("{\"a\": 1,}", "line 1, column 9: '}' where a key (a string) should be", "a trailing comma in an object");
    refused("[1, 2,\n ]", "line 2, column 2: ']' where a value should be", "a trailing comma in an array");
    refused("[1 2]", "column 4: '2' where ',' or ']' should be", "a missing comma");
    refused("{\"a\" 1}", "':' should be", "a missing colon");
    refused("{a: 1}", "'a' where a key (a string) should be", "a key without quotes");
    refused("[01]", "does not begin with 0 and more digits", "a leading zero");
    refused("[1.]", "a digit after its '.'", "a point without digits");
    refused("[1e]", "a digit in its exponent", "an exponent without digits");
    refused("[-]", "a number needs a digit", "a lone minus");
    refused("[+1]", "'+' where a value should be", "a plus sign");
    refused("[NaN]", "'N' where a value should be", "NaN");
    refused("[1e999]", "out of range", "a number past the double's range");
    refused("[tru]", "'t' where a value should be", "a cut literal");
    refused("// comment\n[]", "'/' where a value should be", "a comment");
    refused("[1] [2]", "more text after the end of the document", "two documents");
    refused("\"abc", "the string is not closed", "an unclosed string");
    refused("\"a\tb\"", "control character 0x09 inside a string", "a raw tab in a string");
    refused("\"a\\qb\"", "unknown escape '\\q'", "an unknown escape");
    refused("\"\\u12g4\"", "four hexadecimal digits", "a short \\u");
    refused("\"\\ud83d\"", "high surrogate without a low one", "a lone high surrogate");
    refused("\"\\ude00\"", "low surrogate without a high one", "a lone low surrogate");
    refused("\"\\u0000\"", "\\u0000 is not accepted", "\\u0000");
    refused("\"\xc3\x28\"", "byte 0xc3 is not valid UTF-8", "a broken UTF-8 sequence");
    refused("\"\xc0\xaf\"", "byte 0xc0 is not valid UTF-8", "an overlong form");
    refused("\"\xed\xa0\x80\"", "byte 0xed is not valid UTF-8", "a surrogate in UTF-8");
    refused("\"\xf4\x90\x80\x80\"", "byte 0xf4 is not valid UTF-8", "past U+10FFFF");
    refused("\xef\xbb\xbf[]", "byte 0xef where a value should be", "a byte order mark");
    refused("{\"a\": 1, \"a\": 2}", "line 1, column 10: key \"a\" appears twice", "a repeated key, at its second place");

    char deep[GT_JSON_MAX_DEPTH + 2];
    memset(deep, '[', sizeof deep - 1);
    deep[sizeof deep - 1] = '\0';
    refused(deep, "nested deeper than 256", "nesting past the bound");

    struct gt_arena *a = gt_arena_new();
    const char nul[] = "[1,\0 2]";
    ok(!gt_json_parse(a, nul, sizeof nul - 1, err, sizeof err) && strstr(err, "byte 0x00 where a value should be"),
       "a NUL byte in the text: %s", err);
    gt_arena_free(a);

    int line, column;
    gt_json_where("ab\ncd\nef", 7, &line, &column);
    ok(line == 3 && column == 2, "an offset as line and column: %d:%d", line, column);
}

/* What the writer writes, as text. */
static char *written(void (*write)(struct gt_jsonw *), int indent)
{
    static char buf[4096];
    memset(buf, 0, sizeof buf);
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    struct gt_jsonw w;
    gt_jsonw_init(&w, f, indent);
    write(&w);
    fclose(f);
    return buf;
}

static void document(struct gt_jsonw *w)
{
    gt_jsonw_open(w, '{');
    gt_jsonw_key(w, "name");
    gt_jsonw_str(w, "h\xc3\xa9 \"q\" \\ \n\t\r\b\f\x01\x1f \xe2\x82\xac \xff");
    gt_jsonw_key(w, "none");
    gt_jsonw_str(w, NULL);
    gt_jsonw_key(w, "list");
    gt_jsonw_open(w, '[');
    gt_jsonw_num(w, 0.1);
    gt_jsonw_num(w, 2.53);
    gt_jsonw_num(w, 1.0 / 3);
    gt_jsonw_num(w, 1e300);
    gt_jsonw_num(w, NAN);
    gt_jsonw_int(w, -42);
    gt_jsonw_literal(w, "true");
    gt_jsonw_open(w, '{');
    gt_jsonw_close(w, '}');
    gt_jsonw_close(w, ']');
    gt_jsonw_close(w, '}');
}

static void writing(void)
{
    const char *one = written(document, 0);
    is_str(one, "{\"name\":\"h\xc3\xa9 \\\"q\\\" \\\\ \\n\\t\\r\\b\\f\\u0001\\u001f \xe2\x82\xac \xef\xbf\xbd\",\"none\":null,"
                "\"list\":[0.1,2.53,0.3333333333333333,1e+300,null,-42,true,{}]}",
           "one line: UTF-8 kept, control characters escaped, a byte outside UTF-8 as U+FFFD, shortest numbers");
    struct gt_arena *a = gt_arena_new();
    const struct gt_json *v = parse(a, one);
    ok(v && !strcmp(gt_json_member(v, "name")->text, "h\xc3\xa9 \"q\" \\ \n\t\r\b\f\x01\x1f \xe2\x82\xac \xef\xbf\xbd") &&
           gt_json_member(v, "list")->items[2].number == 1.0 / 3,
       "  read back: the same text (the stray byte as U+00FF) and the same double: %s", err);
    const char *pretty = written(document, 2);
    ok(strstr(pretty, "{\n  \"name\": \"") && strstr(pretty, "\n  \"list\": [\n    0.1,\n    2.53,") &&
           strstr(pretty, "\n    {}\n  ]\n}"),
       "indented: a value per line, an empty object closed at once:\n%s", pretty);
    ok(parse(a, pretty) != NULL, "  and it reads back: %s", err);
    gt_arena_free(a);
}

int main(void)
{
    reading();
    malformed();
    writing();
    return done_testing();
}
