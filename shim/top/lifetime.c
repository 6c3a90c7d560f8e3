/* lifetime.c: the library's start and end, and its optional API.
 *
 * The constructor reads the environment (gt_init, which a hook may have run
 * already); the destructor tells the user what happened (report.c).  The
 * optional API of gputune.h answers from the state. */
#include "report.h"
#include "state.h"

#include "gputune.h"

__attribute__((constructor)) static void gt_constructor(void)
{
    gt_init();
}

__attribute__((destructor)) static void gt_destructor(void)
{
    gt_report_exit();
}

GT_EXPORT const char *gputune_version(void)
{
    return GPUTUNE_VERSION;
}

GT_EXPORT const char *gputune_mode(void)
{
    gt_init();
    return gt_mode_name(gt.mode);
}
