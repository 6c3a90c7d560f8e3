/* gputune.h: the public face of libgputune.
 *
 * The names of the environment variables that control the shim, the format
 * version of the cache file, and the small optional API an application may
 * look up with dlsym(RTLD_DEFAULT, ...) to learn whether it runs under the
 * shim.  Nothing here is needed to use the shim: LD_PRELOAD is enough. */
#ifndef GPUTUNE_H
#define GPUTUNE_H

#define GPUTUNE_VERSION "0.1.0"

/* Environment variables (documented in README). */
#define GPUTUNE_ENV_MODE     "GPUTUNE_MODE"     /* off | run | tune | retune */
#define GPUTUNE_ENV_LOG      "GPUTUNE_LOG"      /* error | warn | info | debug */
#define GPUTUNE_ENV_LOG_FILE "GPUTUNE_LOG_FILE" /* path; "%p" becomes the pid */
#define GPUTUNE_ENV_CACHE_DIR "GPUTUNE_CACHE_DIR" /* default $XDG_CACHE_HOME/gputune */
#define GPUTUNE_ENV_JOBS     "GPUTUNE_JOBS"     /* compile threads; default: processors */
#define GPUTUNE_ENV_FORCE    "GPUTUNE_FORCE"    /* "GLOB CONFIG; ...": apply a configuration */
#define GPUTUNE_ENV_SEED     "GPUTUNE_SEED"     /* seed of the search strategies */
#define GPUTUNE_ENV_REPORT   "GPUTUNE_REPORT"   /* CSV of the tuned kernels, written at exit */
#define GPUTUNE_ENV_POLICY   "GPUTUNE_POLICY"   /* policy files, separated by ':' */
#define GPUTUNE_ENV_WATCHDOG "GPUTUNE_WATCHDOG" /* off | entry | loops: cut hopeless trials short */
#define GPUTUNE_ENV_TRIALS   "GPUTUNE_TRIALS"   /* CSV: every trial of tune mode, appended */
#define GPUTUNE_ENV_SET      "GPUTUNE_SET"      /* "KEY=VALUE ...": settings over every policy file's */
#define GPUTUNE_ENV_GUARD    "GPUTUNE_GUARD"    /* on | off: check applied configurations on the app's launches */

/* Version of the per-binary cache file format. */
#define GPUTUNE_CACHE_FORMAT 1

#ifdef __cplusplus
extern "C" {
#endif

/* Returns GPUTUNE_VERSION. */
const char *gputune_version(void);

/* Returns the active mode as the string GPUTUNE_MODE accepts ("off", "run", ...). */
const char *gputune_mode(void);

#ifdef __cplusplus
}
#endif

#endif
