#!/bin/sh
# The benchmark applications (build/examples/suite, kernels/, policies in
# examples/suite/) on the GPU, at their small sizes: each passes its own
# check without the shim, tuned (a few trials of its policy's space, with
# the watchdog) and in run mode afterwards; tuned and run-mode outputs are
# bitwise the untuned ones (reduce: its policy compares within tolerances,
# its own check holds); run mode tunes and compiles nothing; a forced
# configuration far from the default (GPUTUNE_FORCE) computes the same.
. "$(dirname "$0")/lib.sh"
need_gpu
export GPUTUNE_CACHE_DIR="$TMP/cache"
APP=$GT_BUILD/examples/suite
export GPUTUNE_SET="budget.trials=6 budget.seconds=60 strategy=random"

for k in transpose gemm reduce conv2d nbody coulomb stencil; do
    export GPUTUNE_POLICY="$GT_SRC/examples/suite/$k.ini"
    run_as plain "$TMP/$k.plain" "$APP" "$k" --small -r 2 -o "$TMP/$k.plain.bin"
    check "$k: passes its own check" ran_ok "$TMP/$k.plain"
    check "$k: says what a launch moves and computes" grep -q "^work $k [0-9]* [0-9]*\$" "$TMP/$k.plain.out"
    GT_LOG_LEVEL=debug run_as tune "$TMP/$k.tune" "$APP" "$k" --small -r 2 -o "$TMP/$k.tune.bin"
    GT_LOG_LEVEL=debug run_as run "$TMP/$k.run" "$APP" "$k" --small -r 2 -o "$TMP/$k.run.bin"
    check "$k: tuned" grep -q "kernel $k: launch .* tuned in .* 6 trials" "$TMP/$k.tune.log"
    check "$k: passes its own check tuned" ran_ok "$TMP/$k.tune"
    check "$k: and in run mode" ran_ok "$TMP/$k.run"
    check "$k: run mode tunes nothing" sh -c "! grep -q ' tuned in ' '$TMP/$k.run.log'"
    check "$k: run mode compiles nothing" sh -c "! grep -q 'variant built from' '$TMP/$k.run.log'"
    if [ "$k" != reduce ]; then
        check "$k: tuned output bitwise the untuned" cmp "$TMP/$k.plain.bin" "$TMP/$k.tune.bin"
        check "$k: run mode output bitwise the untuned" cmp "$TMP/$k.plain.bin" "$TMP/$k.run.bin"
    fi
    check "$k: no variant computed another result" sh -c "! grep -q 'computes another result' '$TMP/$k.tune.log'"
    grep ' tuned in ' "$TMP/$k.tune.log" | sed 's/^.* info: kernel /# /'
done

# The last configuration of each space, forced: far from every default.
for k in transpose gemm conv2d nbody coulomb stencil; do
    export GPUTUNE_POLICY="$GT_SRC/examples/suite/$k.ini"
    last=$("$GT_BUILD/gputune" space "$GPUTUNE_POLICY" "$k" 2>/dev/null | tail -1)
    GT_LOG_LEVEL=debug GPUTUNE_FORCE="$k $last" run_as run "$TMP/$k.force" "$APP" "$k" --small -r 2 \
        -o "$TMP/$k.force.bin"
    check "$k: forced '$last' runs" grep -q "applied=[1-9]" "$TMP/$k.force.log"
    check "$k: passes its own check" ran_ok "$TMP/$k.force"
    check "$k: and computes bitwise the same" cmp "$TMP/$k.plain.bin" "$TMP/$k.force.bin"
done

done_testing
