/* tap.h: the Test Anything Protocol for the C unit tests, as prove reads it.
 *
 *   ok(cond, "name %d", i);   is_int(got, want, "name");   is_str(got, want, "name");
 *   skip_all("reason");       return done_testing();
 */
#ifndef GT_TAP_H
#define GT_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count, tap_failed;

__attribute__((format(printf, 4, 5))) static int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    printf("%sok %d - ", pass ? "" : "not ", ++tap_count);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!pass) {
        tap_failed++;
        printf("#   failed at %s:%d\n", file, line);
    }
    fflush(stdout);
    return pass;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define is_int(got, want, ...)                                                              \
    do {                                                                                    \
        long long g_ = (long long)(got), w_ = (long long)(want);                            \
        if (!tap_ok(g_ == w_, __FILE__, __LINE__, __VA_ARGS__))                             \
            printf("#   got %lld, expected %lld\n", g_, w_);                                \
    } while (0)

#define is_str(got, want, ...)                                                              \
    do {                                                                                    \
        const char *g_ = (got), *w_ = (want);                                               \
        if (!tap_ok(g_ && w_ && strcmp(g_, w_) == 0, __FILE__, __LINE__, __VA_ARGS__))      \
            printf("#   got '%s', expected '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
    } while (0)

#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

#define skip_all(reason)                        \
    do {                                        \
        printf("1..0 # SKIP %s\n", reason);     \
        exit(0);                                \
    } while (0)

static inline int done_testing(void)
{
    printf("1..%d\n", tap_count);
    return tap_failed ? 1 : 0;
}

#endif
