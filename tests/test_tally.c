/* test_tally: a count that several threads add to at once, each on its own
 * slot: the sum holds every addition, those of threads that have ended too,
 * and a slot counts only its own thread's. */
#include "tally.h"
#include "tap.h"

#include <pthread.h>

#define THREADS 4
#define EACH 100000

static struct gt_tally tally = GT_TALLY_INIT;

static void *thread(void *arg)
{
    struct gt_tally_slot **mine = arg;
    *mine = gt_tally_join(&tally);
    for (int i = 0; *mine && i < EACH; i++)
        gt_tally_add(*mine);
    return NULL;
}

int main(void)
{
    ok(gt_tally_sum(&tally) == 0, "a tally no thread joined sums to nothing");
    struct gt_tally_slot *main_slot = gt_tally_join(&tally), *slots[THREADS];
    for (int i = 0; main_slot && i < 10; i++)
        gt_tally_add(main_slot);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, thread, &slots[i]);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    ok(gt_tally_sum(&tally) == 10 + (unsigned long)THREADS * EACH,
       "the sum holds every addition of threads that added at once, and ended");
    int own = 1;
    for (int i = 0; i < THREADS; i++)
        own &= slots[i] && slots[i] != main_slot && atomic_load(&slots[i]->n) == EACH;
    ok(own, "  each on a slot of its own, with its own count");
    ok(main_slot && atomic_load(&main_slot->n) == 10, "  the first thread's slot keeps its count");
    done_testing();
}
