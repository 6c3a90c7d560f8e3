#!/bin/sh
# Originals whose output differs from run to run (float atomics), on the CPU
# against the stand-in driver: FAKECUDA_NOISE makes copy compute
# y = x (1 +- E), the sign turning at every launch, and FAKECUDA_COMPARE runs
# the shim's comparisons on the host.  Without a policy tolerance the
# session measures the original's own spread over five runs and compares
# candidates within four times it; beyond 1e-3 the launch is not tuned; a
# policy's tolerance, where there is one, is used as it is.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
export LD_LIBRARY_PATH="$GT_BUILD/tests/fakecuda" FAKECUDA_COMPARE=1 GPUTUNE_WATCHDOG=off FAKECUDA_MODULE_MS=0.2
cat >"$TMP/auto.ini" <<'INI'
[kernel "copy"]
maxrreg = default, 32
INI
cat >"$TMP/policy.ini" <<'INI'
[kernel "copy"]
maxrreg = default, 32
verify = tolerance
verify.abs = 0.01
verify.rel = 0.01
INI

# minirt --copies 20 with noise $1 and policy $2, tuned, logged in $TMP/$3.log.
copies() {
    out=$(FAKECUDA_NOISE=$1 GPUTUNE_POLICY="$TMP/$2.ini" GPUTUNE_MODE=tune GPUTUNE_LOG=info \
        GPUTUNE_LOG_FILE="$TMP/$3.log" GPUTUNE_CACHE_DIR="$TMP/cache$3" shim "$H/minirt" --copies 20)
    [ "$out" = "minirt: done" ] || echo "minirt: $out"
}

copies 1e-6 auto small
check "an original that differs by 2e-6 of its size: its spread measured" grep -q \
    "kernel copy: its output differs from run to run, within 1e-05 over 5 runs; candidates are compared within 4e-05" \
    "$TMP/small.log"
check "  and the launch tuned, the candidate within it" \
    grep -q "kernel copy: launch .* tuned in .* 0 computed another result.*: maxrreg=32 " "$TMP/small.log"

copies 1e-2 auto large
check "an original that differs by 2% of its size is not tuned, and the message says how to tune it" grep -q \
    "kernel copy: launch .* not tuned: its output differs from run to run by more than 0.001 (2048 elements of buffer 1); set verify = tolerance" \
    "$TMP/large.log"
is "$(ls "$TMP"/cachelarge/*.ini 2>/dev/null | xargs -r grep -c '^config = ')" "" "  nothing is written for it"

copies 1e-2 policy given
check "a policy's tolerance is used as it is" \
    grep -q "differs from run to run; candidates are compared within the policy's tolerance" "$TMP/given.log"
check "  no spread is measured" sh -c "! grep -q 'over 5 runs' '$TMP/given.log'"

copies 0 auto steady
check "a deterministic original: no spread measured" sh -c "! grep -q 'differs from run to run' '$TMP/steady.log'"

done_testing
