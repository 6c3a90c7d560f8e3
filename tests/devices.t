#!/bin/sh
# Cache entries tuned on another device, on the CPU against the stand-in
# driver (FAKECUDA_DEVICE and FAKECUDA_ARCH make it another device): one of
# the same architecture is used in run mode, said once per file it comes
# from and listed at exit, its guard's verdicts never written over the
# other device's; GPUTUNE_STRICT_DEVICE=1 leaves it out, tune mode tunes
# for this device instead, and another architecture's is never used.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
export LD_LIBRARY_PATH="$GT_BUILD/tests/fakecuda" GPUTUNE_CACHE_DIR="$TMP/cache" FAKECUDA_L1_TRIAL_MS=0.2 \
    FAKECUDA_L1_APP_MS=0.2 GPUTUNE_SET='strategy=random budget.trials=12'

# minirt in mode $1, log in $TMP/$2.log.
minirt() {
    GPUTUNE_MODE=$1 GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/$2.log" shim "$H/minirt"
}
applied() {
    detail_of "$TMP/$1.log" saxpy applied
}
warned() {
    grep -c 'configurations tuned on .* are used on this' "$TMP/$1.log"
}

is "$(minirt tune tune)" "minirt: done" "tuned on the Fake GPU"
cache=$(ls "$TMP"/cache/minirt-*.ini)
is "$(grep -c '^device = Fake GPU$' "$cache")" "$(grep -c '^\[entry ' "$cache")" "  its entries name it"
is "$(minirt run same)" "minirt: done" "run on it"
same=$(applied same)
check "  its configurations applied ($same launches of saxpy)" test "$same" -gt 0
is "$(warned same)" 0 "  nothing said of other devices"
cp "$cache" "$TMP/tuned.ini"

export FAKECUDA_DEVICE="Other GPU"
is "$(minirt run other)" "minirt: done" "another device of the same architecture"
check "  its configurations applied ($(applied other) launches of saxpy)" test "$(applied other)" -gt 0
check "  checked again by the guard: its verdict there says nothing of here" \
    grep -q "info: kernel scale: launch .* runs 'cache=l1 .*' from another device's cache entry (.*); checking it on the application's launches" \
    "$TMP/other.log"
is "$(warned other)" 1 "  said once"
check "  naming the file, both devices and the architecture" grep -q "warn: $cache: configurations tuned on Fake GPU are used on this Other GPU (both sm_90), where they may not be the fastest; GPUTUNE_STRICT_DEVICE=1 uses only this device's" "$TMP/other.log"
check "  each used entry listed at exit" grep -q "info:   kernel scale: launch grid=16,1,1 block=256,1,1 smem=0: 'cache=l1 .*' tuned on Fake GPU, from $cache; [1-9][0-9]* launches" "$TMP/other.log"
check "  the cache file unchanged: the guard's verdicts here are not the other device's" cmp "$cache" "$TMP/tuned.ini"

FAKECUDA_L1_APP_MS=0.3 minirt run slower >/dev/null
is "$(grep -c "kernel saxpy.* is not faster than the original on the application's own launches" "$TMP/slower.log")" 3 \
    "  where it is slower, the guard drops it here"
check "  and the other device's entries stay as they were" cmp "$cache" "$TMP/tuned.ini"

GPUTUNE_STRICT_DEVICE=1 minirt run strict >/dev/null
is "$(applied strict)" 0 "GPUTUNE_STRICT_DEVICE=1: not used"
is "$(warned strict)" 0 "  nothing said"
GPUTUNE_STRICT_DEVICE=yes minirt run badstrict >/dev/null
check "GPUTUNE_STRICT_DEVICE=yes: refused, naming what it accepts" \
    grep -q "warn: GPUTUNE_STRICT_DEVICE=yes is not one of 0, 1; using 0" "$TMP/badstrict.log"

minirt tune othertune >/dev/null
check "tune mode on the other device tunes it for itself" grep -q "kernel scale: launch .* tuned in " "$TMP/othertune.log"
is "$(warned othertune)" 0 "  using nothing of the other device's"
is "$(grep -c '^device = Other GPU$' "$cache")" "$(grep -c '^device = Fake GPU$' "$cache")" "  and writes its own entries beside them"
cp "$TMP/tuned.ini" "$cache"

FAKECUDA_ARCH=80 minirt run arch >/dev/null
is "$(applied arch)" 0 "another architecture: never used"
is "$(warned arch)" 0 "  nothing said"
FAKECUDA_DEVICE="Fake GPU" FAKECUDA_ARCH=80 minirt run samename >/dev/null
is "$(applied samename)" 0 "  not even under the same device name"

# Two files, each with entries the other lacks: said once per file.
sed 's/^device = Fake GPU$/device = Third GPU/' "$cache" >"$TMP/site.ini"
awk 'BEGIN { RS = ""; ORS = "\n\n" } !/\nkernel = scale\n/' "$TMP/tuned.ini" >"$cache"
check "  (the own file without scale's entry)" sh -c "! grep -q '^kernel = scale' '$cache'"
GPUTUNE_CACHE_PATH="$TMP/site.ini" minirt run two >/dev/null
is "$(warned two)" 2 "entries of two files from other devices: said once per file"
check "  the own file's, tuned on the Fake GPU" grep -q "warn: $cache: configurations tuned on Fake GPU are used" "$TMP/two.log"
check "  GPUTUNE_CACHE_PATH's, tuned on the Third GPU" \
    grep -q "warn: $TMP/site.ini: configurations tuned on Third GPU are used" "$TMP/two.log"
check "  scale's from the second, listed" grep -q "kernel scale: .* tuned on Third GPU, from $TMP/site.ini;" "$TMP/two.log"
check "  saxpy's from the first, before the second's" \
    sh -c "! grep -q 'kernel saxpy.* tuned on Third GPU' '$TMP/two.log' && grep -q 'kernel saxpy.* tuned on Fake GPU' '$TMP/two.log'"

done_testing
