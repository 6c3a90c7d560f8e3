#!/bin/sh
# The launches a shim exporting cuLaunchKernel alone would never see, on the
# GPU.  runtime_app links the CUDA runtime statically: it resolves the driver
# through cuGetProcAddress and launches CUkernel handles, through
# cuLaunchKernel.  runtime_app_ptds is the same source built for the
# per-thread default stream: its launches come through cuLaunchKernel_ptsz.
# Launches recorded into a graph by stream capture are seen and marked.
. "$(dirname "$0")/lib.sh"
need_gpu

for app in runtime_app runtime_app_ptds; do
    GT_LOG_LEVEL=debug run_as run "$TMP/$app" "$GT_BUILD/examples/$app"
    log=$TMP/$app.log
    check "$app: exits 0 and prints result OK under the shim" ran_ok "$TMP/$app"
    grep '^expect ' "$TMP/$app.out" >"$TMP/$app.expect"
    check "$app: states its launch counts" test -s "$TMP/$app.expect"
    if [ "$app" = runtime_app_ptds ]; then
        entry=cuLaunchKernel_ptsz other=cuLaunchKernel
    else
        entry=cuLaunchKernel other=cuLaunchKernel_ptsz
    fi
    while IFS= read -r line; do
        line=${line#expect }
        want=${line##* }
        prefix=${line% *}
        is "$(detail_of "$log" "$prefix" CUkernel)" "$want" "$app: $prefix launched through a CUkernel handle $want times"
        is "$(detail_of "$log" "$prefix" "$entry")" "$want" "$app: $prefix launched through $entry $want times"
        is "$(detail_of "$log" "$prefix" "$other")" 0 "$app: $prefix never through $other"
    done <"$TMP/$app.expect"
    captured=$(detail_of "$log" "graph_step(" captured)
    check "$app: graph_step's launches under stream capture are marked (captured=$captured)" \
        [ "${captured:-0}" -ge 1 ]
done

done_testing
