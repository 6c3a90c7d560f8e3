#!/bin/sh
# Faults, in the manner of SQLite's tests: the stand-in driver fails the N-th
# call it receives (FAKECUDA_FAIL_AFTER=N), and N goes over every driver call
# of a tune session (minirt --copy: one kernel, one launch, its outputs
# poisoned for trials).  A fault in one of the application's own calls is the
# application's error: it must see exactly what it sees without the shim with
# a fault in that call.  A fault in one of the shim's own calls must leave the
# application's output as it is without any fault, and cost at most one
# warning (the session it ends); one that costs a candidate is counted in the
# session's line.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
FAKE="$GT_BUILD/tests/fakecuda"
export GPUTUNE_CACHE_DIR="$TMP/cache" GPUTUNE_SET='budget.trials=3' LD_LIBRARY_PATH="$FAKE"
export FAKECUDA_COUNT="$TMP/count"

# minirt --copy's stdout and exit status on one line; $1 is the mode ("plain" without the shim).
app() {
    if [ "$1" = plain ]; then
        "$H/minirt" --copy
    else
        GPUTUNE_MODE=$1 GPUTUNE_LOG=warn shim "$H/minirt" --copy 2>/dev/null
    fi
    echo "rc=$?"
}

clean=$(app plain | tr '\n' ' ')
app_calls=$(cut -d' ' -f1 "$TMP/count")
: >"$TMP/plain"
for m in $(seq 1 "$app_calls"); do
    FAKECUDA_FAIL_AFTER=$m app plain | tr '\n' ' ' >>"$TMP/plain"
    echo >>"$TMP/plain"
done
is "$(grep -c -v 'minirt: done' "$TMP/plain")" "$app_calls" \
    "without the shim, a fault in any of the application's $app_calls calls shows"

is "$(app retune | tr '\n' ' ')" "$clean" "a tune session without faults"
calls=$(cut -d' ' -f1 "$TMP/count")
check "  makes more driver calls than the application ($calls)" test "$calls" -gt "$app_calls"

# Call $1 failing, in files of $2 (two loops share the machine's processors).
fault() {
    out=$(FAKECUDA_FAIL_AFTER=$1 FAKECUDA_COUNT="$TMP/count$2" GPUTUNE_LOG_FILE="$TMP/fault$2.log" \
        GPUTUNE_CACHE_DIR="$TMP/cache$2" app retune |
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

for half in 1 2; do
    for n in $(seq "$half" 2 "$calls"); do
        fault "$n" "$half"
    done >"$TMP/wrong$half" &
done
wait
is "$(cat "$TMP/wrong1" "$TMP/wrong2" | head -5)" "" \
    "each of the $calls calls failing: the application's output is as without the shim"

done_testing
