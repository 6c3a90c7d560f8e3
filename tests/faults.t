#!/bin/sh
# Faults, in the manner of SQLite's tests: the stand-in driver fails the N-th
# call it receives (FAKECUDA_FAIL_AFTER=N), and N goes over the driver calls
# of a tune session (minirt --copy: one kernel, one launch, its outputs
# poisoned for trials) and of an online session (minirt --copies: a cache
# preference and a register limit take turns on the application's launches,
# a variant built and loaded, both stages, the guard), one call in
# GT_FAULT_STEP, by default as many as make 300 (all of the tune session's).  A
# fault in one of the application's own calls is the application's error:
# it must see exactly what it sees without the shim with a fault in that
# call.  A fault in one of the shim's own calls must leave the application's
# output as it is without any fault, and cost at most one warning (the
# session it ends); one that costs a candidate is counted in the session's
# line.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
FAKE="$GT_BUILD/tests/fakecuda"
export GPUTUNE_CACHE_DIR="$TMP/cache" GPUTUNE_SET='budget.trials=3' LD_LIBRARY_PATH="$FAKE"
export FAKECUDA_COUNT="$TMP/count"

# minirt $ARGS's stdout and exit status on one line; $1 is the mode ("plain" without the shim).
app() {
    if [ "$1" = plain ]; then
        "$H/minirt" $ARGS
    else
        GPUTUNE_MODE=$1 GPUTUNE_LOG=warn shim "$H/minirt" $ARGS 2>/dev/null
    fi
    echo "rc=$?"
}

# The application without the shim: its output in $clean, and in
# $TMP/plain what it prints with each of its own calls failing.
plain() {
    clean=$(app plain | tr '\n' ' ')
    app_calls=$(cut -d' ' -f1 "$TMP/count")
    : >"$TMP/plain"
    for m in $(seq 1 "$app_calls"); do
        FAKECUDA_FAIL_AFTER=$m app plain | tr '\n' ' ' >>"$TMP/plain"
        echo >>"$TMP/plain"
    done
    is "$(grep -c -v 'minirt: done' "$TMP/plain")" "$app_calls" \
        "minirt $ARGS without the shim: a fault in any of the application's $app_calls calls shows"
}

# Call $1 failing, in files of $2 (two loops share the machine's processors),
# from an empty cache.
fault() {
    rm -rf "$TMP/cache$2"
    out=$(FAKECUDA_FAIL_AFTER=$1 FAKECUDA_COUNT="$TMP/count$2" GPUTUNE_LOG_FILE="$TMP/fault$2.log" \
        GPUTUNE_CACHE_DIR="$TMP/cache$2" app "$MODE" |
        tr "\\n" " ")
    failed=$(cut -d' ' -f2 "$TMP/count$2")
    msgs=$(grep -c ' \(warn\|error\): ' "$TMP/fault$2.log" 2>/dev/null)
    rm -f "$TMP/fault$2.log"
    if [ "$out" = "$clean" ]; then
        [ "${msgs:-0}" -le 1 ] || echo "call $1 ($failed) failing: $msgs warnings"
    elif grep -qxF "$out" "$TMP/plain"; then
        [ "${msgs:-0}" -eq 0 ] || echo "call $1 ($failed), the application's, failing: $msgs warnings"
    else
        echo "call $1 ($failed) failing: the application printed $out"
    fi
}

# A session in mode $MODE without faults, then each sampled call of it failing.
sweep() {
    is "$(app "$MODE" | tr '\n' ' ')" "$clean" "$MODE: a session without faults"
    calls=$(cut -d' ' -f1 "$TMP/count")
    check "  makes more driver calls than the application ($calls)" test "$calls" -gt "$app_calls"
    step=${GT_FAULT_STEP:-$(((calls + 299) / 300))}
    for half in 1 2; do
        for n in $(seq 1 "$step" "$calls" | awk -v h="$half" 'NR % 2 == h % 2'); do
            fault "$n" "$half"
        done >"$TMP/wrong$half" &
    done
    wait
    is "$(cat "$TMP/wrong1" "$TMP/wrong2" | head -5)" "" \
        "  each of its $calls calls failing (1 in $step): the application's output is as without the shim"
}

ARGS=--copy
plain
MODE=retune sweep

cat >"$TMP/copy.ini" <<'INI'
[kernel "copy"]
cache = default, l1
maxrreg = default, 32
INI
export GPUTUNE_POLICY="$TMP/copy.ini" GPUTUNE_WATCHDOG=off FAKECUDA_L1_APP_MS=0.22 FAKECUDA_MODULE_APP_MS=0.2 \
    FAKECUDA_BOTH_APP_MS=0.15
ARGS='--copies 60 --pace 1'
plain
MODE=online sweep

done_testing
