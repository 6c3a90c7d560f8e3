#!/bin/sh
# Online mode on the GPU: the benchmark applications' kernels (PTX in their
# fatbins, no policy: the automatic knobs) take turns on the application's
# own launches, the knobs that need a variant built on the shim's threads
# meanwhile; every output is bitwise the untuned one, no session runs, and
# nothing warns.
. "$(dirname "$0")/lib.sh"
need_gpu
export GPUTUNE_CACHE_DIR="$TMP/cache"
unset GPUTUNE_POLICY
APP=$GT_BUILD/examples/suite

for k in stencil nbody; do
    run_as plain "$TMP/$k.plain" "$APP" "$k" --small -r 300 -o "$TMP/$k.plain.bin"
    GT_LOG_LEVEL=debug run_as online "$TMP/$k.online" "$APP" "$k" --small -r 300 -o "$TMP/$k.online.bin"
    check "$k: passes its own check in online mode" ran_ok "$TMP/$k.online"
    check "$k: and computes bitwise the same" cmp "$TMP/$k.plain.bin" "$TMP/$k.online.bin"
    check "$k: variants built and loaded for its turns" grep -q "kernel $k: online, 'maxrreg=[0-9]*' built from" \
        "$TMP/$k.online.log"
    check "$k: decided online" grep -q "kernel $k: launch .* tuned online over [0-9]* launches" "$TMP/$k.online.log"
    check "$k: without a session" sh -c "! grep -q ' tuned in ' '$TMP/$k.online.log'"
    check "$k: and without a warning" sh -c "! grep -q ' warn: \| error: ' '$TMP/$k.online.log'"
    grep ' tuned online over ' "$TMP/$k.online.log" | sed 's/^.* info: kernel /# /'
done

done_testing
