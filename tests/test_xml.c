/* test_xml: text in XML keeps well-formed UTF-8, writes markup characters
 * as entities, and puts U+FFFD in place of what XML 1.0 cannot hold and of
 * ill-formed bytes. */
#include "tap.h"
#include "utf8.h"
#include "xml.h"

#define R GT_UTF8_REPLACEMENT

static void text(const char *s, const char *want, const char *name)
{
    char buf[512] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    gt_xml_text(f, s);
    fclose(f);
    is_str(buf, want, "%s", name);
}

int main(void)
{
    text("saxpy(int, float)", "saxpy(int, float)", "plain text as it is");
    text("void gemm<128, (Op)1>(float const*) && a > b", "void gemm&lt;128, (Op)1&gt;(float const*) &amp;&amp; a &gt; b",
         "<, > and & as entities");
    text("pick<'\"'>", "pick&lt;&apos;&quot;&apos;&gt;", "quotes too, for attribute values");
    text("a\tb\nc\rd", "a\tb\nc\rd", "tab, newline and carriage return as they are");
    text("a\001b\033c\x1f", "a" R "b" R "c" R, "other control bytes, which XML cannot hold: U+FFFD");
    text("\xef\xbf\xbe\xef\xbf\xbf", R R, "U+FFFE and U+FFFF: U+FFFD");
    text("caf\xc3\xa9 \xc2\xb5s \xe6\x97\xa5 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xc2\xb5s \xe6\x97\xa5 \xf0\x9f\x98\x80",
         "multibyte UTF-8 as it is");
    text("k\xff<\xe6\x97", "k" R "&lt;" R, "ill-formed bytes: U+FFFD, the markup after them still escaped");
    text("", "", "an empty text");
    text(NULL, "", "no text: nothing");
    return done_testing();
}
