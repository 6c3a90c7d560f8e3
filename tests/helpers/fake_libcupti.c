/* fake_libcupti.c: a stand-in CUPTI of CUDA FAKE_MAJOR, built once per
 * version with the soname the real one has.
 *
 * By default subscribing fails, as when another subscriber holds CUPTI, so
 * trials are timed with events and tests/cudalibs.t sees only which library
 * the shim opened.  With FAKECUPTI_US=T (tests/timing.t) it is CUPTI for
 * the stand-in driver: while the concurrent kernel kind is enabled, each
 * flush hands the buffer callbacks one record of each launch the driver ran
 * since the last (fakeran.h), T microseconds long; FAKECUPTI_L1_US for a
 * function that prefers L1, FAKECUPTI_MODULE_US for one of a module loaded
 * by cuModuleLoadData (a variant the shim built).  FAKECUPTI_DROP=1 leaves
 * the last record of each flush out, and FAKECUPTI_ZERO=1 makes every record
 * end where it starts: a profiler that loses records, or reads no time. */
#include <cupti.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "fakeran.h"

#define FAILED CUPTI_ERROR_UNKNOWN
#define RECORDS_MAX 1024

static CUpti_BuffersCallbackRequestFunc requested;
static CUpti_BuffersCallbackCompleteFunc completed;
static int subscribed, enabled;
static struct fakecuda_ran ran[RECORDS_MAX]; /* the names the last flush's records point to */

static int serving(void)
{
    return getenv("FAKECUPTI_US") != NULL;
}

/* The launches the stand-in driver ran since the last call. */
static size_t take_ran(void)
{
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    fakecuda_take_ran_fn *take = driver ? (fakecuda_take_ran_fn *)dlsym(driver, "fakecuda_take_ran") : NULL;
    size_t n = take ? take(ran, RECORDS_MAX) : 0;
    if (driver)
        dlclose(driver);
    return n;
}

static double us_of(const struct fakecuda_ran *r)
{
    const char *v = r->from_module ? getenv("FAKECUPTI_MODULE_US") : r->l1 ? getenv("FAKECUPTI_L1_US") : NULL;
    return getenv("FAKECUPTI_ZERO") ? 0 : strtod(v ? v : getenv("FAKECUPTI_US"), NULL);
}

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *sub, CUpti_CallbackFunc callback, void *user)
{
    (void)callback, (void)user;
    if (!serving() || subscribed)
        return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    subscribed = 1;
    *sub = (CUpti_SubscriberHandle)&subscribed;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle sub)
{
    if (!subscribed || sub != (CUpti_SubscriberHandle)&subscribed)
        return CUPTI_ERROR_INVALID_PARAMETER;
    subscribed = 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req, CUpti_BuffersCallbackCompleteFunc done)
{
    if (!serving())
        return FAILED;
    requested = req;
    completed = done;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind)
{
    if (!serving() || kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
        return FAILED;
    take_ran(); /* records start now */
    enabled = 1;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind)
{
    if (!serving() || kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
        return FAILED;
    enabled = 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
    (void)flag;
    if (!serving())
        return FAILED;
    size_t n = take_ran();
    if (!enabled || !requested || !completed)
        return CUPTI_SUCCESS;
    if (n && getenv("FAKECUPTI_DROP"))
        n--;
    uint8_t *buffer = NULL;
    size_t size = 0, max_records = 0;
    requested(&buffer, &size, &max_records);
    if (!buffer)
        return CUPTI_ERROR_OUT_OF_MEMORY;
    CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *)buffer;
    size_t fit = size / sizeof *k, start = 1000000;
    n = n < fit ? n : fit;
    for (size_t i = 0; i < n; i++) {
        memset(&k[i], 0, sizeof k[i]);
        k[i].kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
        k[i].start = start;
        k[i].end = start + (uint64_t)(us_of(&ran[i]) * 1e3);
        k[i].name = ran[i].name;
        start = k[i].end + 1000;
    }
    completed(NULL, 0, buffer, size, n * sizeof *k);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **record)
{
    if (!serving())
        return FAILED;
    uint8_t *next = *record ? (uint8_t *)*record + sizeof(CUpti_ActivityKernel10) : buffer;
    if (next + sizeof(CUpti_ActivityKernel10) > buffer + valid)
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *record = (CUpti_Activity *)next;
    return CUPTI_SUCCESS;
}
