/* elfsym.c: symbols past the shim's own exports: RTLD_NEXT without the
 * dynamic loader's help, and libc's dlsym.
 *
 * dlsym(RTLD_NEXT, name) means "the first definition after the calling
 * object"; glibc finds the caller from the return address, which is inside
 * the shim once the shim exports dlsym.  So the shim answers RTLD_NEXT
 * itself: it walks the link maps after the caller and looks `name` up in
 * each object's dynamic symbol table (GNU or SysV hash, default version).
 * It cannot ask the loader instead: dlopen on an object not yet initialized
 * runs its constructors out of order, and sanitizer runtimes, which look
 * their functions up this way while they start, cannot serve intercepted
 * calls yet.  Hence no libc call here but dladdr1 and dlvsym, and no
 * instrumentation.
 *
 * The shim exports dlsym, so a plain dlsym() call from inside it would reach
 * its own; every lookup of the shim's goes to libc's through
 * gt_elfsym_dlsym().
 *
 * The same tables also answer what dlsym cannot: every name an object
 * exports (a library whose entry points carry its version in their names,
 * as nvJitLink's do) and the soname it was built with. */
#include "elfsym.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct dyn {
    uintptr_t base;
    const ElfW(Sym) *symtab;
    const char *strtab;
    const uint32_t *gnu_hash;
    const uint32_t *sysv_hash;
    const uint16_t *versym;
    uintptr_t soname; /* offset in strtab; 0 when the object has none */
};

/* Addresses in a dynamic section are relocated in place for most objects,
 * but not all (the vDSO): take an address below the base as relative. */
GT_EARLY static uintptr_t fix(uintptr_t base, uintptr_t p)
{
    return p < base ? p + base : p;
}

GT_EARLY static int read_dynamic(const struct link_map *l, struct dyn *d)
{
    *d = (struct dyn){.base = (uintptr_t)l->l_addr};
    for (const ElfW(Dyn) *e = l->l_ld; e && e->d_tag != DT_NULL; e++) {
        uintptr_t p = fix(d->base, (uintptr_t)e->d_un.d_ptr);
        switch (e->d_tag) {
        case DT_SYMTAB: d->symtab = (const ElfW(Sym) *)p; break;
        case DT_STRTAB: d->strtab = (const char *)p; break;
        case DT_GNU_HASH: d->gnu_hash = (const uint32_t *)p; break;
        case DT_HASH: d->sysv_hash = (const uint32_t *)p; break;
        case DT_VERSYM: d->versym = (const uint16_t *)p; break;
        case DT_SONAME: d->soname = (uintptr_t)e->d_un.d_val; break;
        default: break;
        }
    }
    return d->symtab && d->strtab && (d->gnu_hash || d->sysv_hash);
}

GT_EARLY static int same(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* 1 if symbol i is a visible definition of `name`, its default version. */
GT_EARLY static int defines(const struct dyn *d, uint32_t i, const char *name)
{
    const ElfW(Sym) *s = &d->symtab[i];
    if (s->st_shndx == SHN_UNDEF || !same(name, d->strtab + s->st_name))
        return 0;
    int bind = ELF64_ST_BIND(s->st_info);
    if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE)
        return 0;
    return !d->versym || !(d->versym[i] & 0x8000);
}

GT_EARLY static long find_gnu(const struct dyn *d, const char *name)
{
    uint32_t h = 5381;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        h = h * 33 + *c;
    uint32_t nbuckets = d->gnu_hash[0], symoffset = d->gnu_hash[1], bloom_size = d->gnu_hash[2];
    const uint32_t *buckets = d->gnu_hash + 4 + bloom_size * (sizeof(ElfW(Addr)) / 4);
    const uint32_t *chain = buckets + nbuckets;
    if (nbuckets == 0)
        return -1;
    for (uint32_t i = buckets[h % nbuckets]; i >= symoffset && i != 0; i++) {
        uint32_t h2 = chain[i - symoffset];
        if ((h | 1) == (h2 | 1) && defines(d, i, name))
            return i;
        if (h2 & 1)
            break;
    }
    return -1;
}

GT_EARLY static long find_sysv(const struct dyn *d, const char *name)
{
    uint32_t h = 0;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        h = (h << 4) + *c;
        uint32_t g = h & 0xf0000000u;
        h ^= g >> 24;
        h &= ~g;
    }
    uint32_t nbuckets = d->sysv_hash[0];
    const uint32_t *buckets = d->sysv_hash + 2, *chain = buckets + nbuckets;
    if (nbuckets == 0)
        return -1;
    for (uint32_t i = buckets[h % nbuckets]; i != STN_UNDEF; i = chain[i])
        if (defines(d, i, name))
            return i;
    return -1;
}

/* Looks `name` up in the objects loaded after the one containing `caller`.
 * Returns 1 and the address when found; 0 when no object defines it; -1
 * when the answer needs the loader (an IFUNC, an unknown caller). */
GT_EARLY int gt_elfsym_next(const void *caller, const char *name, void **found)
{
    Dl_info info;
    struct link_map *lm = NULL;
    if (!dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
        return -1;
    for (struct link_map *l = lm->l_next; l; l = l->l_next) {
        struct dyn d;
        if (!read_dynamic(l, &d))
            continue;
        long i = d.gnu_hash ? find_gnu(&d, name) : find_sysv(&d, name);
        if (i < 0)
            continue;
        const ElfW(Sym) *s = &d.symtab[i];
        if (ELF64_ST_TYPE(s->st_info) == STT_GNU_IFUNC || ELF64_ST_TYPE(s->st_info) == STT_TLS)
            return -1;
        *found = (void *)(d.base + s->st_value);
        return 1;
    }
    return 0;
}

/* libc's dlsym: the one after the shim, which also skips a sanitizer's
 * interceptor placed before it.  Sanitizer runtimes call dlsym while they
 * start, before instrumented code may run: this path stays uninstrumented. */
GT_EARLY void *gt_elfsym_dlsym(void *handle, const char *name)
{
    static void *(*_Atomic real)(void *, const char *);
    void *(*f)(void *, const char *) = atomic_load_explicit(&real, memory_order_acquire);
    if (!f) {
        f = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (!f)
            f = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
        if (!f)
            abort(); /* a libc without dlsym: nothing could work */
        atomic_store_explicit(&real, f, memory_order_release);
    }
    return f(handle, name);
}

/* The tables of the object behind a dlopen handle. */
static int dynamic_of(void *handle, struct dyn *d)
{
    struct link_map *lm = NULL;
    return dlinfo(handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && read_dynamic(lm, d);
}

/* How many entries the symbol table has: the SysV table says; the GNU one
 * ends with the last chain of its highest bucket. */
static uint32_t symbol_count(const struct dyn *d)
{
    if (d->sysv_hash)
        return d->sysv_hash[1];
    uint32_t nbuckets = d->gnu_hash[0], symoffset = d->gnu_hash[1], bloom_size = d->gnu_hash[2];
    const uint32_t *buckets = d->gnu_hash + 4 + bloom_size * (sizeof(ElfW(Addr)) / 4);
    const uint32_t *chain = buckets + nbuckets;
    uint32_t last = 0;
    for (uint32_t i = 0; i < nbuckets; i++)
        if (buckets[i] > last)
            last = buckets[i];
    if (last < symoffset)
        return symoffset;
    while (!(chain[last - symoffset] & 1))
        last++;
    return last + 1;
}

/* Calls fn with every name the object of `handle` exports (defined,
 * global or weak, default version) until fn returns nonzero; returns
 * that, 0 when all were seen, -1 when its tables cannot be read. */
int gt_elfsym_each(void *handle, int (*fn)(const char *name, void *arg), void *arg)
{
    struct dyn d;
    if (!dynamic_of(handle, &d))
        return -1;
    uint32_t n = symbol_count(&d);
    for (uint32_t i = 1; i < n; i++) {
        const char *name = d.strtab + d.symtab[i].st_name;
        int r = defines(&d, i, name) ? fn(name, arg) : 0;
        if (r)
            return r;
    }
    return 0;
}

/* The soname the object of `handle` was linked with; NULL when none. */
const char *gt_elfsym_soname(void *handle)
{
    struct dyn d;
    return dynamic_of(handle, &d) && d.soname ? d.strtab + d.soname : NULL;
}
