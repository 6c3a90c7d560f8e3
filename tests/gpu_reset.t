#!/bin/sh
# An application that resets its device midway, on the GPU: reset_app runs
# scale_add 40 times, resets the device (cudaDeviceReset), and runs it 40
# times again in a new context.  Online, tune and run mode let go of what
# they hold in a context before it goes (intercept/hook_ctx.c): the guards'
# and the online turns' events, and the variants loaded there.  The
# application's results must be bitwise those without the shim, and the
# shim must say no error.
. "$(dirname "$0")/lib.sh"
need_gpu
APP=$GT_BUILD/tests/helpers/reset_app

run_as plain "$TMP/plain" "$APP" -o "$TMP/plain.bin"
check "reset_app passes its own check without the shim" ran_ok "$TMP/plain"
for mode in online tune run; do # run mode reads what tune mode wrote
    cache=$TMP/cache
    [ "$mode" = online ] && cache=$TMP/online-cache
    GPUTUNE_CACHE_DIR="$cache" run_as "$mode" "$TMP/$mode" "$APP" -o "$TMP/$mode.bin"
    check "$mode mode: its own check passes" ran_ok "$TMP/$mode"
    check "  its output is bitwise the same" cmp -s "$TMP/plain.bin" "$TMP/$mode.bin"
    check "  the shim says no error" sh -c "! grep -E ' (warn|error): ' '$TMP/$mode.log'"
done
grep -h "kernel scale_add\|torn down" "$TMP/online.log" "$TMP/tune.log" "$TMP/run.log" | sed 's/^.* info: /# /' | head -12

done_testing
