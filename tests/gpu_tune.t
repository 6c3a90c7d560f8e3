#!/bin/sh
# Tune mode on the GPU.  Every example, tuned from an empty cache, must pass
# its own check and write bitwise the output of the run without the shim;
# the second run, in run mode, must do the same, tune nothing and compile
# nothing.  faulty_app's variants do not compile, do not launch or compute
# another result, and its in-place kernels are tuned mid-run; its --big run
# needs a snapshot that fits nowhere.  printf_app's kernel that prints is
# left alone and its output stays the same.  PyTorch and CuPy are tuned with
# the automatic space.
. "$(dirname "$0")/lib.sh"
need_gpu
export GPUTUNE_CACHE_DIR="$TMP/cache"
E=$GT_BUILD/examples
F=$GT_SRC/tests/fixtures

# tuned NAME COMMAND...: plain, tune and run mode; compares outputs.
tuned() {
    name=$1
    shift
    run_as plain "$TMP/$name.plain" "$@" -o "$TMP/$name.plain.bin"
    GPUTUNE_REPORT="$TMP/$name.csv" GT_LOG_LEVEL=debug run_as tune "$TMP/$name.tune" "$@" -o "$TMP/$name.tune.bin"
    GT_LOG_LEVEL=debug run_as run "$TMP/$name.run" "$@" -o "$TMP/$name.run.bin"
    check "$name: tune mode passes its own check" ran_ok "$TMP/$name.tune"
    check "$name: tune mode output bitwise identical to the run without the shim" \
        cmp "$TMP/$name.plain.bin" "$TMP/$name.tune.bin"
    check "$name: launches were tuned" grep -q ' tuned in ' "$TMP/$name.tune.log"
    check "$name: trials ran with the watchdog's checks" grep -q 'watchdog (loops): entry check' "$TMP/$name.tune.log"
    check "$name: GPUTUNE_REPORT lists them" test "$(wc -l <"$TMP/$name.csv")" -gt 1
    check "$name: run mode passes its own check" ran_ok "$TMP/$name.run"
    check "$name: run mode output bitwise identical" cmp "$TMP/$name.plain.bin" "$TMP/$name.run.bin"
    check "$name: run mode tunes nothing" sh -c "! grep -q ' tuned in ' '$TMP/$name.run.log'"
    check "$name: run mode compiles nothing" sh -c "! grep -q 'variant built from' '$TMP/$name.run.log'"
    echo "# $name: what tuning found"
    grep ' tuned in ' "$TMP/$name.tune.log" | sed 's/^.* info: kernel /# /'
    applied=$(grep -o 'applied=[0-9]*' "$TMP/$name.run.log" | awk -F= '{ n += $2 } END { print n + 0 }')
    echo "# $name: $applied launches ran a tuned variant in run mode"
}

export GPUTUNE_POLICY="$F/examples.ini"
tuned runtime_app "$E/runtime_app"
tuned driver_app "$E/driver_app"
tuned nvrtc_app "$E/nvrtc_app"
tuned threads_app "$E/threads_app"

export GPUTUNE_POLICY="$F/faulty.ini"
tuned faulty "$GT_BUILD/tests/helpers/faulty_app"
log=$TMP/faulty.tune.log
check "faulty: a variant that does not compile is skipped" \
    grep -q "kernel faulty: 'MODE=1' not tried: building from source .*faulty_kernel.cuh failed: .*MODE 1 does not compile" "$log"
check "faulty: a variant that does not launch is skipped" grep -q "kernel faulty: 'MODE=2' failed to run: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" "$log"
check "faulty: a variant that computes another result is refused, and where it differs is said" \
    grep -q "kernel faulty: 'MODE=3' computes another result: buffer 0 .* differs first at element 0" "$log"
check "faulty: in-place kernels tuned mid-run" sh -c "grep -q 'kernel accumulate: .* tuned in' '$log' && grep -q 'kernel histogram: .* tuned in' '$log'"

# Buffers of 85% of the device: their copies (twice as large) fit neither beside them nor in pinned host memory.
gib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits 2>/dev/null | awk 'NR == 1 { print int($1 * 0.85 / 1024) }')
GPUTUNE_CACHE_DIR="$TMP/cache2" run_as tune "$TMP/big" "$GT_BUILD/tests/helpers/faulty_app" --big "${gib:-100}"
check "a launch whose snapshot fits nowhere still runs right" ran_ok "$TMP/big"
check "and is not tuned, with the reason" grep -q "not tuned: a snapshot of .* MiB fits neither in spare device memory" "$TMP/big.log"

unset GPUTUNE_POLICY

# A kernel that prints is not tuned: every trial would print again.
printf_app=$GT_BUILD/tests/helpers/printf_app
run_as plain "$TMP/printf.plain" "$printf_app"
GPUTUNE_CACHE_DIR="$TMP/cache3" run_as tune "$TMP/printf.tune" "$printf_app"
is "$(grep -c '^shout ' "$TMP/printf.plain.out")" 3 "printf_app: its kernel prints a line per launch"
check "printf_app: tune mode passes its own check" ran_ok "$TMP/printf.tune"
check "printf_app: tune mode prints exactly what the run without the shim prints" \
    cmp "$TMP/printf.plain.out" "$TMP/printf.tune.out"
is "$(grep -c 'kernel shout: not tuned: it calls vprintf (device printf), which every trial would repeat' \
    "$TMP/printf.tune.log")" 1 "printf_app: the printing kernel is not tuned, said once"
check "printf_app: the other kernel is tuned" grep -q 'kernel bump: .* tuned in' "$TMP/printf.tune.log"

# Frameworks with the automatic space.
PYTHON=${PYTHON:-python3}
export CUBLAS_WORKSPACE_CONFIG=:4096:8
for wl in torch cupy; do
    script=$GT_SRC/tests/scripts/${wl}_workload.py
    run_as plain "$TMP/$wl.plain" "$PYTHON" "$script" "$TMP/$wl.plain.bin"
    if [ "$(cat "$TMP/$wl.plain.rc")" = 3 ]; then
        tap_n=$((tap_n + 1))
        echo "ok $tap_n # skip $wl is not installed"
        continue
    fi
    GPUTUNE_POLICY="$F/examples.ini" run_as tune "$TMP/$wl.tune" "$PYTHON" "$script" "$TMP/$wl.tune.bin"
    check "$wl: tuned with the automatic space, outputs bitwise identical" sh -c \
        "grep -qx 'result OK' '$TMP/$wl.tune.out' && cmp '$TMP/$wl.plain.bin' '$TMP/$wl.tune.bin'"
    echo "# $wl: $(grep -c ' tuned in ' "$TMP/$wl.tune.log") launches tuned"
done

done_testing
