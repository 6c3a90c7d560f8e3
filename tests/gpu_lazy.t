#!/bin/sh
# A repeated launch on the GPU.  lazy_app launches lazy_affine twice on the
# same buffers; lazy.ini makes the second launch (iter = 1) a signature of
# its own, tuned while out already holds what it computes, and gives the
# kernel a variant (SKIP=1) that returns at once.  Tune mode must find that
# variant wrong at both launches, at the second because out, which the
# kernel only writes, is poisoned before each trial; the cache must not
# keep it, and the output must be bitwise that of the run without the shim.
. "$(dirname "$0")/lib.sh"
need_gpu
export GPUTUNE_POLICY="$GT_SRC/tests/fixtures/lazy.ini"
export GPUTUNE_CACHE_DIR="$TMP/cache"
APP=$GT_BUILD/tests/helpers/lazy_app

run_as plain "$TMP/plain" "$APP" -o "$TMP/plain.bin"
check "lazy_app passes its own check without the shim" ran_ok "$TMP/plain"

GT_LOG_LEVEL=debug run_as tune "$TMP/tune" "$APP" -o "$TMP/tune.bin"
log=$TMP/tune.log
check "tune mode: its own check passes" ran_ok "$TMP/tune"
check "  output bitwise identical to the run without the shim" cmp "$TMP/plain.bin" "$TMP/tune.bin"
check "the second launch finds out holding the result and poisons it for trials" grep -q "kernel lazy_affine: launch \
.* args=1: its outputs already hold what it computes (the application repeats this launch); trials start from the 1 \
buffer it only writes" "$log"
check "  the first does not" sh -c "! grep -q 'kernel lazy_affine: launch .* args=0: its outputs already hold' '$log'"
for a in 0 1; do
    check "launch args=$a: SKIP=1 computes another result, the original wins" \
        grep -q "kernel lazy_affine: launch .* args=$a tuned in .* 1 computed another result, .*: the original" "$log"
done
is "$(grep -c "kernel lazy_affine: 'SKIP=1' computes another result: buffer" "$log")" 2 "  said once for each launch"
echo "# $(grep "args=1 tuned in" "$log" | sed 's/^.* info: kernel /kernel /')"
cache=$(ls "$TMP"/cache/lazy_app-*.ini)
is "$(grep -c '^\[entry ' "$cache")" 2 "the cache holds both signatures"
check "  neither with SKIP=1" sh -c "! grep -q 'SKIP=1' '$cache'"
check "no error or warning from the shim" sh -c "! grep -E ' (warn|error): ' '$log'"

GT_LOG_LEVEL=debug run_as run "$TMP/run" "$APP" -o "$TMP/run.bin"
check "run mode: its own check passes" ran_ok "$TMP/run"
check "  output bitwise identical" cmp "$TMP/plain.bin" "$TMP/run.bin"

done_testing
