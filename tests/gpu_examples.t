#!/bin/sh
# Every example on the GPU, three times: without the shim, with GPUTUNE_MODE=off
# and with GPUTUNE_MODE=run.  The shim must be invisible (same exit status,
# same stdout, bitwise the same output file) and, in run mode, its exit
# table must count each kernel's launches exactly as the example says it
# launched them (the example's `expect PREFIX COUNT` lines).
. "$(dirname "$0")/lib.sh"
need_gpu

APPS="runtime_app runtime_app_ptds driver_app nvrtc_app threads_app"

# run_app APP LABEL: LABEL is plain (no shim), off or run (under the shim,
# logging at info).  Leaves $TMP/APP.LABEL.{out,err,bin,log,rc}.
run_app() {
    base=$TMP/$1.$2
    case $2 in
    plain) (unset LD_PRELOAD; exec "$GT_BUILD/examples/$1" -o "$base.bin") >"$base.out" 2>"$base.err" ;;
    *) GPUTUNE_MODE=$2 GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$base.log" \
           shim "$GT_BUILD/examples/$1" -o "$base.bin" >"$base.out" 2>"$base.err" ;;
    esac
    echo $? >"$base.rc"
}

# Passes when the run exited 0 and printed `result OK`; else shows what it printed.
ran_ok() {
    if [ "$(cat "$1.rc")" = 0 ] && grep -qx 'result OK' "$1.out"; then
        return 0
    fi
    echo "exit status $(cat "$1.rc")"
    cat "$1.out"
    tail -n 20 "$1.err"
    return 1
}

# Launches of the table rows whose kernel starts with PREFIX, summed: a
# kernel appears once per image it was launched from.  Empty if none.
launches_of() {
    exit_table "$1" | awk -F '\t' -v p="$2" 'index($5, p) == 1 { n += $1; seen = 1 } END { if (seen) print n }'
}

total_launches() {
    exit_table "$1" | awk -F '\t' '{ n += $1 } END { print n + 0 }'
}

# Passes when LOG (if it exists at all) holds no exit table.
no_table() {
    [ -e "$1" ] || return 0
    if grep -q 'launches  *geometries' "$1" || [ -n "$(exit_table "$1")" ]; then
        cat "$1"
        return 1
    fi
}

for app in $APPS; do
    for label in plain off run; do
        run_app "$app" "$label"
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
