#!/bin/sh
# A configuration is kept as text in 512 bytes (a cache entry's, a choice's):
# on the CPU against the stand-in driver, a policy whose space could format
# a longer configuration is refused with one message per kernel, the
# application runs as it would alone, and nothing cut short reaches the
# cache file.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
FAKE="$GT_BUILD/tests/fakecuda"
export GPUTUNE_CACHE_DIR="$TMP/cache"
export GPUTUNE_POLICY="$TMP/policy.ini"
{
    echo '[kernel "saxpy*"]'
    for i in 1 2 3 4 5 6 7 8 9; do
        echo "param A_DIMENSION_NAME_LONG_ENOUGH_THAT_NINE_OF_THEM_PASS_THE_LIMIT_$i = 1, 16"
    done
    echo 'cache = none, l1'
} >"$GPUTUNE_POLICY"

plain=$(LD_LIBRARY_PATH="$FAKE" "$H/minirt")
out=$(LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=tune GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/tune.log" shim "$H/minirt")
is "$out" "$plain" "tune mode with a space too long as text: the application's output is unchanged"
is "$(grep -c 'takes up to 613 characters as text, more than the 511 kept' "$TMP/tune.log")" 1 "  refused, said once"
check "  saxpy is not tuned" sh -c "! grep -q 'kernel saxpy.* tuned in ' '$TMP/tune.log'"
check "  nothing of it reaches the cache file" \
    sh -c "! grep -qs 'A_DIMENSION_NAME' '$TMP'/cache/minirt-*.ini"
check "  the other kernels are tuned as before" grep -q ' tuned in ' "$TMP/tune.log"

done_testing
