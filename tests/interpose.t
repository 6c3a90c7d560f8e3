#!/bin/sh
# The interposition, end to end on the CPU: tests/helpers/minirt reaches a
# stand-in driver (tests/helpers/fakecuda.c) the way the CUDA runtime reaches
# the real one, and the shim must see every launch while changing nothing.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
FAKE="$GT_BUILD/tests/fakecuda"

# minirt with the stand-in driver; $1 = log file, the rest = minirt's arguments.
run_minirt() {
    log=$1
    shift
    LD_LIBRARY_PATH="$FAKE" GPUTUNE_LOG_FILE="$log" GPUTUNE_LOG=debug shim "$H/minirt" "$@"
}

plain=$(LD_LIBRARY_PATH="$FAKE" "$H/minirt" --threads 4)
shimmed=$(run_minirt "$TMP/run.log" --threads 4)
is "$shimmed" "$plain" "the application's output is unchanged"
is "$(table_field "$TMP/run.log" 1 "saxpy(")" 4120 "saxpy launches counted across 4 threads"
is "$(table_field "$TMP/run.log" 2 "saxpy(")" 4 "saxpy's distinct geometries"
run_minirt "$TMP/spread.log" --spread 300 3 >/dev/null
is "$(table_field "$TMP/spread.log" 1 "saxpy(")" 900 "saxpy at 300 geometries in turn, three rounds: every launch counted"
is "$(table_field "$TMP/spread.log" 2 "saxpy(")" 300 "  and each geometry once, however many the kernel has"
is "$(table_field "$TMP/run.log" 1 "scale")" 10 "scale: plain, cooperative and captured launches"
is "$(table_field "$TMP/run.log" 2 "scale")" 1 "scale's one geometry"
is "$(table_field "$TMP/run.log" 1 "void fill<float>(")" 6 "template kernel, through CUfunction and cuLaunchKernelEx"
is "$(table_field "$TMP/run.log" 2 "void fill<float>(")" 2 "fill's geometries"
is "$(table_field "$TMP/run.log" 3 "saxpy(")" runtime:fatbin "origin of the runtime's fatbin"
is "$(table_field "$TMP/run.log" 4 "saxpy(")" compute_75 "PTX target found in the fatbin"
is "$(detail_of "$TMP/run.log" "saxpy(" CUkernel)" 4120 "launches through CUkernel handles"
is "$(detail_of "$TMP/run.log" "void fill<float>(" CUfunction)" 5 "launches through the CUfunction of a CUkernel"
is "$(detail_of "$TMP/run.log" "scale" captured)" 2 "launches under stream capture"
is "$(detail_of "$TMP/run.log" "scale" cooperative)" 1 "cooperative launches"
is "$(detail_of "$TMP/run.log" "saxpy(" params)" 4 "parameter layout from the driver"
check "allocations tracked, frees seen" grep -q "memory: 2 allocations tracked at exit, peak 5.0 MiB" "$TMP/run.log"
check "unhooked entry points are not replaced" grep -q "cuGetProcAddress: 37 lookups, 29 replaced" "$TMP/run.log"

run_minirt "$TMP/ptsz.log" --ptsz >/dev/null
is "$(detail_of "$TMP/ptsz.log" "saxpy(" cuLaunchKernel_ptsz)" 120 "per-thread-stream launches seen as _ptsz"
is "$(detail_of "$TMP/ptsz.log" "saxpy(" cuLaunchKernel)" 0 "and not as the legacy-stream entry point"

out=$(LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=off GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/off.log" shim "$H/minirt")
is "$out" "minirt: done" "off mode runs the application"
check "off mode reports nothing" sh -c "! grep -q launches '$TMP/off.log'"

# Environment: unknown values give one warning naming the variable, then the default.
LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=fast shim "$H/minirt" >/dev/null 2>"$TMP/mode.err"
is "$(grep -c 'GPUTUNE_MODE=fast is not one of off, run, tune, retune, online; using run' "$TMP/mode.err")" 1 \
    "unknown GPUTUNE_MODE: one warning"
LD_LIBRARY_PATH="$FAKE" GPUTUNE_LOG=loud shim "$H/minirt" >/dev/null 2>"$TMP/log.err"
is "$(grep -c 'GPUTUNE_LOG=loud is not one of error, warn, info, debug; using warn' "$TMP/log.err")" 1 \
    "unknown GPUTUNE_LOG: one warning"
LD_LIBRARY_PATH="$FAKE" GPUTUNE_LOG=info GPUTUNE_LOG_FILE=/nonexistent/dir/x.log shim "$H/minirt" >/dev/null 2>"$TMP/file.err"
check "unwritable GPUTUNE_LOG_FILE: warning, then stderr" \
    sh -c "grep -q \"cannot open GPUTUNE_LOG_FILE '/nonexistent/dir/x.log'\" '$TMP/file.err' && grep -q launches '$TMP/file.err'"
LD_LIBRARY_PATH="$FAKE" GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/pid-%p.log" shim "$H/minirt" >/dev/null
check "%p in GPUTUNE_LOG_FILE becomes the pid" sh -c "ls '$TMP' | grep -q '^pid-[0-9][0-9]*\.log$'"

# Failures of the driver reach the application unchanged.
for fn in cuLibraryLoadData cuLibraryGetKernel cuMemAlloc_v2 cuLaunchKernel cuStreamBeginCapture_v2; do
    plain=$(LD_LIBRARY_PATH="$FAKE" FAKECUDA_FAIL=$fn "$H/minirt"; echo "rc=$?")
    shimmed=$(LD_LIBRARY_PATH="$FAKE" FAKECUDA_FAIL=$fn GPUTUNE_LOG=info shim "$H/minirt" 2>/dev/null; echo "rc=$?")
    is "$shimmed" "$plain" "a failing $fn reaches the application unchanged"
done

# No driver at all (asked under a name no machine has): the shim stays inert.
plain=$("$H/minirt" --driver libcuda-absent.so.1 2>&1; echo "rc=$?")
shimmed=$(GPUTUNE_LOG=debug shim "$H/minirt" --driver libcuda-absent.so.1 2>/dev/null; echo "rc=$?")
is "$shimmed" "$plain" "without a driver the application sees the same error"

# Probing for CUDA with dlsym(RTLD_DEFAULT) finds what it would find without the shim.
is "$(shim "$H/minirt" --probe)" "cuInit absent
cuLaunchKernel absent
nvrtcGetPTX absent
gputune_version found" "the shim's exports do not fake a driver or NVRTC"

# RTLD_NEXT keeps meaning "after the caller" for libraries preloaded after the shim.
is "$(LD_PRELOAD="$GT_PRELOAD $H/libchain.so" "$H/chain_main")" "value 11 next 11" \
    "dlsym(RTLD_NEXT) from a wrapper and from the program"

# A dlsym wrapper preloaded before the shim: one that finds "the real dlsym"
# with dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34") still leads to the shim's;
# one that takes libc's own passes it by, and the shim says so.  (Under ASan
# that wrapper runs while the sanitizer starts, before the environment is
# read, so the warning may go to stderr.)
wrap() {
    LD_LIBRARY_PATH="$FAKE" GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/$1.log" \
        LD_PRELOAD="$GT_SANITIZER_PRELOAD $H/lib$1.so $GT_BUILD/libgputune.so" "$H/minirt" 2>"$TMP/$1.err"
}
is "$(wrap dlsymwrap)" "minirt: done" "a dlsym wrapper before the shim: the application runs"
is "$(table_field "$TMP/dlsymwrap.log" 1 "saxpy(")" 120 "  and the shim sees its launches"
is "$(wrap dlsymlibc)" "minirt: done" "a dlsym wrapper that passes the shim by: the application runs"
is "$(cat "$TMP/dlsymlibc.log" "$TMP/dlsymlibc.err" 2>/dev/null | grep -c "warn: libcuda.so.1 was loaded, but no \
call of the application reached the shim: the dlsym of $H/libdlsymlibc.so comes before libgputune.so's")" 1 \
    "  one warning names the wrapper"

# Loaded by dlopen rather than LD_PRELOAD (a program that calls gputune.h's
# functions through ctypes, say), the library loads: its thread-locals need
# no static TLS that a late load could not get.
is "$(LD_LIBRARY_PATH="$FAKE" LD_PRELOAD="$GT_SANITIZER_PRELOAD" "$H/minirt" --load "$GT_BUILD/libgputune.so")" \
    "minirt: done" "the library loads by dlopen too"

done_testing
