/* failalloc.c: preloaded with the shim, fails one of the shim's own
 * allocations, as SQLite's tests fail their N-th malloc.
 *
 * Only calls made from libgputune.so's code count (the caller's return
 * address inside its executable mapping): the application's, libc's and
 * other libraries' allocations never fail, so every injected failure is the
 * shim's.  FAILALLOC_AFTER=N fails the N-th counted call (from 1, every
 * thread) and that one only.  FAILALLOC_COUNT=FILE writes at exit how many
 * calls were counted and where the failed one was called from: the first
 * frames of its stack inside libgputune.so, as offsets for addr2line joined
 * by commas ("-" when none failed; the shim allocates through one module,
 * so its callers are the frames that tell).
 *
 * The real functions are found with dlsym(RTLD_NEXT) (a sanitizer's runtime
 * preloaded after this library still serves every allocation); dlsym may
 * allocate while they are being found, and gets a static arena meanwhile. */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
    char *(*strdup)(const char *);
    char *(*strndup)(const char *, size_t);
    int (*posix_memalign)(void **, size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    int (*vasprintf)(char **, const char *, va_list);
} real;

static _Alignas(64) char arena[16384];
static size_t arena_used;
static _Thread_local int busy;

/* The shim's executable range and its load address, found once. */
static uintptr_t shim_lo, shim_hi, shim_base;
static atomic_int shim_state; /* 0 not looked for, 1 looking, 2 done */

#define FRAMES 4 /* of the shim's, kept from the failed call's stack */

static atomic_long counted;
static atomic_int failed;
static char failed_at[FRAMES * 20];
static atomic_int late; /* the destructor has run: every later count is written at once */
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;

static void *arena_alloc(size_t n)
{
    size_t at = (arena_used + 15) & ~(size_t)15;
    if (at + n > sizeof arena)
        return NULL;
    arena_used = at + n;
    return memset(arena + at, 0, n);
}

static int in_arena(const void *p)
{
    return (const char *)p >= arena && (const char *)p < arena + sizeof arena;
}

static void resolve(void)
{
    busy++;
#define FIND(name) *(void **)&real.name = dlsym(RTLD_NEXT, #name)
    FIND(malloc);
    FIND(free);
    FIND(calloc);
    FIND(realloc);
    FIND(strdup);
    FIND(strndup);
    FIND(posix_memalign);
    FIND(aligned_alloc);
    FIND(vasprintf);
#undef FIND
    busy--;
}

static int find_shim(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    const char *slash = strrchr(info->dlpi_name, '/');
    if (!slash || strcmp(slash, "/libgputune.so") != 0)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (!shim_lo || lo < shim_lo)
            shim_lo = lo;
        if (lo + ph->p_memsz > shim_hi)
            shim_hi = lo + ph->p_memsz;
    }
    shim_base = info->dlpi_addr;
    return 1;
}

static int from_shim(const void *caller)
{
    int expect = 0;
    if (atomic_compare_exchange_strong(&shim_state, &expect, 1)) {
        busy++;
        dl_iterate_phdr(find_shim, NULL);
        busy--;
        atomic_store(&shim_state, 2);
    }
    return atomic_load(&shim_state) == 2 && (uintptr_t)caller >= shim_lo && (uintptr_t)caller < shim_hi;
}

static void write_count(void)
{
    const char *path = getenv("FAILALLOC_COUNT");
    if (!path)
        return;
    busy++;
    pthread_mutex_lock(&write_lock);
    char line[64 + sizeof failed_at];
    int n = snprintf(line, sizeof line, "%ld %s\n", atomic_load(&counted), atomic_load(&failed) ? failed_at : "-");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
        if (write(fd, line, (size_t)n) != n)
            perror("failalloc");
        close(fd);
    }
    pthread_mutex_unlock(&write_lock);
    busy--;
}

/* The shim's frames of the calling stack, into failed_at. */
static void note_stack(void)
{
    void *pc[32];
    busy++;
    int n = backtrace(pc, 32), kept = 0;
    busy--;
    size_t len = 0;
    for (int i = 0; i < n && kept < FRAMES; i++) {
        uintptr_t a = (uintptr_t)pc[i];
        if (a < shim_lo || a >= shim_hi)
            continue;
        len += (size_t)snprintf(failed_at + len, sizeof failed_at - len, "%s0x%lx", kept++ ? "," : "",
                                (unsigned long)(a - 1 - shim_base)); /* the call, not the return */
    }
    atomic_store(&failed, 1);
}

/* Counts a call made from `caller`; true when it must fail.  Nothing is
 * counted while this library is busy itself (finding the real functions,
 * the shim's mapping, a stack). */
static int fails(const void *caller)
{
    if (busy)
        return 0;
    if (!real.vasprintf)
        resolve();
    if (!from_shim(caller))
        return 0;
    long n = atomic_fetch_add(&counted, 1) + 1;
    const char *after = getenv("FAILALLOC_AFTER");
    int fail = after && atol(after) == n;
    if (fail) {
        note_stack();
        errno = ENOMEM; /* as malloc sets it */
    }
    if (atomic_load(&late))
        write_count();
    return fail;
}

__attribute__((destructor)) static void at_exit(void)
{
    write_count();
    atomic_store(&late, 1);
}

#define CALLER __builtin_return_address(0)

/* While the real functions are being found (dlsym may allocate, in any of
 * these ways, depending on the C library's version), calls are served from
 * the arena: early(X) is true for a call that must be. */
#define early(fn) (!real.fn && (busy || (resolve(), !real.fn)))

static void *arena_copy(const void *p, size_t n, size_t have)
{
    void *q = arena_alloc(n);
    return q && p ? memcpy(q, p, n < have ? n : have) : q;
}

void *malloc(size_t n)
{
    if (early(malloc))
        return arena_alloc(n);
    return fails(CALLER) ? NULL : real.malloc(n);
}

void *calloc(size_t n, size_t size)
{
    if (early(calloc))
        return n && size > sizeof arena / n ? NULL : arena_alloc(n * size);
    return fails(CALLER) ? NULL : real.calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    size_t left = in_arena(p) ? (size_t)(arena + sizeof arena - (char *)p) : 0;
    if (early(realloc)) /* a block of the real malloc's cannot be here yet */
        return p && !left ? NULL : arena_copy(p, n, left);
    if (fails(CALLER))
        return NULL;
    if (!left)
        return real.realloc(p, n);
    void *q = real.malloc(n);
    return q ? memcpy(q, p, n < left ? n : left) : NULL;
}

void free(void *p)
{
    if (in_arena(p) || early(free)) /* what dlsym frees before free is found: leaked */
        return;
    real.free(p);
}

char *strdup(const char *s)
{
    if (early(strdup))
        return arena_copy(s, strlen(s) + 1, strlen(s) + 1);
    return fails(CALLER) ? NULL : real.strdup(s);
}

char *strndup(const char *s, size_t n)
{
    if (early(strndup)) {
        size_t len = strnlen(s, n);
        char *q = arena_copy(s, len + 1, len);
        if (q)
            q[len] = '\0';
        return q;
    }
    return fails(CALLER) ? NULL : real.strndup(s, n);
}

/* The arena's blocks are 16-byte aligned; more is not asked for that early. */
int posix_memalign(void **p, size_t align, size_t n)
{
    if (early(posix_memalign))
        return align > 16 || !(*p = arena_alloc(n)) ? ENOMEM : 0;
    return fails(CALLER) ? ENOMEM : real.posix_memalign(p, align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
    if (early(aligned_alloc))
        return align > 16 ? NULL : arena_alloc(n);
    return fails(CALLER) ? NULL : real.aligned_alloc(align, n);
}

int vasprintf(char **out, const char *fmt, va_list ap)
{
    if (early(vasprintf)) {
        char buf[1024];
        int n = vsnprintf(buf, sizeof buf, fmt, ap);
        *out = n >= 0 && (size_t)n < sizeof buf ? arena_copy(buf, (size_t)n + 1, (size_t)n + 1) : NULL;
        return *out ? n : -1;
    }
    return fails(CALLER) ? -1 : real.vasprintf(out, fmt, ap);
}

int asprintf(char **out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = early(vasprintf) || !fails(CALLER) ? vasprintf(out, fmt, ap) : -1;
    va_end(ap);
    return n;
}
