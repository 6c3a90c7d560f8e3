/* result.c: the one result convention.
 *
 * Functions used to return -1 and -2 (and -3) with meanings that differed
 * from file to file: -2 was "the original launch fails" in one and "too many
 * configurations" in another.  A function that can fail in more than one way
 * that its caller must tell apart returns an enum gt_rc instead; one with a
 * single way to fail keeps 0 / -1 with its reason in the caller's buffer
 * (errmsg.c).  How loudly a failure is said is chosen from the code in one
 * place, log.c's gt_log_level_of(). */
#include "result.h"

const char *gt_rc_name(enum gt_rc rc)
{
    switch (rc) {
    case GT_OK:
        return "ok";
    case GT_FAILED:
        return "failed";
    case GT_APP_ERROR:
        return "application error";
    case GT_UNAVAILABLE:
        return "unavailable";
    case GT_TOO_LARGE:
        return "too large";
    case GT_NO_MEMORY:
        return "out of memory";
    }
    return "unknown result";
}
