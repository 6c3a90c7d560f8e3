#!/bin/sh
# How trials are timed, on the CPU.  The stand-in CUPTI
# (tests/helpers/fake_libcupti.c) gives a kernel record of each launch the
# stand-in driver runs, of other lengths than the driver's events (0.25 ms),
# so that which of the two timed a trial shows in the session's line.  With a
# record of every launch the trials' times are CUPTI's; with one missing, or
# records of no length, the measurement is made again with events and that
# is said; with CUPTI held by another subscriber the trials are timed with
# events, said once a process.  No time a session shows is ever 0 or less.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
mkdir "$TMP/cupti"
ln -s "$GT_BUILD/tests/fakelibs/13/libcupti.so.13" "$TMP/cupti/"
printf '[kernel "copy"]\ncache = default, l1\n' >"$TMP/l1.ini"
export LD_LIBRARY_PATH="$TMP/cupti:$GT_BUILD/tests/fakecuda" GPUTUNE_POLICY="$TMP/l1.ini" \
    FAKECUPTI_US=300 FAKECUPTI_L1_US=200

# A tune session of minirt $2 from an empty cache, its log in $TMP/$1.log.
tune() {
    log=$1
    shift
    rm -rf "$TMP/cache"
    GPUTUNE_CACHE_DIR="$TMP/cache" GPUTUNE_MODE=tune GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/$log.log" \
        GPUTUNE_TRIALS="$TMP/$log.csv" shim "$H/minirt" "$@"
}

# What the session of log $1 found: the winner, its time and the original's.
found() {
    sed -n 's/.* tuned in .*): \(.*\)$/\1/p' "$TMP/$1.log"
}

is "$(tune records --copy)" "minirt: done" "CUPTI's records of every launch: the application's output is unchanged"
check "  the stand-in CUPTI is the one opened" grep -q 'debug: CUPTI 13: .*/cupti/libcupti.so.13$' "$TMP/records.log"
is "$(found records)" "cache=l1 200.00 us against 300.00 us, 1.50x" \
    "  the trials' times are the records' (the events read 250 us)"
is "$(grep -c 'timing with events\|timed with CUDA events' "$TMP/records.log")" 0 "  and no event timed them"

FAKECUPTI_DROP=1 tune drop --copy >/dev/null
check "a record missing: said" grep -q 'kernel copy: CUPTI gave \([0-9]*\) records of [0-9]* launches; timing with events instead' \
    "$TMP/drop.log"
is "$(found drop)" "the original 250.00 us against 250.00 us, 1.00x" "  and the trials timed with events"

FAKECUPTI_ZERO=1 tune zero --copy >/dev/null
check "records of no length: said" \
    grep -q 'kernel copy: CUPTI gave \([0-9]*\) records of \1 launches, only 0 of a positive time; timing with events instead' \
    "$TMP/zero.log"
is "$(found zero)" "the original 250.00 us against 250.00 us, 1.00x" "  and the trials timed with events"
is "$(sed 's/"[^"]*"//g' "$TMP/zero.csv" | awk -F, 'NR > 1 && $5 != "" && $5 <= 0')" "" \
    "  no trial of theirs shows a time of 0 or less"

(unset FAKECUPTI_US && tune held --threads 2 >/dev/null)
is "$(grep -c 'info: CUPTI is held by the application or a profiler; trials are timed with CUDA events' "$TMP/held.log")" 1 \
    "CUPTI held by another subscriber: said once, however many sessions"
check "  which ran, timed with events" sh -c "test \$(grep -c ' tuned in ' '$TMP/held.log') -gt 1"
is "$(grep -c 'CUPTI gave' "$TMP/held.log")" 0 "  without asking CUPTI for records"

done_testing
