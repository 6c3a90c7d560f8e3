/* test_expr: the policy expression language: values, short-circuits,
 * names and scopes, every compile and evaluation error with its column,
 * positions across continued lines, and evaluation speed. */
#include "../policy/expr.h"
#include "tap.h"

#include <time.h>

static const char *const dims[] = {"BLOCK", "ITEMS", "cache"};
static const unsigned char opaque[] = {0, 0, 1};
static struct gt_names argnames;

static struct gt_expr_scope scope(unsigned allow, const char *what)
{
    return (struct gt_expr_scope){dims, opaque, 3, allow, &argnames, what};
}

#define ALL (GT_USES_DIM | GT_USES_ORIG | GT_USES_ARG | GT_USES_BLOCK)

/* Compiles text as if it sat at line 7, column 10 of t.ini. */
static struct gt_expr *compile_as(const char *text, unsigned allow, const char *what, char *msg, size_t len)
{
    struct gt_srcpiece piece = {0, 7, 10};
    struct gt_srcmap map = {"t.ini", &piece, 1};
    struct gt_expr_scope sc = scope(allow, what);
    struct gt_diags d = {0};
    struct gt_expr *e = NULL;
    msg[0] = 0;
    if (gt_expr_compile(text, strlen(text), 0, &map, &sc, &e, &d) < 0 && d.n)
        gt_diag_format(&d.v[0], msg, len);
    gt_diags_clear(&d);
    return e;
}

static int64_t block_vals[3] = {256, 2, 1};
static int64_t arg_vals[4] = {1000, 7, -3, 99};
static unsigned char arg_ok[4] = {1, 1, 1, 0};
static int argpos[4] = {0, 2, -1, 3};

static struct gt_launch launch(void)
{
    struct gt_launch l = {{40, 2, 1, 128, 1, 1, 4096}, 4, arg_vals, arg_ok, argpos, 4};
    return l;
}

/* Evaluates with BLOCK=128 ITEMS=4 and the launch above; *err gets the message. */
static int eval_text(const char *text, int64_t *v, char *err, size_t len)
{
    char msg[400];
    struct gt_expr *e = compile_as(text, ALL, "a test", msg, sizeof msg);
    if (!e) {
        snprintf(err, len, "compile: %s", msg);
        return -1;
    }
    int64_t dv[3] = {128, 4, 0};
    struct gt_launch l = launch();
    struct gt_expr_env env = {dv, &l, block_vals};
    struct gt_expr_err ee;
    int r = gt_expr_eval(e, &env, v, &ee);
    err[0] = 0;
    if (r < 0) {
        char why[256];
        gt_expr_error_text(e, &ee, why, sizeof why);
        struct gt_loc loc = gt_expr_error_loc(e, &ee);
        snprintf(err, len, "%s:%d:%d: %s", loc.file, loc.line, loc.col, why);
    }
    gt_expr_free(e);
    return r;
}

static void value_is(const char *text, int64_t want)
{
    int64_t v = 0;
    char err[512];
    if (eval_text(text, &v, err, sizeof err) < 0) {
        ok(0, "%s", text);
        diag("%s", err);
        return;
    }
    is_int(v, want, "%s = %lld", text, (long long)want);
}

static void eval_error_is(const char *text, const char *want)
{
    int64_t v;
    char err[512] = "";
    int r = eval_text(text, &v, err, sizeof err);
    ok(r < 0, "%s fails", text);
    is_str(err, want, "  with its message");
}

static void compile_error_is(const char *text, unsigned allow, const char *want)
{
    char msg[512];
    struct gt_expr *e = compile_as(text, allow, "a constraint", msg, sizeof msg);
    ok(!e, "'%s' does not compile", text);
    is_str(msg, want, "  because: %s", want);
    gt_expr_free(e);
}

static void values(void)
{
    value_is("1 + 2 * 3", 7);
    value_is("(1 + 2) * 3", 9);
    value_is("10 - 4 - 3", 3);
    value_is("100 / 10 / 5", 2);
    value_is("-7 / 2", -3);
    value_is("-7 % 3", -1);
    value_is("7 % -3", 1);
    value_is("- -5", 5);
    value_is("+5", 5);
    value_is("0x1F", 31);
    value_is("1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 3", 1);
    value_is("1 == 1 != 0", 1);
    value_is("2 < 1 || 0", 0);
    value_is("!0 + !7", 1);
    value_is("1 || 0 && 0", 1);
    value_is("1 ? 2 : 3", 2);
    value_is("0 ? 2 : 0 ? 4 : 5", 5);
    value_is("1 ? 0 ? 6 : 7 : 8", 7);
    value_is("min(3, 1, 2)", 1);
    value_is("max(3, 9, 2)", 9);
    value_is("min(4)", 4);
    value_is("ceil_div(10, 3)", 4);
    value_is("ceil_div(9, 3)", 3);
    value_is("ceil_div(-7, 2)", -3);
    value_is("ceil_div(-7, -2)", 4);
    value_is("ceil_div(7, -2)", -3);
    value_is("is_pow2(64) + is_pow2(96) + is_pow2(0) + is_pow2(-4)", 1);
    value_is("log2(1) + log2(1023)", 9);
    value_is("pow2(10)", 1024);
    value_is("abs(-5) + abs(5)", 10);
    value_is("9223372036854775807", INT64_MAX);
    value_is("-9223372036854775807 - 1", INT64_MIN);
    value_is("(-9223372036854775807 - 1) % -1", 0);
}

static void short_circuits(void)
{
    value_is("0 && 1 / 0", 0);
    value_is("1 || 1 / 0", 1);
    value_is("1 ? 2 : 1 / 0", 2);
    value_is("0 ? 1 / 0 : 3", 3);
    value_is("ITEMS != 0 && BLOCK / ITEMS == 32", 1);
    /* a long chain compiles to one jump per operand */
    char text[8192] = "1";
    for (int i = 0; i < 999; i++)
        strcat(text, i == 500 ? " && 0" : " && 1");
    value_is(text, 0);
    strcpy(text, "0");
    for (int i = 0; i < 999; i++)
        strcat(text, " || 0");
    value_is(text, 0);
}

static void names(void)
{
    value_is("BLOCK * ITEMS", 512);
    value_is("orig.grid.x * orig.block.x + orig.grid.y + orig.smem", 40 * 128 + 2 + 4096);
    value_is("orig.grid.z + orig.block.y + orig.block.z", 3);
    value_is("arg[0] + arg1 + arg[2]", 1000 + 7 - 3);
    value_is("arg.n", 1000);    /* interned first: position 0 */
    value_is("arg.alpha", -3);  /* second: position 2 */
    value_is("block.x * block.y * block.z", 512);
    value_is("ceil_div(arg.n, BLOCK * ITEMS)", 2);
    is_int(gt_names_find(&argnames, "n"), 0, "arg.n is interned once");
    is_int(gt_names_find(&argnames, "alpha"), 1, "arg.alpha after it");

    char msg[256];
    struct gt_expr *e = compile_as("ITEMS + orig.smem + arg2", ALL, "x", msg, sizeof msg);
    ok(e && gt_expr_uses(e) == (GT_USES_DIM | GT_USES_ORIG | GT_USES_ARG), "uses: dimension, orig and argument");
    is_int(e ? gt_expr_max_dim(e) : -9, 1, "highest dimension used is ITEMS");
    is_str(e ? gt_expr_text(e) : NULL, "ITEMS + orig.smem + arg2", "the text is kept");
    gt_expr_free(e);
    e = compile_as("42", ALL, "x", msg, sizeof msg);
    ok(e && gt_expr_uses(e) == 0 && gt_expr_max_dim(e) == -1, "a constant uses nothing");
    gt_expr_free(e);
}

static void eval_errors(void)
{
    eval_error_is("1 + 4 / (ITEMS - 4)", "t.ini:7:16: division by zero");
    eval_error_is("5 % 0", "t.ini:7:12: remainder of a division by zero");
    eval_error_is("ceil_div(5, ITEMS - 4)", "t.ini:7:10: ceil_div by zero");
    eval_error_is("9223372036854775807 + 1", "t.ini:7:30: integer overflow in '+'");
    eval_error_is("BLOCK * 9223372036854775807", "t.ini:7:16: integer overflow in '*'");
    eval_error_is("-(-9223372036854775807 - 1)", "t.ini:7:10: integer overflow in unary '-'");
    eval_error_is("(-9223372036854775807 - 1) / -1", "t.ini:7:37: integer overflow in '/'");
    eval_error_is("log2(ITEMS - 4)", "t.ini:7:10: log2 of 0 (needs a positive number)");
    eval_error_is("pow2(63)", "t.ini:7:10: pow2 of 63 (needs 0 to 62)");
    eval_error_is("arg[7]", "t.ini:7:10: arg[7]: the kernel has 4 parameters");
    eval_error_is("1 + arg3", "t.ini:7:14: arg[3] is not a scalar integer argument");
    eval_error_is("arg.n + arg.m", "t.ini:7:18: arg.m: the kernel has no parameter of that name");

    /* without a launch */
    char msg[256];
    struct gt_expr *e = compile_as("BLOCK + orig.smem", ALL, "x", msg, sizeof msg);
    int64_t dv[3] = {1, 2, 0}, v;
    struct gt_expr_env env = {dv, NULL, NULL};
    struct gt_expr_err ee;
    ok(e && gt_expr_eval(e, &env, &v, &ee) < 0, "orig.* without a launch fails");
    if (e) {
        gt_expr_error_text(e, &ee, msg, sizeof msg);
        is_str(msg, "'orig.smem' needs a launch", "  and says why");
    }
    gt_expr_free(e);
}

static void compile_errors(void)
{
    const unsigned C = GT_USES_DIM | GT_USES_ORIG | GT_USES_ARG;
    compile_error_is("max(1, 2", C,
                     "t.ini:7:18: expected ',' or ')' after argument 2 of 'max' (its '(' is at column 13), found end of expression");
    compile_error_is("min()", C, "t.ini:7:10: 'min' takes at least 1 argument");
    compile_error_is("ceil_div(1)", C, "t.ini:7:10: 'ceil_div' takes 2 arguments, not 1");
    compile_error_is("is_pow2(1, 2)", C, "t.ini:7:10: 'is_pow2' takes 1 argument, not 2");
    compile_error_is("BLOK + 1", C, "t.ini:7:10: unknown name 'BLOK'; did you mean 'BLOCK'?");
    compile_error_is("mx(1, 2)", C, "t.ini:7:10: unknown function 'mx'; did you mean 'max'?");
    compile_error_is("frobnicate(1)", C,
                     "t.ini:7:10: unknown function 'frobnicate' (functions: min, max, ceil_div, is_pow2, log2, pow2, abs)");
    compile_error_is("zzz", C, "t.ini:7:10: unknown name 'zzz' (not a parameter, knob, orig.* or arg.*)");
    compile_error_is("1 +", C, "t.ini:7:13: expected a number, a name or '(', found end of expression");
    compile_error_is("(1 + 2", C, "t.ini:7:16: expected ')' to close the '(' at column 10, found end of expression");
    compile_error_is("1 + 2)", C, "t.ini:7:15: unmatched ')'");
    compile_error_is("BLOCK = 64", C, "t.ini:7:16: unexpected '='; comparison is '=='");
    compile_error_is("BLOCK & 1", C, "t.ini:7:16: unexpected '&'; logical operators are '&&' and '||'");
    compile_error_is("(BLOCK = 64)", C, "t.ini:7:17: expected ')' to close the '(' at column 10, found '='; comparison is '=='");
    compile_error_is("1 ? 2", C, "t.ini:7:15: expected ':' for the '?' at column 12, found end of expression");
    compile_error_is("", C, "t.ini:7:10: expected an expression");
    compile_error_is("   ", C, "t.ini:7:13: expected an expression");
    compile_error_is("99999999999999999999", C, "t.ini:7:10: number too large (at most 9223372036854775807)");
    compile_error_is("2x", C, "t.ini:7:11: expected an operator after the number, found 'x'");
    compile_error_is("1 @ 2", C, "t.ini:7:12: unexpected '@' after the expression; expected an operator");
    compile_error_is("@", C, "t.ini:7:10: expected a number, a name or '(', found '@'");
    compile_error_is("block.x > 1", C, "t.ini:7:10: 'block.x' cannot be used in a constraint");
    compile_error_is("cache == 1", C, "t.ini:7:10: 'cache' has symbolic values and cannot be used in an expression");
    compile_error_is("orig.grd.x", C,
                     "t.ini:7:10: unknown name 'orig.grd.x'; expected orig.grid.x|y|z, orig.block.x|y|z or orig.smem");
    compile_error_is("block.w", ALL, "t.ini:7:10: unknown name 'block.w'; expected block.x, block.y or block.z");
    compile_error_is("arg", C, "t.ini:7:10: expected '[POSITION]' or '.NAME' after 'arg'");
    compile_error_is("arg[x]", C, "t.ini:7:14: expected an argument position (a number) after 'arg[', found 'x'");
    compile_error_is("arg[1", C, "t.ini:7:15: expected ']' after the argument position, found end of expression");
    compile_error_is("arg[5000]", C, "t.ini:7:14: argument position is too large (at most 4095)");
    compile_error_is("arg.a.b", C, "t.ini:7:10: 'arg.a.b' is not an argument name (one name after 'arg.')");
    compile_error_is("orig.smem", GT_USES_DIM, "t.ini:7:10: 'orig.smem' cannot be used in a constraint");
    compile_error_is("BLOCK", GT_USES_ORIG, "t.ini:7:10: 'BLOCK' cannot be used in a constraint");
    compile_error_is("arg0", GT_USES_DIM, "t.ini:7:10: 'arg0' cannot be used in a constraint");

    char deep[512] = "";
    for (int i = 0; i < 150; i++)
        strcat(deep, "(");
    strcat(deep, "1");
    for (int i = 0; i < 150; i++)
        strcat(deep, ")");
    char msg[256];
    struct gt_expr *e = compile_as(deep, ALL, "x", msg, sizeof msg);
    ok(!e && strstr(msg, "nested too deeply"), "150 nested parentheses are refused: %s", msg);
    gt_expr_free(e);
    deep[0] = 0;
    for (int i = 0; i < 40; i++)
        strcat(deep, "(");
    strcat(deep, "1");
    for (int i = 0; i < 40; i++)
        strcat(deep, ")");
    value_is(deep, 1);
}

/* A value continued over lines: errors point into the right line. */
static void positions(void)
{
    const char *text = "BLOCK +\nmax(1,\n   ITEMS, )";
    struct gt_srcpiece pieces[] = {{0, 3, 14}, {8, 4, 5}, {15, 5, 5}};
    struct gt_srcmap map = {"p.ini", pieces, 3};
    struct gt_expr_scope sc = scope(ALL, "x");
    struct gt_diags d = {0};
    struct gt_expr *e;
    ok(gt_expr_compile(text, strlen(text), 0, &map, &sc, &e, &d) < 0 && d.n == 1, "one error in a continued value");
    char msg[256] = "";
    if (d.n)
        gt_diag_format(&d.v[0], msg, sizeof msg);
    is_str(msg, "p.ini:5:15: expected a number, a name or '(', found ')'", "it points at the third line");
    gt_diags_clear(&d);

    /* a part of a longer value (the second item of "a, b") keeps its offset */
    const char *value = "1, 2 +";
    ok(gt_expr_compile(value + 3, 3, 3, &map, &sc, &e, &d) < 0, "the second item fails");
    if (d.n)
        gt_diag_format(&d.v[0], msg, sizeof msg);
    is_str(msg, "p.ini:3:20: expected a number, a name or '(', found end of expression", "at its column in the line");
    gt_diags_clear(&d);

    struct gt_loc loc = gt_srcmap_loc(&map, 9);
    ok(loc.line == 4 && loc.col == 6, "offset 9 is line 4, column 6");
}

static void speed(void)
{
    char msg[256];
    struct gt_expr *e = compile_as("BLOCK * ITEMS <= 1024 && (BLOCK % 32 == 0 || is_pow2(ITEMS)) && min(BLOCK, 512) >= ITEMS * 8",
                                   GT_USES_DIM, "x", msg, sizeof msg);
    if (!e) {
        ok(0, "speed test compiles: %s", msg);
        return;
    }
    int64_t dv[3] = {0, 0, 0}, v, sum = 0;
    struct gt_expr_env env = {dv, NULL, NULL};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const int n = 1000000;
    for (int i = 0; i < n; i++) {
        dv[0] = 32 * (i % 33);
        dv[1] = i % 17;
        if (gt_expr_eval(e, &env, &v, NULL) == 0)
            sum += v;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / n;
    diag("a 5-term constraint evaluates in %.1f ns", ns);
    ok(sum > 0 && ns < 2000, "a million evaluations take well under 2 s");
    gt_expr_free(e);
}

int main(void)
{
    values();
    short_circuits();
    names();
    eval_errors();
    compile_errors();
    positions();
    speed();
    gt_names_clear(&argnames);
    return done_testing();
}
