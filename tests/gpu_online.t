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

# A run may end before the builds do, deciding nothing; they are in the
# store for the next run, which decides at once, or builds the second
# stage's combination for the run after.
for k in stencil nbody; do
    run_as plain "$TMP/$k.plain" "$APP" "$k" --small -r 2000 -o "$TMP/$k.plain.bin"
    decided=
    for i in 1 2 3 4 5 6; do
        GT_LOG_LEVEL=debug run_as online "$TMP/$k.online$i" "$APP" "$k" --small -r 2000 -o "$TMP/$k.online$i.bin"
        check "$k, run $i: passes its own check in online mode" ran_ok "$TMP/$k.online$i"
        check "$k, run $i: and computes bitwise the same" cmp "$TMP/$k.plain.bin" "$TMP/$k.online$i.bin"
        check "$k, run $i: without a session or a warning" sh -c \
            "! grep -q ' tuned in \| warn: \| error: ' '$TMP/$k.online$i.log'"
        if grep -q "kernel $k: launch .* tuned online over [0-9]* launches" "$TMP/$k.online$i.log"; then
            decided=$TMP/$k.online$i.log
            break
        fi
    done
    check "$k: decided online within six runs" test -n "$decided"
    check "$k: variants among its candidates" grep -q "kernel $k: online, '[^']*' built from" "${decided:-/dev/null}"
    grep ' tuned online over ' "${decided:-/dev/null}" | sed 's/^.* info: kernel /# /'
done

done_testing
