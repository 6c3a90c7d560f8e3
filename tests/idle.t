#!/bin/sh
# Run mode with nothing to apply, on the CPU against the stand-in driver:
# with no GPUTUNE_FORCE and no cache entry that runs anything but the
# original, the application gets the driver's own entry points (minirt
# --where says whose cuLaunchKernel it holds) and computes what it does
# without the shim; anything that may apply, tune mode, or a log at info
# (whose exit table counts every launch) keeps the shim's.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
export LD_LIBRARY_PATH="$GT_BUILD/tests/fakecuda" GPUTUNE_POLICY="$TMP/policy.ini" FAKECUDA_L1_TRIAL_MS=0.2 \
    FAKECUDA_L1_APP_MS=0.2 GPUTUNE_CACHE_DIR="$TMP/cache"
cat >"$GPUTUNE_POLICY" <<'INI'
[kernel "*saxpy*"]
cache = default, l1
INI
plain=$("$H/minirt")

# Whose cuLaunchKernel minirt holds in mode $1 (its other lines, if they
# are not what it prints without the shim, follow), logged in $TMP/$2.log.
where() {
    out=$(GPUTUNE_MODE=$1 GPUTUNE_LOG_FILE="$TMP/$2.log" shim "$H/minirt" --where)
    echo "$out" | sed -n 's/^minirt: cuLaunchKernel from //p'
    [ "$(echo "$out" | grep -v 'cuLaunchKernel from')" = "$plain" ] || echo "$out"
}
# The cache file tune mode wrote (saxpy's entries and those of minirt's
# other kernels), edited by sed script $1.
edit_cache() {
    f=$(ls "$TMP"/cache/*.ini)
    sed -i -e "$1" "$f"
}

is "$(where run empty)" "libcuda.so.1" "run mode, no cache: the driver's own launch, and the same output"
check "  nothing said below info" sh -c "! test -s '$TMP/empty.log'"
is "$(GPUTUNE_LOG=info where run empty-info)" "libgputune.so" "  at info the shim watches every launch for its table"
check "  and says why it applies nothing" \
    grep -q 'run mode: the cache holds nothing for this program; below info the shim leaves every launch to the driver' \
    "$TMP/empty-info.log"
is "$(GPUTUNE_FORCE='*saxpy* cache=l1' where run forced)" "libgputune.so" "GPUTUNE_FORCE: the shim's"
is "$(where tune tune)" "libgputune.so" "tune mode: the shim's"
check "  which kept cache=l1 for saxpy" grep -q '^config = cache=l1$' "$TMP"/cache/*.ini

is "$(where run tuned)" "libgputune.so" "run mode with an entry that applies: the shim's"
edit_cache 's/^config = .*/config = BLOCK=128/'
is "$(where run macro)" "libgputune.so" "  an entry naming a macro may apply: the shim's"
edit_cache 's/^config = .*/config = cache=default carveout=default/'
is "$(where run original)" "libcuda.so.1" "every entry the original: the driver's"
check "  no warning" sh -c "! grep -q ' warn: ' '$TMP/original.log'"
GPUTUNE_LOG=info where run original-info >/dev/null
check "  at info it says so" grep -q 'run mode: no entry of the cache applies (each keeps the original, or the guard dropped it)' \
    "$TMP/original-info.log"
edit_cache 's/^config = .*/config = cache=l1/; /^guard/d; /^\[entry/a guard = dropped 0.900'
is "$(where run dropped)" "libcuda.so.1" "every entry dropped by the guard: the driver's"
edit_cache 's/^guard = dropped 0.900$/guard = kept 1.100/'
is "$(where run kept)" "libgputune.so" "  one the guard kept: the shim's"
is "$(where off off)" "libcuda.so.1" "off mode: the driver's"

done_testing
