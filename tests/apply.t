#!/bin/sh
# Applying a configuration at launch (GPUTUNE_FORCE), on the CPU: variants
# are really compiled (NVRTC and nvJitLink need no GPU) and handed to the
# stand-in driver, which runs nothing.  What is checked is the shim's side:
# which variant is built from what, that launches go to it, and that every
# way of failing says why once and leaves the application its original.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
FAKE="$GT_BUILD/tests/fakecuda"
AXPY=0:4,8:8,16:8,24:4 # axpy(float, const float *, float *, int) as the driver lays it out
export GPUTUNE_CACHE_DIR="$TMP/cache"

# nvrtc_min under the shim with GPUTUNE_FORCE=$1; log in $TMP/$2.log.
forced() {
    LD_LIBRARY_PATH="$FAKE" GPUTUNE_FORCE="$1" GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/$2.log" \
        shim "$H/nvrtc_min" >"$TMP/$2.out" 2>&1
}

export FAKECUDA_PARAMS=$AXPY
forced "axpy maxrreg=64 dlcm=cg" rebuilt
is "$(cat "$TMP/rebuilt.out")" "nvrtc_min: done" "the application runs"
is "$(detail_of "$TMP/rebuilt.log" axpy applied)" 3 "its launches of axpy ran the variant"
is "$(detail_of "$TMP/rebuilt.log" touch applied)" 0 "other kernels ran as built"
check "rebuilt from the application's own NVRTC program" \
    grep -q "kernel axpy: variant built from the application's NVRTC program axpy.cu (" "$TMP/rebuilt.log"
forced "axpy maxrreg=64 dlcm=cg" again
check "a second run takes it from the store" grep -q "variant built from .* out of the store" "$TMP/again.log"

forced "axpy cache=l1 carveout=50" direct
is "$(detail_of "$TMP/direct.log" axpy applied)" 3 "launch-time knobs only: applied at every launch"
check "on the application's own function: nothing compiled, no module loaded" \
    sh -c "! grep -qE 'variant built|its variant has its own copies' '$TMP/direct.log'"

forced "axpy maxrreg=33" misfit
is "$(grep -c "configuration 'maxrreg=33' does not fit its space: maxrreg=33 is not one of its values" "$TMP/misfit.log")" 1 \
    "a configuration outside the space: one warning"
is "$(detail_of "$TMP/misfit.log" axpy applied)" 0 "and the original runs"

unset FAKECUDA_PARAMS
forced "axpy maxrreg=64" layout
is "$(grep -c "cannot apply '.*maxrreg=64.*': parameter 1 is 8 bytes at 8 in the variant, 4 bytes at 4 in the original" "$TMP/layout.log")" 1 \
    "a variant with another parameter layout is refused once"
is "$(detail_of "$TMP/layout.log" axpy applied)" 0 "and the original runs"
is "$(cat "$TMP/layout.out")" "nvrtc_min: done" "the application never notices"
export FAKECUDA_PARAMS=$AXPY

# A policy naming the kernel's source, with a macro to vary.
cat >"$TMP/axpy.cu" <<'CU'
extern "C" __global__ void axpy(float a, const float *x, float *y, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += FACTOR * a * x[i]; }
CU
cat >"$TMP/policy.ini" <<'INI'
[kernel "axpy"]
source = axpy.cu
param FACTOR = 3, 4
INI
GPUTUNE_POLICY="$TMP/policy.ini" forced "axpy FACTOR=4" source
is "$(detail_of "$TMP/source.log" axpy applied)" 3 "a policy's source with a macro value"
check "built from the policy's source" grep -q "variant built from source $TMP/axpy.cu" "$TMP/source.log"

printf 'extern "C" __global__ void axpy(float a, const float *x, float *y, int n) { syntax error }\n' >"$TMP/axpy.cu"
GPUTUNE_POLICY="$TMP/policy.ini" forced "axpy FACTOR=4" broken
check "a compile error is reported with the compiler's message" \
    grep -q "cannot apply 'FACTOR=4': building from source $TMP/axpy.cu failed: .*error" "$TMP/broken.log"
is "$(detail_of "$TMP/broken.log" axpy applied)" 0 "and the original runs"

printf '[kernel "axpy"]\nparam FACTOR = 3, 4\nbogus = 1\n' >"$TMP/bad.ini"
GPUTUNE_POLICY="$TMP/bad.ini" forced "axpy FACTOR=3" badpolicy
check "a policy error is logged with its position" grep -q "bad.ini:3:1: " "$TMP/badpolicy.log"
check "and that kernel is left alone" grep -q "kernel axpy: its policy section has errors; running the original" \
    "$TMP/badpolicy.log"

mkdir -p "$TMP/open"
chmod 0777 "$TMP/open"
GPUTUNE_CACHE_DIR="$TMP/open" forced "axpy maxrreg=64" openstore
check "a cache directory others can write is refused" grep -q "writable by other users; not using it" "$TMP/openstore.log"
is "$(detail_of "$TMP/openstore.log" axpy applied)" 3 "variants are still built, only not stored"

# A runtime fatbin whose PTX does not declare the parameters the driver reports.
LD_LIBRARY_PATH="$FAKE" GPUTUNE_FORCE="scale maxrreg=32" GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/minirt.log" \
    shim "$H/minirt" >"$TMP/minirt.out"
is "$(cat "$TMP/minirt.out")" "minirt: done" "the runtime-style application runs"
check "its kernel is rebuilt from the fatbin's PTX, then refused for its layout" \
    grep -q "kernel scale: cannot apply '.*maxrreg=32.*': the variant takes 0 parameters, the original 4" "$TMP/minirt.log"

# What the launch path cost, at exit at info: saxpy at 140 geometries in
# turn, in tune mode's steady state (a first run tuned them), works out each
# signature once, at its first launch, and takes what it remembered after:
# a thread remembers more geometries than a framework's step cycles through.
spread() {
    LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=tune GPUTUNE_CACHE_DIR="$TMP/spread" GPUTUNE_LOG=$1 \
        GPUTUNE_LOG_FILE="$TMP/spread.$1.log" shim "$H/minirt" --spread 140 50 >/dev/null 2>&1
}
spread warn
spread info
check "the launch path's line: 7000 launches, 140 signatures worked out, each the first time" grep -q \
    "launch path: of 7000 launches of kernels with a plan, 140 worked out their signature under the plan's lock (140 met first by their thread or pushed out of what it remembers, 0 after their plan changed, 0 in tuning turns or before their signature was decided, 0 of plans that read the launch's arguments)" \
    "$TMP/spread.info.log"
spread warn
check "  said at info only" sh -c "! grep -q 'launch path:' '$TMP/spread.warn.log'"
LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=online GPUTUNE_CACHE_DIR="$TMP/spread.online" GPUTUNE_LOG=info \
    GPUTUNE_LOG_FILE="$TMP/spread.online.log" shim "$H/minirt" --spread 140 50 >/dev/null 2>&1
check "  online mode from an empty cache: launches in tuning turns or before their signature was decided" \
    grep -Eq "launch path: of 7000 launches .*, [1-9][0-9]* in tuning turns or before their signature was decided" \
    "$TMP/spread.online.log"

done_testing
