#!/bin/sh
# Trials cut at their deadline, on the CPU.  The stand-in driver plays the
# watchdog's checks (tests/helpers/fakecuda.c): a build with them has their
# variable, the shim's gt_arm sets its budget, and a launch longer than the
# budget stops there and marks itself stopped.  The original copy runs
# 250 us; its variant maxrreg=32 runs FAKECUDA_MODULE_MS, and its build with
# the checks FAKECUDA_WATCHED_MS where that is set.  A variant past twice the
# original is cut short, counted and recorded so, and never wins; one within
# it runs whole and is timed on its build without the checks, which is what
# runs after the session and in run mode: no launch outside a trial ever
# runs the checks.  A trial whose checked run lies over 5% outside its plain
# runs is counted in the session's debug line, and the second such trial
# lowers the kernel's checks a level (loops, entry, none).
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
printf '[kernel "copy"]\nmaxrreg = default, 32\n' >"$TMP/mr.ini"
export LD_LIBRARY_PATH="$GT_BUILD/tests/fakecuda" GPUTUNE_POLICY="$TMP/mr.ini"

# minirt $3... in mode $1, log, trials and launches in $TMP/$2.*; tune mode
# starts from an empty cache, run mode reads what the last one wrote.
app() {
    mode=$1 name=$2
    shift 2
    [ "$mode" = tune ] && rm -rf "$TMP/cache"
    GPUTUNE_CACHE_DIR="$TMP/cache" GPUTUNE_MODE=$mode GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/$name.log" \
        GPUTUNE_TRIALS="$TMP/$name.csv" FAKECUDA_LAUNCHES="$TMP/$name.launches" shim "$H/minirt" "$@"
}

# The variant's row of trials file $1: outcome and time.
row() {
    sed 's/"[^"]*"//g' "$TMP/$1.csv" | awk -F, 'NR > 1 { print $4, $5 }'
}

# What the session of log $1 found, as its line says.
found() {
    sed -n 's/.* tuned in .*): \(.*\)$/\1/p' "$TMP/$1.log"
}

is "$(FAKECUDA_MODULE_MS=0.8 app tune slow --copy)" "minirt: done" \
    "a variant 3.2 times slower: the application's output is unchanged"
check "  it is cut short at twice the original's time" \
    grep -q "debug: kernel copy: 'maxrreg=32' cut short at its deadline: stopped after 500.0 us, budget 500.0 us (1.00x)" \
    "$TMP/slow.log"
check "  counted in the session's line" grep -q ' tuned in .* (0 invalid, 0 computed another result, 1 cut short)' "$TMP/slow.log"
is "$(row slow)" "cut 500.000" "  recorded as cut, with how long it ran"
is "$(found slow)" "the original 250.00 us against 250.00 us, 1.00x" "  and the original stays"

FAKECUDA_MODULE_MS=0.8 GPUTUNE_SET='watchdog.factor=4' app tune factor --copy >/dev/null
is "$(row factor)" "ok 800.000" "watchdog.factor=4: the same variant runs whole"
FAKECUDA_MODULE_MS=0.8 GPUTUNE_WATCHDOG=off app tune off --copy >/dev/null
is "$(row off)" "ok 800.000" "GPUTUNE_WATCHDOG=off: the same"
check "  built without the checks" sh -c "! grep -q ' checked ' '$TMP/off.launches'"

FAKECUDA_MODULE_MS=0.3 app tune within --copy >/dev/null
is "$(row within)" "ok 300.000" "a variant 1.2 times slower runs whole, timed"
check "  with the checks in its trial" grep -q '^copy checked ' "$TMP/within.launches"

FAKECUDA_MODULE_MS=0.2 FAKECUDA_WATCHED_MS=0.1 app tune skew --copies 16 >/dev/null
is "$(row skew)" "ok 200.000" "a faster variant whose checked build reads half its time: timed on its plain build"
is "$(found skew)" "maxrreg=32 200.00 us against 250.00 us, 1.25x" "  and wins with that time"
check "  the skew counted" grep -q '; 1 trial whose checked run lay over 5% outside its runs without the watchdog.s checks' \
    "$TMP/skew.log"
check "  one such trial lowers no checks" sh -c "! grep -q 'checks change its times' '$TMP/skew.log'"
is "$(grep -c checked "$TMP/skew.launches")" 1 "  the checks ran once, in its trial"
is "$(tail -n 15 "$TMP/skew.launches" | sort -u | tr '\n' ' ')" "copy kernel none copy module none " \
    "  the application's 15 launches after the session: the plain build, and the original under the guard"
FAKECUDA_MODULE_MS=0.2 app run run --copies 20 >/dev/null
check "run mode runs the winner" grep -q "runs 'maxrreg=32'" "$TMP/run.log"
is "$(grep -c '^copy module ' "$TMP/run.launches")" 20 "  from its plain build at every launch (the guard kept it)"
is "$(grep -c checked "$TMP/run.launches")" 0 "  never with the checks"

# Four variants whose checked builds read half their plain time, at two
# signatures (grid 8, then 16): the second such trial lowers the kernel's
# checks a level, for the session's builds made later and its later sessions.
printf '[kernel "copy"]\nmaxrreg = default, 32, 40, 48, 64\n' >"$TMP/four.ini"
(GPUTUNE_POLICY="$TMP/four.ini" FAKECUDA_MODULE_MS=0.2 FAKECUDA_WATCHED_MS=0.1 \
    app tune distrust --graph --two-nodes --eager 3 --copies 5 >/dev/null)
lowered() { # what the checks were lowered to, one line per session
    sed -n "s/.* info: kernel copy: the watchdog's checks change its times ('maxrreg=40' ran 100.0 us with them, 200.0-200.0 us without; 2 trials over 5% outside their runs without checks), so their deadlines could stop a configuration for their own cost: its trials run \(.*\) from now on$/\1/p" "$TMP/distrust.log"
}
is "$(lowered | tr '\n' ';')" "with checks at block entry only;without checks;" \
    "checked runs that disagree with their plain builds in two trials lower the checks, said once a level"
check "  the second session starts where the first left them" \
    grep -q "debug: kernel copy: trials run with checks at block entry only: an earlier session's checked runs" \
    "$TMP/distrust.log"
check "  and builds with entry checks" grep -q 'debug: kernel copy: watchdog (entry)' "$TMP/distrust.log"
is "$(grep -c checked "$TMP/distrust.launches")" 4 \
    "  checks ran in two trials a session: the builds made before they were lowered ran plain"
is "$(row distrust | sort | uniq -c | tr -s ' ')" " 8 ok 200.000" "  every trial timed on its plain build"
is "$(grep -c ' tuned in .* maxrreg=32 200.00 us against 250.00 us' "$TMP/distrust.log")" 2 "  both sessions find the winner"

done_testing
