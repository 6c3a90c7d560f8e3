#!/bin/sh
# Every example on the GPU, three times: without the shim, with GPUTUNE_MODE=off
# and with GPUTUNE_MODE=run.  The shim must be invisible (same exit status,
# same stdout, bitwise the same output file) and, in run mode, its exit
# table must count each kernel's launches exactly as the example says it
# launched them (the example's `expect PREFIX COUNT` lines).
. "$(dirname "$0")/lib.sh"
need_gpu

APPS="runtime_app runtime_app_ptds driver_app nvrtc_app threads_app"

# Launches of the table rows whose kernel starts with PREFIX, summed: a
# kernel appears once per image it was launched from.  Empty if none.
launches_of() {
    exit_table "$1" | awk -F '\t' -v p="$2" 'index($5, p) == 1 { n += $1; seen = 1 } END { if (seen) print n }'
}

total_launches() {
    exit_table "$1" | awk -F '\t' '{ n += $1 } END { print n + 0 }'
}

for app in $APPS; do
    for label in plain off run; do
        run_as "$label" "$TMP/$app.$label" "$GT_BUILD/examples/$app" -o "$TMP/$app.$label.bin"
        check "$app $label: exits 0 and prints result OK" ran_ok "$TMP/$app.$label"
    done

    p=$TMP/$app
    check "$app: writes an output file" test -s "$p.plain.bin"
    check "$app off: output bitwise identical to the run without the shim" cmp "$p.plain.bin" "$p.off.bin"
    check "$app run: output bitwise identical to the run without the shim" cmp "$p.plain.bin" "$p.run.bin"
    check "$app: same stdout in all three runs" sh -c 'cmp "$1" "$2" && cmp "$1" "$3"' - \
        "$p.plain.out" "$p.off.out" "$p.run.out"
    check "$app off: no exit table" no_table "$p.off.log"

    grep '^expect ' "$p.plain.out" >"$p.expect"
    check "$app: states its launch counts" test -s "$p.expect"
    echo "# $app run-mode exit table (launches, geometries, origin, ptx, kernel):"
    exit_table "$p.run.log" | sed 's/^/# /'
    while IFS= read -r line; do
        line=${line#expect }
        want=${line##* }
        prefix=${line% *}
        is "$(launches_of "$p.run.log" "$prefix")" "$want" "$app run: $prefix launched $want times"
    done <"$p.expect"
    is "$(total_launches "$p.run.log")" "$(awk '{ n += $NF } END { print n + 0 }' "$p.expect")" \
        "$app run: no launches beyond the expected ones"
done

done_testing
