#!/bin/sh
# Constraints that read the launch, on the CPU against the stand-in driver:
# tune mode never tries a configuration one forbids for the launch it tunes;
# run mode never applies one, taking the fastest cached configuration the
# launch allows or the original, and says so once per signature; and
# GPUTUNE_FORCE runs the original where its configuration is forbidden.
# nvrtc_min launches axpy with the values of n it is given; the policy varies
# the carve-out under `carveout <= arg3` (n) and keys signatures on n >= 256
# alone, so the launches of one signature differ in what the constraint
# allows.  (The stand-in driver computes nothing, so every launch looks
# repeated and only launch-time knobs are tuned: see poison.c.)
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
FAKE="$GT_BUILD/tests/fakecuda"
export FAKECUDA_PARAMS=0:4,8:8,16:8,24:4 # axpy(float a, const float *x, float *y, int n)
export GPUTUNE_CACHE_DIR="$TMP/cache"
export GPUTUNE_POLICY="$TMP/policy.ini"
export GPUTUNE_GUARD=off # every launch runs its configuration: the counts below are the constraints' alone
cat >"$GPUTUNE_POLICY" <<'INI'
[defaults]
unnamed = skip

[kernel "axpy"]
carveout = default, 10, 20, 80
constraint = carveout <= arg3
signature = arg3 >= 256
INI
LOW="grid=4,1,1 block=128,1,1 smem=0 args=0"
HIGH="grid=4,1,1 block=128,1,1 smem=0 args=1"
BREAKS="breaks constraint 'carveout <= arg3' (line 6 of $GPUTUNE_POLICY)"

# nvrtc_min under the shim in mode $1, log in $TMP/$2.log, the values of n after.
axpy() {
    mode=$1 log=$2
    shift 2
    LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=$mode GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/$log.log" \
        shim "$H/nvrtc_min" "$@"
}

# The configurations a GPUTUNE_TRIALS file holds for a signature, sorted, on one line.
tried() {
    awk -F'"' -v s="$2" '$4 == s { print $6 }' "$1" | sort -u | tr '\n' ' ' | sed 's/ $//'
}

# The space a GPUTUNE_REPORT file gives for a signature.
space_of() {
    awk -F'"' -v s="$2" '$4 == s { split($5, f, ","); print f[9] }' "$1"
}

refusals() {
    grep -c "breaks constraint" "$1"
}

out=$(GPUTUNE_TRIALS="$TMP/trials.csv" GPUTUNE_REPORT="$TMP/report.csv" axpy tune tune 50 1000)
is "$out" "nvrtc_min: done" "tune mode: the application runs"
is "$(grep -c ' tuned in ' "$TMP/tune.log")" 2 "  both signatures are tuned"
is "$(tried "$TMP/trials.csv" "$LOW")" "carveout=10 carveout=20" "  at n = 50 only what carveout <= n allows is tried"
is "$(tried "$TMP/trials.csv" "$HIGH")" "carveout=10 carveout=20 carveout=80" "  at n = 1000 carveout=80 is tried too"
is "$(space_of "$TMP/report.csv" "$LOW") $(space_of "$TMP/report.csv" "$HIGH")" "3 4" \
    "  the report's space counts what each launch allows, the original included"

# The cache as if tuning had found carveout=20 for small n and carveout=10 for large n.
cache=$(ls "$TMP"/cache/nvrtc_min-*.ini)
awk -v low="$LOW" -v high="$HIGH" '
    /^signature = / { sig = substr($0, 13) }
    /^config = / && sig == low { $0 = "config = carveout=20" }
    /^time_us = / && sig == low { $0 = "time_us = 1.000" }
    /^config = / && sig == high { $0 = "config = carveout=10" }
    /^time_us = / && sig == high { $0 = "time_us = 2.000" }
    { print }' "$cache" >"$TMP/cache.ini" && cat "$TMP/cache.ini" >"$cache"
is "$(grep -c '^config = carveout=' "$cache")" 2 \
    "the cache file holds carveout=20 for n < 256 and carveout=10 for n >= 256"

is "$(axpy run run 50 15 5 1000)" "nvrtc_min: done" "run mode: the application runs"
is "$(detail_of "$TMP/run.log" axpy applied)" 3 \
    "  n = 50 and 1000 run their cached configurations, n = 15 the fastest one it allows, n = 5 the original"
check "  the refusal names the configuration, the constraint and what runs instead" grep -qF \
    " info: kernel axpy: launch $LOW: configuration 'carveout=20' (the cache) $BREAKS; running 'carveout=10' instead" \
    "$TMP/run.log"
is "$(refusals "$TMP/run.log")" 1 "  said once for the signature"
axpy run original 5 >/dev/null
check "a launch no cached configuration fits runs the original, and says so" grep -qF \
    " info: kernel axpy: launch $LOW: configuration 'carveout=20' (the cache) $BREAKS; running the original" \
    "$TMP/original.log"
is "$(detail_of "$TMP/original.log" axpy applied)" 0 "  nothing is applied"

export GPUTUNE_CACHE_DIR="$TMP/force"
is "$(GPUTUNE_FORCE='axpy carveout=80' axpy run force 1000 50 15 1000)" "nvrtc_min: done" \
    "GPUTUNE_FORCE: the application runs"
is "$(detail_of "$TMP/force.log" axpy applied)" 2 "  the forced configuration runs where the constraint allows it"
check "  elsewhere the original runs, with a warning" grep -qF \
    " warn: kernel axpy: launch $LOW: configuration 'carveout=80' (GPUTUNE_FORCE) $BREAKS; running the original" \
    "$TMP/force.log"
is "$(refusals "$TMP/force.log")" 1 "  once for the signature"
GPUTUNE_FORCE='axpy carveout=20' axpy run noargs >/dev/null
check "a constraint that cannot be evaluated at a launch forbids the configuration, saying why" grep -qF \
    "$BREAKS, which cannot be evaluated: arg[3] is not a scalar integer argument; running the original" \
    "$TMP/noargs.log"
is "$(detail_of "$TMP/noargs.log" axpy applied)" 0 "  and the original runs"

done_testing
