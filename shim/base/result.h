/* result.h: what a function that can fail in more than one way returns (see result.c). */
#ifndef GT_RESULT_H
#define GT_RESULT_H

/* GT_OK is 0 and every failure is positive, so `if (rc)` tests for failure.
 * A function returning one of these writes its reason, if it has one, into
 * the caller's buffer (errmsg.h); the caller reports it once. */
enum gt_rc {
    GT_OK = 0,      /* done */
    GT_FAILED,      /* failed; the reason is in the caller's buffer */
    GT_APP_ERROR,   /* the application's own call fails, and the application gets that error itself */
    GT_UNAVAILABLE, /* cannot be done here and now (CUPTI busy, a stream capture, SASS only, not worth it) */
    GT_TOO_LARGE,   /* past a limit: a buffer, a count, a space's size */
    GT_NO_MEMORY,   /* an allocation failed */
};

/* "ok", "failed", "application error", ...: for logs and tests. */
const char *gt_rc_name(enum gt_rc rc);

#endif
