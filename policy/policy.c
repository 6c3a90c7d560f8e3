/* policy.c: reading policy files and choosing a section for a kernel.
 *
 * A policy file is INI, read with inih:
 *
 *   [defaults]                  settings for every kernel of this file, and
 *                               for kernels no policy file names
 *   [kernel "saxpy*"]           a glob over the kernel's names
 *   key = value                 (value continued on indented lines)
 *
 * inih hands its handler neither line numbers nor more than 49 characters
 * of a section name, and cuts lines at its buffer size.  So inih reads
 * through our own line reader, which knows the line it just handed over,
 * where inih's copy of it lives (columns are pointer differences into that
 * copy), and whether an indented line continues a key.  Section headers,
 * which can hold long demangled names, are parsed here and replaced by
 * short tokens ("[3]") before inih sees them. */
#include "keys.h"
#include "alloc.h"

#include <errno.h>
#include <fnmatch.h>
#include <ini.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILE (16u << 20)

/* ---- the policy object ---- */

struct gt_policy *gt_policy_new(void)
{
    struct gt_policy *p = gt_calloc(1, sizeof *p);
    if (p)
        gt_settings_init(&p->unnamed);
    return p;
}

void gt_policy_free(struct gt_policy *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nsections; i++)
        gt_section_free(p->sections[i]);
    for (size_t i = 0; i < p->ndefaults; i++)
        gt_section_free(p->defaults[i]);
    for (size_t i = 0; i < p->nfiles; i++)
        free(p->files[i]);
    free(p->sections);
    free(p->defaults);
    free(p->files);
    gt_settings_clear(&p->unnamed);
    free(p);
}

/* Whether an array of n grown only by grow_to must grow for one more: its
 * capacity is n rounded up to a power of two, so growing costs amortized
 * constant time even where realloc always copies (AddressSanitizer). */
static int full(size_t n)
{
    return (n & (n - 1)) == 0;
}

static size_t grow_to(size_t n)
{
    return n ? n * 2 : 1;
}

static int push(void *arrayp, size_t *n, void *item)
{
    void ***a = arrayp;
    void **v = full(*n) ? gt_realloc(*a, grow_to(*n) * sizeof *v) : *a;
    if (!v)
        return -1;
    v[(*n)++] = item;
    *a = v;
    return 0;
}

/* ---- reading lines for inih ---- */

enum line_kind { L_BLANK, L_HEADER, L_KEY, L_CONT };

struct raw_section {
    struct gt_section *sec;
    int is_defaults;
    struct gt_raw *raw;
    size_t n, cap;
};

struct loader {
    struct gt_policy *p;
    struct gt_diags *d;
    const char *file;
    const char *text;
    size_t len, pos;
    int line;                /* of the line handed to inih last */
    const char *buf;         /* inih's copy of it */
    enum line_kind kind;
    int have_key;            /* an indented line continues the section's last key */
    int drop;                /* and that key could not be read */
    struct raw_section *secs;
    size_t nsecs;
    int cur;                 /* section receiving keys; -1 before the first */
    int told_outside;
    size_t nomem;
};

static struct gt_loc at(const struct loader *L, int col)
{
    return (struct gt_loc){L->file, L->line, col};
}

static int new_section(struct loader *L, char *pattern, int is_defaults, int col, int bad)
{
    struct gt_section *sec = gt_calloc(1, sizeof *sec);
    struct raw_section *v = !sec               ? NULL
                            : full(L->nsecs) ? gt_realloc(L->secs, grow_to(L->nsecs) * sizeof *v)
                                             : L->secs;
    if (!v) {
        free(sec);
        free(pattern);
        L->nomem++;
        return -1;
    }
    L->secs = v;
    sec->pattern = pattern;
    sec->loc = at(L, col);
    sec->errors = bad;
    gt_settings_init(&sec->set);
    L->secs[L->nsecs] = (struct raw_section){sec, is_defaults, NULL, 0, 0};
    return (int)L->nsecs++;
}

/* Where text after a header's ']' starts, n if only blanks and a comment follow. */
static size_t text_after(const char *s, size_t i, size_t n)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    return i == n || s[i] == ';' || s[i] == '#' ? n : i;
}

/* The pattern of [kernel "..."]: \" and \\ stand for themselves; other
 * backslashes are kept for fnmatch, which reads them as escapes. */
static char *read_pattern(const char *s, size_t *i, size_t n)
{
    char *out = gt_malloc(n + 1);
    size_t o = 0;
    if (!out)
        return NULL;
    while (*i < n && s[*i] != '"') {
        if (s[*i] == '\\' && *i + 1 < n && s[*i + 1] == '"') {
            out[o++] = '"';
            *i += 2;
            continue;
        }
        if (s[*i] == '\\' && *i + 1 < n)
            out[o++] = s[(*i)++];
        out[o++] = s[(*i)++];
    }
    out[o] = 0;
    return out;
}

/* A section header: [kernel "PATTERN"] or [defaults].  Returns the section
 * that receives the following keys; a broken header still gets one, so that
 * its keys are checked and never land in the previous section. */
static int header(struct loader *L, const char *s, size_t n, size_t b)
{
    size_t i = b + 1, w;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    for (w = i; i < n && (s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'));)
        i++;
    size_t wl = i - w;
    int col = (int)b + 1;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (wl == 8 && memcmp(s + w, "defaults", 8) == 0) {
        if (i < n && s[i] == ']' && text_after(s, i + 1, n) == n)
            return new_section(L, NULL, 1, col, 0);
        if (i < n && s[i] == ']')
            gt_diags_add(L->d, at(L, (int)text_after(s, i + 1, n) + 1), "unexpected text after ']'");
        else
            gt_diags_add(L->d, at(L, (int)i + 1), "expected ']' after 'defaults'");
        return new_section(L, NULL, 1, col, 1);
    }
    if (wl == 6 && memcmp(s + w, "kernel", 6) == 0) {
        if (i >= n || s[i] != '"') {
            size_t e = i;
            while (e < n && s[e] != ']')
                e++;
            while (e > i && (s[e - 1] == ' ' || s[e - 1] == '\t'))
                e--;
            gt_diags_add(L->d, at(L, (int)i + 1), "expected '\"' after 'kernel': write [kernel \"%.*s\"]",
                         (int)(e - i > 80 ? 80 : e - i), s + i);
            return new_section(L, NULL, 0, col, 1);
        }
        size_t q = ++i;
        char *pat = read_pattern(s, &i, n);
        if (!pat) {
            L->nomem++;
            return -1;
        }
        const char *msg = NULL;
        int mcol = (int)i + 1;
        if (i >= n)
            msg = "expected '\"' to end the kernel pattern", mcol = (int)q;
        else if (!pat[0])
            msg = "empty kernel pattern", mcol = (int)q;
        else {
            i++;
            while (i < n && (s[i] == ' ' || s[i] == '\t'))
                i++;
            mcol = (int)i + 1;
            if (i >= n || s[i] != ']')
                msg = "expected ']' after the kernel pattern";
            else if (text_after(s, i + 1, n) != n)
                msg = "unexpected text after ']'", mcol = (int)text_after(s, i + 1, n) + 1;
        }
        if (msg) {
            gt_diags_add(L->d, at(L, mcol), "%s", msg);
            free(pat);
            pat = NULL;
        }
        return new_section(L, pat, 0, col, msg != NULL);
    }
    size_t e = b + 1;
    while (e < n && s[e] != ']')
        e++;
    int show = (int)(e - b - 1 > 80 ? 80 : e - b - 1);
    static const char *const kinds[] = {"kernel", "defaults"};
    char word[32];
    snprintf(word, sizeof word, "%.*s", (int)(wl < 31 ? wl : 31), s + w);
    const char *near = wl ? gt_nearest(word, kinds, 2) : NULL;
    if (near)
        gt_diags_add(L->d, at(L, (int)w + 1), "unknown section type '%s'; did you mean '%s'?", word, near);
    else
        gt_diags_add(L->d, at(L, col), "unknown section [%.*s]: expected [kernel \"PATTERN\"] or [defaults]", show,
                     s + b + 1);
    return new_section(L, NULL, 0, col, 1);
}

/* Where inih will split a key line: the first '=' or ':' before an inline
 * comment (a ';' after a blank). */
static int has_separator(const char *s, size_t i, size_t n)
{
    int was_space = 0;
    for (; i < n; i++) {
        if (s[i] == '=' || s[i] == ':')
            return 1;
        if (s[i] == ';' && was_space)
            return 0;
        was_space = s[i] == ' ' || s[i] == '\t';
    }
    return 0;
}

/* Marks the key being continued as unreadable: its value is incomplete. */
static void break_last(struct loader *L)
{
    if (L->cur >= 0 && L->secs[L->cur].n)
        L->secs[L->cur].raw[L->secs[L->cur].n - 1].broken = 1;
}

/* Classifies the line s[0..n) and writes what inih should see into str. */
static void feed(struct loader *L, const char *s, size_t n, char *str, int num)
{
    size_t b = 0;
    while (b < n && (s[b] == ' ' || s[b] == '\t'))
        b++;
    str[0] = 0;
    L->kind = L_BLANK;
    if (b == n || s[b] == ';' || s[b] == '#')
        return;
    if (memchr(s, 0, n)) {
        gt_diags_add(L->d, at(L, (int)((const char *)memchr(s, 0, n) - s) + 1), "NUL byte in the line");
        if (b > 0 && L->have_key)
            break_last(L);
        L->drop = 1;
        return;
    }
    if (s[b] == '[') {
        L->kind = L_HEADER;
        L->cur = header(L, s, n, b);
        L->have_key = L->drop = 0;
        if (L->cur >= 0)
            snprintf(str, (size_t)num, "[%d]\n", L->cur);
        return;
    }
    int cont = b > 0 && L->have_key;
    if (cont && L->drop)
        return; /* the rest of a key that could not be read */
    if (n + 3 > (size_t)num) {
        gt_diags_add(L->d, at(L, 1), "line too long (%zu characters, at most %d): continue the value on "
                     "indented lines", n, num - 3);
        if (cont)
            break_last(L);
        L->have_key = L->drop = 1;
        return;
    }
    if (!cont && !has_separator(s, b, n)) {
        gt_diags_add(L->d, at(L, (int)b + 1), "expected 'key = value'%s",
                     b > 0 ? " (an indented line continues a key only after one)" : "");
        L->have_key = L->drop = 1;
        return;
    }
    L->kind = cont ? L_CONT : L_KEY;
    if (!cont)
        L->have_key = 1, L->drop = 0;
    memcpy(str, s, n);
    str[n] = '\n';
    str[n + 1] = 0;
}

static char *reader(char *str, int num, void *stream)
{
    struct loader *L = stream;
    if (L->pos >= L->len || num < 8)
        return NULL;
    const char *s = L->text + L->pos, *nl = memchr(s, '\n', L->len - L->pos);
    size_t n = nl ? (size_t)(nl - s) : L->len - L->pos;
    L->pos += n + (nl != NULL);
    L->line++;
    if (n && s[n - 1] == '\r')
        n--;
    if (L->line == 1 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
        s += 3, n -= 3; /* columns count from after it, as editors show them */
    L->buf = str;
    feed(L, s, n, str, num);
    return str;
}

/* Column of p in inih's copy of the line; inih hands out pointers into it. */
static int col_in_line(const struct loader *L, const char *p)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)L->buf;
    return a >= b && a - b < (1u << 20) ? (int)(a - b) + 1 : 1;
}

static int append_raw(struct raw_section *rs, struct gt_raw r)
{
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? 2 * rs->cap : 8;
        struct gt_raw *v = gt_realloc(rs->raw, cap * sizeof *v);
        if (!v)
            return -1;
        rs->raw = v;
        rs->cap = cap;
    }
    rs->raw[rs->n++] = r;
    return 0;
}

/* An indented line: the last key's value goes on, after a '\n'. */
static int continue_value(struct loader *L, struct gt_raw *r, const char *value)
{
    size_t old = strlen(r->value), add = strlen(value);
    char *v = gt_realloc(r->value, old + add + 2);
    struct gt_srcpiece *pc = v ? gt_realloc(r->map.piece, (r->map.n + 1) * sizeof *pc) : NULL;
    if (v)
        r->value = v;
    if (!pc)
        return -1;
    r->map.piece = pc;
    v[old] = '\n';
    memcpy(v + old + 1, value, add + 1);
    pc[r->map.n++] = (struct gt_srcpiece){old + 1, L->line, col_in_line(L, value)};
    return 0;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    struct loader *L = user;
    (void)section; /* the reader knows the section: inih's copy of its name is a token */
    if (L->kind == L_CONT) {
        struct raw_section *rs = L->cur >= 0 ? &L->secs[L->cur] : NULL;
        if (!L->drop && rs && rs->n && continue_value(L, &rs->raw[rs->n - 1], value) < 0)
            L->nomem++;
        return 1;
    }
    if (L->cur < 0) {
        if (!L->told_outside++ && !L->nomem) /* after a section lost to memory, the memory is the error */
            gt_diags_add(L->d, at(L, col_in_line(L, name)),
                         "'%s' is outside any section: start with [kernel \"PATTERN\"] or [defaults]", name);
        L->drop = 1;
        return 1;
    }
    struct gt_raw r = {gt_strdup(name), at(L, col_in_line(L, name)), gt_strdup(value), {L->file, NULL, 0}, 0};
    r.map.piece = gt_malloc(sizeof *r.map.piece);
    if (!r.key || !r.value || !r.map.piece || append_raw(&L->secs[L->cur], r) < 0) {
        free(r.key);
        free(r.value);
        free(r.map.piece);
        L->nomem++;
        return 1;
    }
    r.map.piece[0] = (struct gt_srcpiece){0, L->line, col_in_line(L, value)};
    r.map.n = 1;
    L->secs[L->cur].raw[L->secs[L->cur].n - 1].map = r.map;
    return 1;
}

/* ---- after reading: sections into the policy ---- */

static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? gt_strndup(path, (size_t)(slash - path + (slash == path))) : gt_strdup(".");
}

static void free_raw(struct raw_section *rs)
{
    for (size_t i = 0; i < rs->n; i++) {
        free(rs->raw[i].key);
        free(rs->raw[i].value);
        gt_srcmap_clear(&rs->raw[i].map);
    }
    free(rs->raw);
}

/* Sections in the order repeated_sections compares them: [defaults]
 * first, then by pattern, then as they come in the file. */
static int by_pattern(const void *x, const void *y, void *secs)
{
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    const struct raw_section *a = (const struct raw_section *)secs + i, *b = (const struct raw_section *)secs + j;
    int c = b->is_defaults - a->is_defaults;
    if (!c && !a->is_defaults)
        c = strcmp(a->sec->pattern ? a->sec->pattern : "", b->sec->pattern ? b->sec->pattern : "");
    return c ? c : (i > j) - (i < j);
}

/* A second [defaults], or a pattern given twice, would never be used; said
 * at each repeat, in file order.  Sorted, not compared pairwise: policies
 * of hundreds of thousands of sections load in linear-logarithmic time. */
static void repeated_sections(struct loader *L)
{
    size_t *order = gt_malloc(L->nsecs * sizeof *order), *first = gt_malloc(L->nsecs * sizeof *first);
    if (L->nsecs && (!order || !first)) {
        L->nomem++;
    } else {
        for (size_t i = 0; i < L->nsecs; i++)
            order[i] = first[i] = i;
        qsort_r(order, L->nsecs, sizeof *order, by_pattern, L->secs);
        for (size_t k = 1; k < L->nsecs; k++) {
            const struct raw_section *a = &L->secs[order[k - 1]], *b = &L->secs[order[k]];
            int same = b->is_defaults ? a->is_defaults
                                      : !a->is_defaults && a->sec->pattern && b->sec->pattern &&
                                            strcmp(a->sec->pattern, b->sec->pattern) == 0;
            if (same)
                first[order[k]] = first[order[k - 1]];
        }
        for (size_t i = 0; i < L->nsecs; i++) {
            if (first[i] == i)
                continue;
            gt_diags_add(L->d, L->secs[i].sec->loc, "%s repeats the section at line %d; merge them",
                         L->secs[i].is_defaults ? "[defaults]" : "this section", L->secs[first[i]].sec->loc.line);
            L->secs[i].sec->errors++;
        }
    }
    free(order);
    free(first);
}

static int settle(struct loader *L, const char *dir)
{
    size_t before = L->d->n;
    repeated_sections(L);
    struct raw_section *defaults = NULL;
    for (size_t i = 0; i < L->nsecs; i++) {
        struct raw_section *rs = &L->secs[i];
        rs->sec->errors += (int)gt_keys_apply(rs->sec, rs->is_defaults, dir, rs->raw, rs->n, L->d);
        if (rs->is_defaults && !defaults)
            defaults = rs;
    }
    int rc = 0;
    const struct gt_section *dsec = defaults ? defaults->sec : NULL; /* rs->sec moves to the policy below */
    for (size_t i = 0; i < L->nsecs; i++) {
        struct raw_section *rs = &L->secs[i];
        struct gt_section *sec = rs->sec;
        if (!rs->is_defaults && dsec) {
            if (gt_settings_merge(&sec->set, &dsec->set) < 0)
                L->nomem++;
            sec->errors += dsec->errors;
        }
        int keep = rs->is_defaults ? rs == defaults : sec->pattern != NULL;
        if (rs->is_defaults && keep && gt_settings_merge(&L->p->unnamed, &sec->set) < 0)
            L->nomem++;
        if (keep && push(rs->is_defaults ? (void *)&L->p->defaults : (void *)&L->p->sections,
                         rs->is_defaults ? &L->p->ndefaults : &L->p->nsections, sec) == 0)
            rs->sec = NULL;
        else if (keep)
            L->nomem++;
    }
    if (L->nomem)
        gt_diags_add(L->d, at(L, 0), "out of memory while reading the policy");
    if (L->d->n > before || L->nomem)
        rc = 1;
    return rc;
}

int gt_policy_load_string(struct gt_policy *p, const char *name, const char *text, size_t len, struct gt_diags *d)
{
    char *file = gt_strdup(name), *dir = file ? folder_of(name) : NULL;
    if (!dir || push(&p->files, &p->nfiles, file) < 0) {
        free(file);
        free(dir);
        gt_diags_add(d, (struct gt_loc){name, 0, 0}, "out of memory");
        return 1;
    }
    struct loader L = {.p = p, .d = d, .file = file, .text = text, .len = len, .cur = -1};
    size_t before = d->n;
    int r = ini_parse_stream(reader, &L, handler, &L);
    /* inih reports the first line it could not take; say so unless we did */
    int told = 0;
    for (size_t i = before; i < d->n; i++)
        told |= d->v[i].line == r;
    if (r > 0 && !told)
        gt_diags_add(d, (struct gt_loc){file, r, 0}, "line not understood");
    else if (r < 0)
        L.nomem++;
    int rc = settle(&L, dir);
    for (size_t i = 0; i < L.nsecs; i++) {
        free_raw(&L.secs[i]);
        gt_section_free(L.secs[i].sec);
    }
    free(L.secs);
    free(dir);
    gt_diags_sort(d);
    return rc;
}

int gt_policy_load_file(struct gt_policy *p, const char *path, struct gt_diags *d)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        gt_diags_add(d, (struct gt_loc){path, 0, 0}, "cannot read: %s", strerror(errno));
        return -1;
    }
    char *text = gt_malloc(MAX_FILE + 1);
    size_t n = text ? fread(text, 1, MAX_FILE + 1, f) : 0;
    int bad = !text || ferror(f), err = errno;
    fclose(f);
    if (bad) {
        free(text);
        gt_diags_add(d, (struct gt_loc){path, 0, 0}, "cannot read: %s", text ? strerror(err) : "out of memory");
        return -1;
    }
    if (n > MAX_FILE) {
        free(text);
        gt_diags_add(d, (struct gt_loc){path, 0, 0}, "cannot read: larger than %u bytes", MAX_FILE);
        return -1;
    }
    int r = gt_policy_load_string(p, path, text, n, d);
    free(text);
    return r;
}

int gt_policy_load_list(struct gt_policy *p, const char *list, struct gt_diags *d)
{
    int unreadable = 0, errors = 0;
    for (const char *s = list; s && *s;) {
        const char *e = strchr(s, ':');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n) {
            char *path = gt_strndup(s, n);
            int r = path ? gt_policy_load_file(p, path, d) : -1;
            free(path);
            unreadable |= r < 0;
            errors |= r > 0;
        }
        s = e ? e + 1 : NULL;
    }
    return unreadable ? -1 : errors;
}

/* dst's settings become over's, then what dst had where over is unset. */
static int override_settings(struct gt_settings *dst, const struct gt_settings *over)
{
    struct gt_settings merged;
    gt_settings_init(&merged);
    if (gt_settings_merge(&merged, over) < 0 || gt_settings_merge(&merged, dst) < 0) {
        gt_settings_clear(&merged);
        return -1;
    }
    gt_settings_clear(dst);
    *dst = merged;
    return 0;
}

int gt_policy_override(struct gt_policy *p, const char *words, struct gt_diags *d)
{
    static const char name[] = "GPUTUNE_SET", blanks[] = " \t\n"; /* a newline would start a line of its own */
    size_t len = strlen(words), n = 0;
    char *text = gt_malloc(2 * len + sizeof "[defaults]\n");
    struct gt_policy *over = text ? gt_policy_new() : NULL;
    if (!over) {
        free(text);
        gt_diags_add(d, (struct gt_loc){name, 0, 0}, "out of memory");
        return 1;
    }
    /* one word per line after the header: line N + 1 holds word N */
    n = (size_t)sprintf(text, "[defaults]\n");
    size_t before = d->n, word = 0;
    for (const char *s = words + strspn(words, blanks); *s; s += strspn(s, blanks)) {
        size_t w = strcspn(s, blanks);
        word++;
        if (strchr("[;#", *s) || !memchr(s, '=', w)) /* a section header or a comment would take it silently */
            gt_diags_add(d, (struct gt_loc){name, (int)word + 1, 1}, "expected KEY=VALUE, found '%.*s'", (int)w, s);
        memcpy(text + n, s, w);
        n += w;
        text[n++] = '\n';
        s += w;
    }
    /* a word refused above, or any message of the loader (its result stays 0
     * for a line it could not read), and none of the words applies */
    int rc = d->n > before || gt_policy_load_string(over, name, text, n, d) != 0 || d->n > before;
    for (size_t i = before; i < d->n; i++)
        d->v[i].line -= d->v[i].line > 0;
    if (rc == 0) {
        for (size_t i = 0; i < p->nsections && rc == 0; i++)
            rc = override_settings(&p->sections[i]->set, &over->unnamed) < 0;
        if (rc == 0)
            rc = override_settings(&p->unnamed, &over->unnamed) < 0;
        if (rc)
            gt_diags_add(d, (struct gt_loc){name, 0, 0}, "out of memory");
    }
    gt_policy_free(over);
    free(text);
    return rc;
}

/* ---- choosing a section ---- */

static int opens(char c)
{
    return c == '(' || c == '<' || c == '[' || c == '{';
}

static int closes(char c)
{
    return c == ')' || c == '>' || c == ']' || c == '}';
}

/* Where the parameter list of a demangled signature starts (len if none). */
static size_t params_start(const char *s, size_t len)
{
    if (len == 0 || s[len - 1] != ')')
        return len;
    int depth = 0;
    for (size_t i = len; i-- > 0;) {
        if (s[i] == ')')
            depth++;
        else if (s[i] == '(' && --depth == 0)
            return i;
    }
    return len;
}

/* Where the name starts after a return type ("void k<4>(int)"). */
static size_t name_start(const char *s, size_t end)
{
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < end; i++) {
        if (opens(s[i]))
            depth++;
        else if (closes(s[i]) && depth > 0)
            depth--;
        else if (s[i] == ' ' && depth == 0)
            start = i + 1;
    }
    return start;
}

size_t gt_policy_bare_name(const char *demangled, const char **start)
{
    size_t len = strlen(demangled), end = params_start(demangled, len);
    size_t b = name_start(demangled, end);
    *start = demangled + b;
    return end - b;
}

static int match_part(const char *pattern, const char *s, size_t n)
{
    char small[512];
    char *c = n < sizeof small ? small : gt_malloc(n + 1);
    if (!c)
        return 0;
    memcpy(c, s, n);
    c[n] = 0;
    int m = fnmatch(pattern, c, 0) == 0;
    if (c != small)
        free(c);
    return m;
}

int gt_policy_match(const char *pattern, const char *mangled, const char *demangled)
{
    if (mangled && fnmatch(pattern, mangled, 0) == 0)
        return 1;
    if (!demangled)
        return 0;
    if (fnmatch(pattern, demangled, 0) == 0)
        return 1;
    size_t len = strlen(demangled), end = params_start(demangled, len), b = name_start(demangled, end);
    return (b > 0 && match_part(pattern, demangled + b, len - b)) || match_part(pattern, demangled + b, end - b);
}

const struct gt_section *gt_policy_find(const struct gt_policy *p, const char *mangled, const char *demangled)
{
    for (size_t i = 0; i < p->nsections; i++)
        if (gt_policy_match(p->sections[i]->pattern, mangled, demangled))
            return p->sections[i];
    return NULL;
}
