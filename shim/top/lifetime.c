/* lifetime.c: the library's start and end, and its optional API.
 *
 * The constructor reads the environment (gt_init, which a hook may have run
 * already) and registers the fork handlers (forks.c); the destructor says
 * whether another library's dlsym kept the shim from the application's
 * lookups, then tells the user what happened (report.c), and that the shim
 * ran out of memory if nothing said so yet.  The optional API
 * of gputune.h answers from the state, and gputune_suspend sets the one
 * switch that the launch hooks read (intercept/suspend.h). */
#include "forks.h"
#include "interpose.h"
#include "log.h"
#include "report.h"
#include "state.h"

#include "gputune.h"

__attribute__((constructor)) static void gt_constructor(void)
{
    gt_init();
    gt_forks_init();
}

__attribute__((destructor)) static void gt_destructor(void)
{
    gt_interpose_check_bypass();
    gt_report_exit();
    gt_log_nomem_summary();
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

GT_EXPORT int gputune_suspend(int on)
{
    return atomic_exchange(&gt.intercept.suspended, on != 0);
}
