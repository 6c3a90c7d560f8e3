#!/bin/sh
# CUDA 12 and 13 on the CPU: which NVRTC, nvJitLink and CUPTI the shim
# opens, with stand-ins of each version (tests/helpers/fake_lib*.c, each
# under its real soname) on LD_LIBRARY_PATH and the application's own
# loaded first; the events of a driver before CUDA 12.8; what a driver too
# old lacks, said once; and cache entries keyed by the driver's own version.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
FAKE="$GT_BUILD/tests/fakecuda"
F="$GT_BUILD/tests/fakelibs"
export GPUTUNE_CACHE_DIR="$TMP/cache"

# minirt under the shim, tuning and forced to rebuild scale (nvJitLink) with
# the libraries on $LIBS; debug log in $TMP/$1.log, minirt's arguments after.
rebuild() {
    log=$1
    shift
    rm -rf "$TMP/cache"
    LD_LIBRARY_PATH="$FAKE:$LIBS" GPUTUNE_MODE=tune GPUTUNE_FORCE="scale maxrreg=32" GPUTUNE_LOG=debug \
        GPUTUNE_LOG_FILE="$TMP/$log.log" shim "$H/minirt" "$@" >"$TMP/$log.out" 2>&1
}

# The compilers the log names: "NVRTC 12.2: DIR nvJitLink 12.2: DIR _12_2", DIR the
# stand-in's version directory, "(own)" after one the application had loaded.
compilers() {
    sed -n 's/.* debug: NVRTC \([0-9.]*\): .*\/\([0-9]*\)\/libnvrtc\.so\.[0-9]*\( (the application.s own)\)\{0,1\}; nvJitLink \([0-9.]*\): .*\/\([0-9]*\)\/libnvJitLink\.so\.[0-9]*, entry points __nvJitLink\*\(_[0-9_]*\)$/NVRTC \1: \2\3 nvJitLink \4: \5 \6/p' \
        "$TMP/$1.log" | sed 's/ (the application.s own)/ (own)/'
}

cupti() {
    sed -n 's/.* debug: CUPTI \([0-9]*\): .*\/\([0-9]*\)\/libcupti.so.[0-9]*$/CUPTI \1: \2/p' "$TMP/$1.log"
}

LIBS="$F/12"
rebuild v12
is "$(cat "$TMP/v12.out")" "minirt: done" "only CUDA 12 on LD_LIBRARY_PATH: the application runs"
is "$(compilers v12)" "NVRTC 12.2: 12 nvJitLink 12.2: 12 _12_2" \
    "  CUDA 12's compilers, nvJitLink's newest entry points, its version told by their names"
check "  those very entry points are called" \
    grep -q "kernel scale: cannot apply .*: building from its compute_75 PTX failed: stand-in nvJitLink: the entry points of 12.2 link nothing" "$TMP/v12.log"
is "$(cupti v12)" "CUPTI 12: 12" "  and CUDA 12's CUPTI"
check "  which the shim does without, said once" \
    test "$(grep -c 'info: CUPTI is held by the application or a profiler' "$TMP/v12.log")" = 1

LIBS="$F/13"
rebuild v13
is "$(compilers v13)" "NVRTC 13.0: 13 nvJitLink 13.0: 13 _13_0" "only CUDA 13: its compilers, by their versioned names"
is "$(cupti v13)" "CUPTI 13: 13" "  and its CUPTI"

LIBS="$F/12:$F/13"
rebuild both
is "$(compilers both)" "NVRTC 13.0: 13 nvJitLink 13.0: 13 _13_0" "both on LD_LIBRARY_PATH: the newest"
is "$(cupti both)" "CUPTI 13: 13" "  for CUPTI too"

rebuild app12 --load "$F/12/libnvrtc.so.12" --load "$F/13/libnvrtc.so.13"
is "$(cat "$TMP/app12.out")" "minirt: done" "the application loads NVRTC 12, then 13: it runs"
is "$(compilers app12)" "NVRTC 12.2: 12 (own) nvJitLink 13.0: 13 _13_0" \
    "  the NVRTC it loaded first is used, with the newest nvJitLink"

FAKECUDA_VERSION=12080 rebuild driver12
is "$(compilers driver12)" "NVRTC 12.2: 12 nvJitLink 12.2: 12 _12_2" "a CUDA 12.8 driver: nothing of CUDA 13"
is "$(cupti driver12)" "CUPTI 12: 12" "  nor CUPTI 13"
check "  the driver's version is said" grep -q "debug: driver opened: CUDA 12.8, driver " "$TMP/driver12.log"

FAKECUDA_VERSION=12080 rebuild driver12app --load "$F/13/libnvrtc.so.13"
is "$(compilers driver12app)" "NVRTC 12.2: 12 nvJitLink 12.2: 12 _12_2" \
    "  even when the application loaded NVRTC 13, which that driver cannot serve"

FAKECUDA_VERSION=11080 rebuild driver11
is "$(cat "$TMP/driver11.out")" "minirt: done" "a CUDA 11 driver: the application runs"
is "$(grep -c 'info: NVRTC not available: no libnvrtc can serve: the driver runs CUDA 11' "$TMP/driver11.log")" 1 \
    "  no compilers, said once"
is "$(grep -c 'info: CUPTI is not available (no libcupti can serve: the driver runs CUDA 11' "$TMP/driver11.log")" 1 \
    "  no CUPTI, said once"

# minirt tuning under the stand-in driver, or the copy of it in $DRIVER; debug log in $TMP/$1.log.
tune() {
    LD_LIBRARY_PATH="${DRIVER:-$FAKE}" GPUTUNE_MODE=tune GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/$1.log" \
        shim "$H/minirt" >"$TMP/$1.out" 2>&1
}
# Events: cuEventElapsedTime_v2 came with CUDA 12.8.
rm -rf "$TMP/cache"
FAKECUDA_HIDE=cuEventElapsedTime_v2 tune noelapsed2
is "$(cat "$TMP/noelapsed2.out")" "minirt: done" "a driver without cuEventElapsedTime_v2: the application runs"
is "$(grep -c 'info: the driver has no cuEventElapsedTime_v2; the shim calls cuEventElapsedTime in its place' "$TMP/noelapsed2.log")" 1 \
    "  said once"
is "$(grep -c ' tuned in .* the original 250.00 us' "$TMP/noelapsed2.log")" 6 \
    "  every signature is tuned, timed with cuEventElapsedTime"
rm -rf "$TMP/cache"
FAKECUDA_HIDE=cuEventElapsedTime_v2,cuEventElapsedTime tune noelapsed
is "$(cat "$TMP/noelapsed.out")" "minirt: done" "a driver with neither: the application runs"
is "$(grep -c 'info: the driver has no cuEventElapsedTime_v2: kernels are watched but not tuned' "$TMP/noelapsed.log")" 1 \
    "  said once"
is "$(grep -c ' tuned in ' "$TMP/noelapsed.log")" 0 "  nothing is tuned"

# The driver's own version, from the file libcuda.so.1 links to.
for v in 555.42.06 555.58.02; do
    mkdir -p "$TMP/driver-$v"
    cp "$FAKE/libcuda.so.1" "$TMP/driver-$v/libcuda.so.$v"
    ln -s "libcuda.so.$v" "$TMP/driver-$v/libcuda.so.1"
done
rm -rf "$TMP/cache"
DRIVER="$TMP/driver-555.42.06" tune first
check "the driver's version is read from its file name" \
    grep -q "debug: driver opened: CUDA 13.0, driver 555.42.06$" "$TMP/first.log"
cache=$(ls "$TMP"/cache/minirt-*.ini)
is "$(grep -c '^driver_version = 555.42.06$' "$cache")" 6 "  and keys every entry tuned under it"
cp "$cache" "$TMP/first.ini"
DRIVER="$TMP/driver-555.42.06" tune same
is "$(grep -c ' tuned in ' "$TMP/same.log")" 0 "the same driver again: nothing to tune"
DRIVER="$TMP/driver-555.58.02" tune update
is "$(grep -c ' tuned in ' "$TMP/update.log")" 6 "a driver update under the same CUDA version: tuned anew"
is "$(grep -c '^driver_version = ' "$cache")" 12 "  its entries beside the other driver's"

# A file of format 1: no driver_version, matched by the CUDA version alone.
sed 's/^format = .*/format = 1/; /^driver_version = /d' "$TMP/first.ini" >"$cache"
DRIVER="$TMP/driver-555.58.02" tune old
is "$(grep -c ' tuned in ' "$TMP/old.log")" 0 "a file of format 1: its entries serve any driver of their CUDA version"
check "  read whole, without complaint" grep -q "debug: cache file .*/minirt-[0-9a-f]*\.ini: 6 entries$" "$TMP/old.log"

done_testing
