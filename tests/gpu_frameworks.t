#!/bin/sh
# PyTorch and CuPy under the shim, on the GPU: a fixed workload each
# (tests/scripts/*_workload.py) must write bitwise the same outputs without
# the shim, with GPUTUNE_MODE=off and with GPUTUNE_MODE=run, and the run-mode
# exit table must list the kernels they launched.  A workload whose module
# is missing (exit status 3 without the shim) skips its checks.
. "$(dirname "$0")/lib.sh"
need_gpu

PYTHON=${PYTHON:-python3}
# cuBLAS is bitwise deterministic only with a fixed workspace.
CUBLAS_WORKSPACE_CONFIG=:4096:8
export CUBLAS_WORKSPACE_CONFIG
NCHECKS=8 # per workload, skipped together

skip_checks() {
    i=0
    while [ "$i" -lt "$1" ]; do
        tap_n=$((tap_n + 1))
        echo "ok $tap_n # skip $2"
        i=$((i + 1))
    done
}

# workload WL MIN_KERNELS
workload() {
    wl=$1
    p=$TMP/$wl
    script=$GT_SRC/tests/scripts/${wl}_workload.py
    run_as plain "$p.plain" "$PYTHON" "$script" "$p.plain.bin"
    if [ "$(cat "$p.plain.rc")" = 3 ]; then
        skip_checks "$NCHECKS" "$wl: $(sed -n 's/^SKIP //p' "$p.plain.out" | head -n 1)"
        return
    fi
    run_as off "$p.off" "$PYTHON" "$script" "$p.off.bin"
    run_as run "$p.run" "$PYTHON" "$script" "$p.run.bin"
    for label in plain off run; do
        check "$wl $label: exits 0 and prints result OK" ran_ok "$p.$label"
    done
    check "$wl: writes an output file" test -s "$p.plain.bin"
    check "$wl off: outputs bitwise identical to the run without the shim" cmp "$p.plain.bin" "$p.off.bin"
    check "$wl run: outputs bitwise identical to the run without the shim" cmp "$p.plain.bin" "$p.run.bin"
    check "$wl off: no exit table" no_table "$p.off.log"
    echo "# $wl run-mode exit table (launches, geometries, origin, ptx, kernel):"
    exit_table "$p.run.log" | sed 's/^/# /'
    kernels=$(exit_table "$p.run.log" | wc -l | tr -d ' ')
    check "$wl run: the exit table lists at least $2 kernels ($kernels)" [ "$kernels" -ge "$2" ]
}

workload torch 5
workload cupy 3

done_testing
