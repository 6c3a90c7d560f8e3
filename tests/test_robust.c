/* test_robust.c: damaged device code gives an error or a correct result,
 * never a crash, a hang or a stray read.
 *
 * Every truncation of each small fixture is parsed from a buffer of exactly
 * that size (so that AddressSanitizer, under make SANITIZE=1, sees any read
 * past it); large host binaries are cut everywhere too, from their full
 * buffer.  Then thousands of random byte flips, with a fixed seed.  A parse
 * of a truncated file that succeeds may only report kernels the whole file
 * has. */
#include "devcode.h"
#include "fixtures.h"

#include <stdint.h>
#include <time.h>
#include <unistd.h>

#define FLIPS_SMALL 3000
#define FLIPS_LARGE 400
#define SMALL_FILE ((size_t)64 << 10)

struct names {
    char **v;
    size_t n;
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void decode_all(struct gt_devcode *dc)
{
    for (size_t i = 0; i < dc->nentries; i++)
        gt_devcode_decode(dc, i);
}

static int known(const struct names *all, const char *name)
{
    for (size_t i = 0; i < all->n; i++)
        if (strcmp(all->v[i], name) == 0)
            return 1;
    return 0;
}

/* Kernel names of every decoded entry: collected into `all`, or checked
 * against it.  Returns the number of names not in `all` (when checking). */
static size_t kernel_names(const struct gt_devcode *dc, struct names *all, int collect)
{
    size_t unknown = 0;
    for (size_t i = 0; i < dc->nentries; i++) {
        const struct gt_devcode_entry *e = &dc->entries[i];
        if (e->status != 1)
            continue;
        size_t n = e->fe.kind == GT_FATBIN_ELF ? e->cubin.nkernels : e->fe.kind == GT_FATBIN_PTX ? e->ptx.nfuncs : 0;
        for (size_t j = 0; j < n; j++) {
            const char *name = e->fe.kind == GT_FATBIN_ELF ? e->cubin.kernels[j].name : e->ptx.funcs[j].name;
            if (collect && !known(all, name)) {
                all->v = realloc(all->v, (all->n + 1) * sizeof *all->v);
                all->v[all->n++] = strdup(name);
            } else if (!collect) {
                unknown += !known(all, name);
            }
        }
    }
    return unknown;
}

/* What must hold of any successful parse, however odd its input. */
static int consistent(const struct gt_devcode *dc, const unsigned char *buf, size_t size)
{
    for (size_t i = 0; i < dc->ncontainers; i++) {
        const struct gt_devcode_container *c = &dc->containers[i];
        if (c->data < buf || c->size > size || (size_t)(c->data - buf) > size - c->size ||
            c->first + c->count > dc->nentries)
            return 0;
    }
    for (size_t i = 0; i < dc->nentries; i++) {
        const struct gt_devcode_entry *e = &dc->entries[i];
        if (e->status == 0 || (e->status < 0 && !e->error[0]))
            return 0;
        for (size_t f = 0; e->status == 1 && e->fe.kind == GT_FATBIN_PTX && f < e->ptx.nfuncs; f++) {
            const struct gt_ptx_func *fn = &e->ptx.funcs[f];
            if (!fn->is_extern && (fn->body >= fn->end || fn->end > e->size))
                return 0;
            for (unsigned l = 0; l < fn->nloops; l++)
                if (fn->loops[l].offset < fn->body || fn->loops[l].offset >= fn->end)
                    return 0;
            for (unsigned v = 0; v < fn->nvars; v++)
                if (fn->vars[v] >= e->ptx.nvars)
                    return 0;
        }
        for (size_t k = 0; e->status == 1 && e->fe.kind == GT_FATBIN_ELF && k < e->cubin.nkernels; k++)
            for (unsigned v = 0; v < e->cubin.kernels[k].nvars; v++)
                if (e->cubin.kernels[k].vars[v] >= e->cubin.nvars)
                    return 0;
    }
    return 1;
}

struct tally {
    size_t runs, errors, wrong;
};

/* Parses buf[0, size); `all` given: a success may only name its kernels. */
static void parse(const unsigned char *buf, size_t size, const struct names *all, struct tally *t)
{
    struct gt_devcode dc;
    char err[256];
    t->runs++;
    if (gt_devcode_open(buf, size, &dc, err, sizeof err) != 0) {
        t->errors += err[0] != 0;
        t->wrong += err[0] == 0;
        return;
    }
    decode_all(&dc);
    if (!consistent(&dc, buf, size) || (all && kernel_names(&dc, (struct names *)all, 0)))
        t->wrong++;
    for (size_t i = 0; i < dc.nentries; i++)
        if (dc.entries[i].status < 0) {
            t->errors++;
            break;
        }
    gt_devcode_free(&dc);
}

static void truncations(const char *name, const unsigned char *file, size_t size, const struct names *all)
{
    struct tally t = {0};
    int exact = size <= SMALL_FILE;
    for (size_t n = 0; n < size; n++) {
        if (exact || n % 4099 == 0) {
            unsigned char *cut = malloc(n ? n : 1);
            memcpy(cut, file, n);
            parse(cut, n, all, &t);
            free(cut);
        } else {
            parse(file, n, all, &t);
        }
    }
    is_int(t.wrong, 0, "%s: all %zu truncations give an error (%zu) or a correct result", name, t.runs, t.errors);
}

static void flips(const char *name, const unsigned char *file, size_t size)
{
    struct tally t = {0};
    unsigned char *copy = malloc(size);
    int rounds = size <= SMALL_FILE ? FLIPS_SMALL : FLIPS_LARGE;
    for (int r = 0; r < rounds; r++) {
        memcpy(copy, file, size);
        int nflips = 1 + (int)(next_random() % 4);
        for (int i = 0; i < nflips; i++) {
            /* Half the flips land in the first 4 KiB, where the headers are. */
            size_t span = (next_random() & 1) && size > 4096 ? 4096 : size;
            copy[next_random() % span] ^= (unsigned char)(1u << (next_random() % 8));
        }
        parse(copy, size, NULL, &t);
    }
    free(copy);
    is_int(t.wrong, 0, "%s: %zu random byte flips give an error (%zu) or a consistent result", name, t.runs,
           t.errors);
}

int main(void)
{
    static const char *const files[] = {
        "lz4.fatbin", "plain.fatbin", "made.fatbin", "kernels.cubin", "kernels75.cubin", "linked_a.cubin",
        "sidefx.cubin", "kernels.ptx", "kernels.o", "embedded.o", "libkernels.so", "app_default", "app_rdc",
        "app_compressed",
    };
    fx_dir();
    alarm(3000); /* a hang fails the test */
    const char *seed = getenv("GT_SEED");
    if (seed)
        rng = strtoull(seed, NULL, 0) | 1;
    diag("random seed %#llx (set GT_SEED to repeat)", (unsigned long long)rng);
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        size_t size;
        unsigned char *file = fx_read(files[i], &size);
        struct names all = {0};
        struct gt_devcode dc;
        char err[256];
        if (gt_devcode_open(file, size, &dc, err, sizeof err) != 0) {
            ok(0, "%s opens: %s", files[i], err);
            free(file);
            continue;
        }
        decode_all(&dc);
        kernel_names(&dc, &all, 1);
        gt_devcode_free(&dc);
        time_t t0 = time(NULL);
        truncations(files[i], file, size, &all);
        flips(files[i], file, size);
        diag("%s: %zu bytes, %ld s", files[i], size, (long)(time(NULL) - t0));
        for (size_t j = 0; j < all.n; j++)
            free(all.v[j]);
        free(all.v);
        free(file);
    }
    return done_testing();
}
