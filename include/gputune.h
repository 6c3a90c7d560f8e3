/* gputune.h: the public face of libgputune.
 *
 * The version, the format version of the cache file, and the small optional
 * API an application may look up with dlsym(RTLD_DEFAULT, ...) to learn
 * whether it runs under the shim, and to suspend it.  Nothing here is
 * needed to use the shim: LD_PRELOAD is enough; the environment variables
 * are in README (and in policy/env.c, their one table). */
#ifndef GPUTUNE_H
#define GPUTUNE_H

#define GPUTUNE_VERSION "0.1.0"

/* Version of the per-binary cache file format; files of format 1 (no
 * driver_version, no image_file) are read as well. */
#define GPUTUNE_CACHE_FORMAT 2

#ifdef __cplusplus
extern "C" {
#endif

/* Returns GPUTUNE_VERSION. */
const char *gputune_version(void);

/* Returns the active mode as the string GPUTUNE_MODE accepts ("off", "run", ...). */
const char *gputune_mode(void);

/* Suspends the shim (on != 0) or resumes it (on == 0), for the whole
 * process; returns the state before the call (1 suspended, 0 not).  While
 * suspended, every kernel launch runs exactly as the application asked, as
 * in GPUTUNE_MODE=off: nothing is tuned, applied, timed or judged, and the
 * exit table does not count it.  Loads and everything else are still
 * followed, so that resuming applies the configurations again at once.
 * It is for measuring the shim's effect inside one process, group by group
 * of the same work, free of the pace that differs from process to process.
 * Suspension governs launches, not what graphs hold: a graph launched while
 * suspended runs what its executable graph holds, which may be configurations
 * put into it at instantiation (or, while the shim judges its replays, a
 * tuned copy); a kernel node set or a graph instantiated while suspended
 * gets what it would otherwise.  In the modes that tune, a launch still
 * waits while another thread's tuning session runs. */
int gputune_suspend(int on);

#ifdef __cplusplus
}
#endif

#endif
