/* test_perthread: a block per thread, zeroed at the thread's first call,
 * the same block at its later calls, another in another thread, and freed
 * when the thread ends (a sanitizer's leak check finds none); a call from
 * a key destructor that runs after the block's was freed gets a new one. */
#include "perthread.h"
#include "tap.h"

#include <pthread.h>
#include <string.h>

static struct gt_perthread pt = GT_PERTHREAD_INIT(4096);

struct seen {
    unsigned char *block;
    int zeroed, same;
};

static void *thread(void *arg)
{
    struct seen *s = arg;
    s->block = gt_perthread_get(&pt);
    unsigned char zero[4096] = {0};
    s->zeroed = s->block && !memcmp(s->block, zero, sizeof zero);
    if (s->block)
        memset(s->block, 0xab, 4096);
    s->same = gt_perthread_get(&pt) == s->block;
    return NULL;
}

/* A key made after the block's, so that glibc runs its destructor after
 * the block's own: a launch from a library's thread-exit handler. */
static pthread_key_t late;
static int late_zeroed = -1;

static void late_call(void *arg)
{
    (void)arg;
    unsigned char *b = gt_perthread_get(&pt);
    late_zeroed = b && b[0] == 0;
}

static void *thread_late(void *arg)
{
    thread(arg);
    pthread_setspecific(late, (void *)1);
    return NULL;
}

int main(void)
{
    struct seen main_seen, other[4];
    thread(&main_seen);
    ok(main_seen.block != NULL, "the first call makes a block");
    ok(main_seen.zeroed, "  zeroed");
    ok(main_seen.same, "  and later calls of the thread find the same");
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, thread, &other[i]);
    int zeroed = 1, distinct = 1;
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        zeroed &= other[i].zeroed && other[i].same;
        distinct &= other[i].block != main_seen.block;
    }
    ok(zeroed, "every other thread gets a zeroed block of its own, the same at each of its calls");
    ok(distinct, "  none of them the first thread's, whose bytes stay");
    ok(((unsigned char *)gt_perthread_get(&pt))[100] == 0xab, "  the first thread's block keeps what it wrote");

    struct seen s;
    pthread_key_create(&late, late_call);
    pthread_create(&t[0], NULL, thread_late, &s);
    pthread_join(t[0], NULL);
    ok(late_zeroed == 1, "a call after the thread's block was freed, from a later destructor: a new zeroed block");
    done_testing();
}
