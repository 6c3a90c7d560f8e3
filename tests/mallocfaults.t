#!/bin/sh
# Faults of the shim's own allocations, as SQLite's tests fail their N-th
# malloc: tests/helpers/failalloc.c, preloaded with the shim, fails the N-th
# allocation made from the shim's code (FAILALLOC_AFTER=N), never one of the
# application's, so every failure it injects is the shim's.  A tune session of
# minirt --copy, then a run of it with the file that session wrote; an online
# session of minirt --copies (a policy file's cache preference and register
# limit: variants built on the pool, both stages, the guard); a tune session
# of minirt --graph (a kernel launched only in a graph, tuned at its second
# launch and judged on its replays), then a run of it with the guard's
# verdict taken out of the file; a run of minirt --nodes with a
# GPUTUNE_FORCE (kernel nodes added and set by hand), count them; then
# every k-th fails in turn (every one of the last, which is short;
# GT_MALLOC_STEP=1 fails each of all): the application must print and
# exit as it does without the shim, its cache file hold nothing that a run
# without faults would not, and the user see exactly one warning, whole
# (shim/base/alloc.c counts every failure, and shim/log.c says it once).
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
export GPUTUNE_SET='budget.trials=3' LD_LIBRARY_PATH="$GT_BUILD/tests/fakecuda"
cat >"$TMP/copy.ini" <<'INI'
[kernel "copy"]
cache = default, l1
maxrreg = default, 32
INI
# Before a sanitizer's runtime, which then serves every allocation it passes on.
PRELOAD="$H/libfailalloc.so $GT_PRELOAD"
[ -n "$GT_SANITIZE" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:verify_asan_link_order=0"

# minirt $ARGS in mode $MODE, its stdout and exit status on one line, in
# files of suffix $1 (two loops share the machine's processors), with every
# report the shim can write (the exit's JSON, the trials' rows, their
# plots); run mode reads a copy of the file the tune session wrote.  The
# timeout only turns a hang into a failure.
app() {
    rm -rf "$TMP/cache$1" "$TMP/plots$1"
    mkdir "$TMP/plots$1"
    [ -d "$TMP/tuned" ] && cp -r "$TMP/tuned" "$TMP/cache$1"
    GPUTUNE_MODE=$MODE GPUTUNE_LOG=warn GPUTUNE_LOG_FILE="$TMP/log$1" FAILALLOC_COUNT="$TMP/count$1" \
        GPUTUNE_REPORT="$TMP/report$1.json" GPUTUNE_TRIALS="$TMP/trials$1.csv" GPUTUNE_PLOTS="$TMP/plots$1" \
        GPUTUNE_CACHE_DIR="$TMP/cache$1" timeout 120 env LD_PRELOAD="$PRELOAD" "$H/minirt" $ARGS 2>/dev/null
    echo "rc=$?"
}

# What the cache file of suffix $1 holds: a result cut short by a fault
# (fewer trials, another configuration) must not be among it.
kept() {
    grep -hE '^(kernel|config|trials) = ' "$TMP/cache$1"/*.ini 2>/dev/null
}

# Allocation $1 failing, in files of suffix $2; prints what is wrong.
fault() {
    out=$(FAILALLOC_AFTER=$1 app "$2" | tr '\n' ' ')
    at=$(cut -d' ' -f2 "$TMP/count$2")
    made=$(cut -d' ' -f1 "$TMP/count$2")
    if [ "$at" = - ] && [ "$1" -gt "${made:-0}" ]; then
        echo "$1" >>"$TMP/beyond" # online mode's builds on other threads: a run makes a few more or fewer
        rm -rf "$TMP/log$2" "$TMP/count$2"
        return
    fi
    [ "$at" = - ] || echo "$1" >>"$TMP/injected"
    where="$MODE, allocation $1 ($(addr2line -f -s -e "$GT_BUILD/libgputune.so" $(echo "$at" | tr , ' ') 2>/dev/null |
        paste -sd' '))"
    msgs=$(grep -c ' \(warn\|error\): ' "$TMP/log$2" 2>/dev/null)
    if [ "$out" != "$clean" ]; then
        echo "$where failing: the application printed $out"
    elif [ "${msgs:-0}" -ne 1 ]; then
        echo "$where failing: $msgs warnings: $(tr '\n' ' ' <"$TMP/log$2")"
    elif grep -q '(null)\|: Success\|: : ' "$TMP/log$2" 2>/dev/null; then
        echo "$where failing: a garbled message: $(cat "$TMP/log$2")"
    elif [ -n "$(kept "$2")" ] && [ "$(kept "$2")" != "$(kept 0)" ]; then
        echo "$where failing: the cache file kept a result unlike the one without faults: $(kept "$2" | tr '\n' ' ')"
    fi
    rm -rf "$TMP/log$2" "$TMP/count$2"
}

# A session in mode $MODE counted, then every k-th of its allocations
# failing ($1 if given, else as many as make 50).
sweep() {
    is "$(app 0 | tr '\n' ' ')" "$clean" "$MODE: a session without faults"
    total=$(cut -d' ' -f1 "$TMP/count0")
    check "  makes allocations of the shim's own ($total)" test "$total" -gt 0
    is "$(cat "$TMP/log0" 2>/dev/null)" "" "  and warns of nothing"
    step=${GT_MALLOC_STEP:-${1:-$(((total + 49) / 50))}}
    : >"$TMP/injected"
    : >"$TMP/beyond"
    for half in 1 2; do
        for n in $(seq 1 "$step" "$total" | awk -v h="$half" 'NR % 2 == h % 2'); do
            fault "$n" "$half"
        done >"$TMP/wrong$half" &
    done
    wait
    sampled=$(seq 1 "$step" "$total" | wc -l)
    is "$(($(wc -l <"$TMP/injected") + $(wc -l <"$TMP/beyond")))" "$sampled" \
        "  each of the $sampled allocations sampled (1 in $step) failed, or its run made fewer"
    is "$(awk -v t="$total" '$1 <= t - 16' "$TMP/beyond")" "" "  those only among the last 16 allocations"
    is "$(cat "$TMP/wrong1" "$TMP/wrong2" | head -5)" "" \
        "  each failing: the application's output is as without the shim, with exactly one warning"
}

# The application's output without the shim, on one line.
plain() {
    echo "$("$H/minirt" $ARGS; echo "rc=$?")" | tr '\n' ' '
}

ARGS=--copy
clean=$(plain)
MODE=retune sweep
mv "$TMP/cache0" "$TMP/tuned"
MODE=run sweep
rm -rf "$TMP/tuned"
ARGS='--copies 400 --pace 2'
clean=$(plain)
export FAKECUDA_L1_APP_MS=0.22 FAKECUDA_MODULE_APP_MS=0.2 FAKECUDA_BOTH_APP_MS=0.15 FAKECUDA_MODULE_MS=0.2 \
    GPUTUNE_POLICY="$TMP/copy.ini" GPUTUNE_WATCHDOG=off
MODE=online sweep
ARGS=--graph
clean=$(plain)
MODE=retune sweep
mkdir "$TMP/tuned"
sed '/^guard = /d' "$TMP"/cache0/minirt-*.ini >"$TMP/tuned/$(basename "$TMP"/cache0/minirt-*.ini)"
MODE=run sweep
rm -rf "$TMP/tuned"
ARGS=--nodes
export GPUTUNE_FORCE='scale cache=l1' FAKECUDA_PARAMS=
clean=$(plain)
MODE=run sweep 1

done_testing
