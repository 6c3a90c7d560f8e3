#!/bin/sh
# gputune_suspend, on the CPU against the stand-in driver, which records
# what each launch ran (FAKECUDA_LAUNCHES): minirt launches copy 40 times,
# suspending the shim for the second and the fourth ten, under a forced
# configuration.  The suspended launches run the application's own function
# with its own cache preference; those after resuming run the configuration
# again; each call returns the state before it (minirt checks).  A graph's
# launches while suspended run what its executable graph holds, and the
# shim's checks of its replays skip them.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
export LD_LIBRARY_PATH="$GT_BUILD/tests/fakecuda" GPUTUNE_CACHE_DIR="$TMP/cache"
cat >"$TMP/copy.ini" <<'INI'
[kernel "copy"]
maxrreg = default, 32, 64
cache = default, l1
INI

# minirt --copies 40 --suspend-every 10 in mode $1 with GPUTUNE_FORCE=$2; launches in $TMP/$3.launches, log $TMP/$3.log.
suspended() {
    FAKECUDA_LAUNCHES="$TMP/$3.launches" GPUTUNE_MODE=$1 GPUTUNE_FORCE=$2 GPUTUNE_POLICY="$TMP/copy.ini" \
        GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/$3.log" shim "$H/minirt" --copies 40 --suspend-every 10
}
# The launches recorded, as "COUNT WHAT" runs in order, one line.
ran() {
    uniq -c "$TMP/$1.launches" | awk '{ $1 = $1; printf "%s%s", sep, $0; sep = "; " }'
}

is "$(suspended run 'copy maxrreg=32' variant)" "minirt: 20 launches suspended
minirt: done" "a variant forced: every call returns the state before it"
is "$(ran variant)" "10 copy module none; 10 copy kernel none; 10 copy module none; 10 copy kernel none" \
    "  the variant runs, the application's kernel while suspended, the variant again after"
is "$(detail_of "$TMP/variant.log" copy applied)" 20 "  the exit table counts the applied launches"
is "$(table_field "$TMP/variant.log" 1 copy)" 20 "  and not the suspended ones"

suspended run 'copy cache=l1' direct >/dev/null
is "$(ran direct)" "10 copy kernel l1; 10 copy kernel none; 10 copy kernel l1; 10 copy kernel none" \
    "a cache preference forced: the application's own is back on its function while suspended"

is "$(suspended off 'copy cache=l1' off)" "minirt: 20 launches suspended
minirt: done" "off mode: the calls return the state before them too"
is "$(ran off)" "40 copy kernel none" "  and nothing is applied"

# Graphs: copy captured into a graph that alone runs it (minirt --graph),
# its variant from a tune run, the guard's verdict then removed, so that
# run mode judges the variant on the graph's replays; the stand-in's events
# complete only at the application's synchronization at the end, so of
# the 20 replays not suspended, the 19 after the first (which runs as it
# is) take 2 untimed and 17 timed slots, all read when the application
# destroys the graph.  (No watchdog: its flag
# would be a module variable the stand-in cannot find.)
export GPUTUNE_POLICY="$TMP/copy.ini" GPUTUNE_WATCHDOG=off FAKECUDA_MODULE_MS=0.2 GPUTUNE_CACHE_DIR="$TMP/graph"
GPUTUNE_MODE=tune shim "$H/minirt" --graph >/dev/null
sed -i '/^guard = /d' "$TMP"/graph/minirt-*.ini
is "$(FAKECUDA_EVENTS_PENDING=1 FAKECUDA_LAUNCHES="$TMP/graph.launches" GPUTUNE_MODE=run GPUTUNE_LOG=info \
    GPUTUNE_LOG_FILE="$TMP/graph.log" shim "$H/minirt" --graph --suspend-every 10)" "minirt: 20 launches suspended
minirt: done" "a graph launched 40 times, 20 of them suspended: the application runs"
check "  the shim's checks of its replays see only the 20 launches not suspended" \
    grep -q "a graph with 1 tuned kernel node (copy first): its replays take .* (8 and 9 timed)" "$TMP/graph.log"
# How many different functions the replays of launches FROM to TO ran.
ran_between() {
    sed -n "$1,$2p" "$TMP/graph.launches" | sort -u | wc -l
}
is "$(wc -l <"$TMP/graph.launches")" 40 "  every replay runs"
is "$(ran_between 1 10)" 2 "  those not suspended alternate between the graph and its tuned copy"
is "$(ran_between 11 20) $(ran_between 31 40)" "1 1" \
    "  the suspended ones each run what the executable graph holds"

is "$("$H/minirt" --copies 1 --suspend-every 1)" \
    "minirt: no gputune_suspend" "without the shim there is no gputune_suspend"

done_testing
