/* gputune.h: the public face of libgputune.
 *
 * The version, the format version of the cache file, and the small optional
 * API an application may look up with dlsym(RTLD_DEFAULT, ...) to learn
 * whether it runs under the shim.  Nothing here is needed to use the shim:
 * LD_PRELOAD is enough; the environment variables are in README (and in
 * shim/env.c, their one table). */
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

#ifdef __cplusplus
}
#endif

#endif
