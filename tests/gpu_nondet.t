#!/bin/sh
# A kernel whose output differs from run to run, on the GPU: atomic_app's
# bin_sum adds floats into bins with atomicAdd.  Without a policy tolerance
# tune mode measures the original's own spread and tunes within it (or,
# where the runs happened to agree, tunes it bitwise); the application's
# own check passes in tune and run mode.
. "$(dirname "$0")/lib.sh"
need_gpu
export GPUTUNE_CACHE_DIR="$TMP/cache"
APP=$GT_BUILD/tests/helpers/atomic_app

run_as plain "$TMP/plain" "$APP" -o "$TMP/plain.bin"
check "atomic_app passes its own check without the shim" ran_ok "$TMP/plain"
run_as tune "$TMP/tune" "$APP" -o "$TMP/tune.bin"
check "tune mode: its own check passes" ran_ok "$TMP/tune"
check "  bin_sum is tuned, within its measured spread or bitwise" \
    grep -q "kernel bin_sum: launch .* tuned in " "$TMP/tune.log"
grep "bin_sum: its output differs\|bin_sum: launch .* tuned in" "$TMP/tune.log" | sed 's/^.* info: /# /'
check "no error or warning from the shim" sh -c "! grep -E ' (warn|error): ' '$TMP/tune.log'"
run_as run "$TMP/run" "$APP" -o "$TMP/run.bin"
check "run mode with the tuned cache: its own check passes" ran_ok "$TMP/run"

done_testing
