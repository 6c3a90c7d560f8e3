/* test_utf8: JSON strings keep well-formed UTF-8 as it is, escape what
 * JSON requires, and put U+FFFD in place of ill-formed bytes, one per
 * maximal ill-formed part (utf8.c). */
#include "json.h"
#include "tap.h"
#include "utf8.h"

#define R GT_UTF8_REPLACEMENT

static void string(const char *s, const char *want, const char *name)
{
    char buf[512] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    gt_json_str(f, s);
    fclose(f);
    is_str(buf, want, "%s", name);
}

static void next(const char *s, int want_ok, size_t want_len, const char *name)
{
    size_t len = 0;
    int ok_ = gt_utf8_next(s, &len);
    ok(ok_ == want_ok && len == want_len, "%s: %s, %zu bytes (got %d, %zu)", name, want_ok ? "well-formed" : "ill-formed",
       want_len, ok_, len);
}

int main(void)
{
    next("a", 1, 1, "ASCII");
    next("\xc3\xa9", 1, 2, "two bytes");
    next("\xe2\x82\xac", 1, 3, "three bytes");
    next("\xf0\x9f\x98\x80", 1, 4, "four bytes");
    next("\xf4\x8f\xbf\xbf", 1, 4, "U+10FFFF, the last");
    next("\xc0\xaf", 0, 1, "an overlong lead byte");
    next("\xe0\x80\xaf", 0, 1, "an overlong three-byte form");
    next("\xed\xa0\x80", 0, 1, "a surrogate");
    next("\xf4\x90\x80\x80", 0, 1, "past U+10FFFF");
    next("\xe2\x82", 0, 2, "cut short at the end: the part there is");
    next("\xf0\x9f\x98x", 0, 3, "cut short before ASCII");
    next("\x80", 0, 1, "a continuation byte alone");
    next("\xff", 0, 1, "a byte never used");

    string("saxpy(int, float, float const*, float*)", "\"saxpy(int, float, float const*, float*)\"",
           "ASCII as it is");
    string("pick<'\"'>(char)", "\"pick<'\\\"'>(char)\"", "a quote escaped");
    string("path\\to\\kernel", "\"path\\\\to\\\\kernel\"", "backslashes escaped");
    string("a\nb\tc\rd\x01" "e\x1f\x7f", "\"a\\nb\\tc\\rd\\u0001e\\u001f\\u007f\"", "control bytes escaped");
    string("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 \xc2\xb5s",
           "\"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 \xc2\xb5s\"", "multibyte UTF-8 kept as it is");
    string("k\xff", "\"k" R "\"", "an invalid byte: U+FFFD");
    string("latin1 caf\xe9!", "\"latin1 caf" R "!\"", "  a Latin-1 name");
    string("cut \xe6\x97", "\"cut " R "\"", "  a character cut at the end: one U+FFFD");
    string("\xe6\x97\"x", "\"" R "\\\"x\"", "  cut before a quote: the quote still escaped");
    string("\xed\xa0\x80", "\"" R R R "\"", "  a surrogate: one per byte, as Unicode's practice says");
    string("\xc0\xaf", "\"" R R "\"", "  an overlong slash: never a slash");
    string("", "\"\"", "an empty string");
    string(NULL, "null", "no string: null");
    return done_testing();
}
