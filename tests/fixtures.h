/* fixtures.h: the device-code fixtures of the parser tests, compiled with
 * nvcc by tests/fixtures.sh into $GT_BUILD/fixtures on first use.
 *
 *   const char *dir = fx_dir();              skips the test when nvcc is missing
 *   unsigned char *b = fx_read("app_default", &size);
 *   struct fx_resources r; fx_ptxas("kernels.ptxas", "scale", &r);
 */
#ifndef GT_FIXTURES_H
#define GT_FIXTURES_H

#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* The kernels of tests/fixtures/kernels.cu, as the compiler names them. */
static const char *const fx_kernels[] = {
    "scale", "count_hits", "_Z6reduceIfEvPKT_PS0_i", "_Z6reduceIdEvPKT_PS0_i", "mixed", "empty_kernel",
};
#define FX_NKERNELS (sizeof fx_kernels / sizeof *fx_kernels)

static char fx_path_buf[2048];

static inline const char *fx_dir(void)
{
    static char dir[1024];
    if (dir[0])
        return dir;
    const char *build = getenv("GT_BUILD");
    snprintf(dir, sizeof dir, "%s/fixtures", build && *build ? build : "build");
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "sh tests/fixtures.sh '%s' >'%s.log' 2>&1", dir, dir);
    int st = system(cmd);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
        skip_all("nvcc not found: cannot compile the fixtures");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        printf("Bail out! building the fixtures failed, see %s.log\n", dir);
        exit(1);
    }
    return dir;
}

static inline const char *fx_path(const char *name)
{
    snprintf(fx_path_buf, sizeof fx_path_buf, "%s/%s", fx_dir(), name);
    return fx_path_buf;
}

/* The whole file, NUL-terminated (not counted in *size). */
static inline unsigned char *fx_read(const char *name, size_t *size)
{
    FILE *f = fopen(fx_path(name), "rb");
    if (!f) {
        printf("Bail out! missing fixture %s\n", name);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    unsigned char *b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
        printf("Bail out! cannot read fixture %s\n", name);
        exit(1);
    }
    fclose(f);
    b[n] = 0;
    *size = (size_t)n;
    return b;
}

/* What ptxas -v said about one function. */
struct fx_resources {
    int regs, smem, stack;
};

static inline int fx_ptxas(const char *file, const char *func, struct fx_resources *r)
{
    size_t size;
    char *text = (char *)fx_read(file, &size);
    char key[512];
    snprintf(key, sizeof key, "Function properties for %s\n", func);
    char *p = strstr(text, key);
    int found = 0;
    if (p) {
        r->stack = atoi(p + strlen(key) + strspn(p + strlen(key), " "));
        char *used = strstr(p, "Used ");
        r->regs = used ? atoi(used + 5) : -1;
        char *eol = used ? strchr(used, '\n') : NULL;
        char *smem = used ? strstr(used, " bytes smem") : NULL;
        r->smem = 0;
        if (smem && eol && smem < eol) {
            while (smem > used && smem[-1] >= '0' && smem[-1] <= '9')
                smem--;
            r->smem = atoi(smem);
        }
        found = used != NULL;
    }
    free(text);
    return found;
}

#endif
