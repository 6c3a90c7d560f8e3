/* common.h: what every example application shares.
 *
 * The examples stand in for applications nobody may rebuild, so each one
 * checks its own answer against a CPU reference and says so on stdout in one
 * line, `result OK` or `result WRONG: ...`.  The only other lines on stdout
 * are `expect <kernel-name-prefix> <launches>`, the launch counts the tests
 * hold the shim's exit table to.  `-o FILE` writes every result array as raw
 * bytes, so that runs with and without the shim can be compared bit for bit.
 *
 * Plain C11 that also compiles as the host code of a .cu file. */
#ifndef EX_COMMON_H
#define EX_COMMON_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ex {
    const char *out_path; /* -o FILE, or NULL */
    FILE *out;
    int wrong;            /* mismatches found so far */
    char why[256];        /* the first of them */
};

#if defined(__GNUC__)
#define EX_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define EX_PRINTF(a, b)
#endif

static inline void ex_init(struct ex *e, int argc, char **argv)
{
    memset(e, 0, sizeof *e);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            e->out_path = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [-o FILE]\n", argv[0]);
            exit(2);
        }
    }
    if (e->out_path && !(e->out = fopen(e->out_path, "wb"))) {
        perror(e->out_path);
        exit(2);
    }
}

/* A failure that leaves no result to check (an API call failed): the one
 * result line, then exit. */
static inline EX_PRINTF(1, 2) void ex_die(const char *fmt, ...)
{
    va_list ap;
    printf("result WRONG: ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    exit(1);
}

static inline EX_PRINTF(2, 3) void ex_fail(struct ex *e, const char *fmt, ...)
{
    if (e->wrong++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->why, sizeof e->why, fmt, ap);
        va_end(ap);
    }
}

/* Fixed-seed inputs: the same numbers in every run, never all zeros. */
static inline uint32_t ex_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 32);
}

static inline void ex_fill(float *v, size_t n, uint64_t seed, float lo, float hi)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
    for (size_t i = 0; i < n; i++)
        v[i] = lo + (hi - lo) * (float)(ex_rand(&s) >> 8) * (1.0f / 16777216.0f);
}

static inline void ex_fill_double(double *v, size_t n, uint64_t seed, double lo, double hi)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
    for (size_t i = 0; i < n; i++)
        v[i] = lo + (hi - lo) * (double)ex_rand(&s) * (1.0 / 4294967296.0);
}

static inline void ex_write(struct ex *e, const void *p, size_t bytes)
{
    if (e->out && fwrite(p, 1, bytes, e->out) != bytes) {
        perror(e->out_path);
        exit(2);
    }
}

/* |got - want| <= atol + rtol * |want| for every element. */
static inline void ex_close(struct ex *e, const char *what, const float *got, const double *want, size_t n,
                            double rtol, double atol)
{
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - want[i]);
        if (!(d <= atol + rtol * fabs(want[i]))) {
            ex_fail(e, "%s[%zu] = %.9g, expected %.9g", what, i, (double)got[i], want[i]);
            return;
        }
    }
}

static inline void ex_close_double(struct ex *e, const char *what, const double *got, const double *want,
                                   size_t n, double rtol, double atol)
{
    for (size_t i = 0; i < n; i++) {
        double d = fabs(got[i] - want[i]);
        if (!(d <= atol + rtol * fabs(want[i]))) {
            ex_fail(e, "%s[%zu] = %.17g, expected %.17g", what, i, got[i], want[i]);
            return;
        }
    }
}

static inline void ex_same_u32(struct ex *e, const char *what, const uint32_t *got, const uint32_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            ex_fail(e, "%s[%zu] = %u, expected %u", what, i, got[i], want[i]);
            return;
        }
    }
}

static inline void ex_expect(const char *prefix, unsigned long launches)
{
    printf("expect %s %lu\n", prefix, launches);
}

/* Prints the result line and gives main() its exit status. */
static inline int ex_finish(struct ex *e)
{
    if (e->out && fclose(e->out) != 0) {
        perror(e->out_path);
        return 2;
    }
    if (e->wrong)
        printf("result WRONG: %s (%d checks failed)\n", e->why, e->wrong);
    else
        printf("result OK\n");
    return e->wrong ? 1 : 0;
}

static inline void *ex_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        ex_die("out of host memory (%zu bytes)", bytes);
    return p;
}

#endif
