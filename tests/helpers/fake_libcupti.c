/* fake_libcupti.c: a stand-in CUPTI of CUDA FAKE_MAJOR, for tests/cudalibs.t,
 * built once per version with the soname the real one has.
 *
 * It has the entry points the shim resolves; subscribing fails as when
 * another subscriber holds CUPTI, so trials are timed with events and a
 * test sees only which library the shim opened. */
#define MULTIPLE_SUBSCRIBERS 39 /* CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED */
#define FAILED 999              /* CUPTI_ERROR_UNKNOWN */

int cuptiSubscribe(void **sub, void *callback, void *user) { (void)sub, (void)callback, (void)user; return MULTIPLE_SUBSCRIBERS; }
int cuptiUnsubscribe(void *sub) { (void)sub; return FAILED; }
int cuptiActivityRegisterCallbacks(void *requested, void *completed) { (void)requested, (void)completed; return FAILED; }
int cuptiActivityEnable(int kind) { (void)kind; return FAILED; }
int cuptiActivityDisable(int kind) { (void)kind; return FAILED; }
int cuptiActivityFlushAll(unsigned flags) { (void)flags; return FAILED; }
int cuptiActivityGetNextRecord(void *buffer, unsigned long valid, void **record) { (void)buffer, (void)valid, (void)record; return FAILED; }
