#!/bin/sh
# GPUTUNE_BUDGET, on the CPU against the stand-in driver (every launch
# times 0.25 ms, so a signature's share of GPU time is its launches):
# without a budget every signature is tuned at its first launch; under one,
# the hotter is tuned first though measured later, a progress line says how
# far tuning has come, and once the budget is spent nothing more is tuned;
# a session the budget cuts short with no winner keeps nothing, nothing is written for what
# was not tuned, and a later run tunes it.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
export LD_LIBRARY_PATH="$GT_BUILD/tests/fakecuda" GPUTUNE_SET='budget.trials=3'

# minirt --mix tuning into a fresh cache (or the one of suffix $3) with
# GPUTUNE_BUDGET=$1, logged in $TMP/$2.log.
mix() {
    [ -n "$3" ] || rm -rf "$TMP/cache"
    GPUTUNE_BUDGET=$1 GPUTUNE_MODE=tune GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/$2.log" \
        GPUTUNE_CACHE_DIR="$TMP/cache" shim "$H/minirt" --mix
}

order() {
    sed -n 's/.*launch grid=\([0-9]*\),1,1 .* tuned in .*/\1/p' "$TMP/$1.log" | tr '\n' ' '
}

entries() {
    cat "$TMP"/cache/minirt-*.ini 2>/dev/null | grep -c '^\[entry '
}

is "$(mix '' plain)" "minirt: done" "no budget: the application runs"
is "$(order plain)" "8 16 " "  each signature is tuned at its first launch, grid 8 first"
check "  a progress line counts the sessions" grep -q "info: tuning: 1 signature tuned, [0-9.]* s spent, best so far 1.00x" \
    "$TMP/plain.log"

is "$(FAKECUDA_EVENTS_PENDING=1 mix 100 behind)" "minirt: done" \
    "a budget, the GPU behind the launches (no event complete until a synchronization)"
is "$(order behind)" "16 8 " "  the timed launches are waited for once issued: both tuned, hottest first"
is "$(mix 100 hot)" "minirt: done" "a budget of 100 s: the application runs"
is "$(order hot)" "16 8 " "  grid 16, launched five times as often, is tuned first though grid 8 was measured first"
check "  the progress line says what share of the GPU time is covered" \
    grep -q "info: tuning: 1 of 2 signatures seen (56% of the GPU time measured) tuned, [0-9.]* s of 100 s spent" \
    "$TMP/hot.log"
check "  and at exit, all of it" grep -q "info: tuning: 2 of 2 signatures seen (100% of the GPU time measured) tuned" \
    "$TMP/hot.log"
is "$(entries)" 2 "  both results are written"

is "$(mix 0.000001 spent)" "minirt: done" "a budget spent within the first session: the application runs"
check "  the hottest signature's session is cut short by it before any trial, and keeps nothing" \
    grep -q "kernel saxpy.*launch grid=16,1,1 .* not tuned: the process's tuning budget ran out after 0 trials; a later run tunes it" \
    "$TMP/spent.log"
is "$(order spent)" "" "  no other session starts"
check "  the end of the budget is said once" \
    test "$(grep -c 'the budget of 1e-06 s is spent after 1 sessions; nothing more is tuned in this run' "$TMP/spent.log")" = 1
is "$(entries)" 0 "  nothing is written"
is "$(mix '' later keep)" "minirt: done" "a later run without a budget"
is "$(order later)" "8 16 " "  tunes what the budget left"
is "$(entries)" 2 "  and writes it"

# The device's primary context reset while a signature's timed launches
# are not done (the stand-in's events complete only at a synchronization),
# then more launches of it: its meter lets go of those events before they
# go, never touches them after (the stand-in says so on stderr when
# something does), and times as many launches again.
rm -rf "$TMP/cache"
out=$(FAKECUDA_EVENTS_PENDING=1 GPUTUNE_BUDGET=100 GPUTUNE_MODE=tune GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/reset.log" \
    GPUTUNE_CACHE_DIR="$TMP/cache" shim "$H/minirt" --copies 3 --reset --after 5 2>"$TMP/reset.err")
is "$out/$(cat "$TMP/reset.err")" "minirt: done/" \
    "a context reset with a meter's launches not done: the application runs, and no event of that context is used after"
check "  the signature is measured again and tuned" grep -q "kernel copy: launch grid=8,1,1 .* tuned in " "$TMP/reset.log"

out=$(GPUTUNE_BUDGET=0 GPUTUNE_MODE=tune GPUTUNE_CACHE_DIR="$TMP/cache0" shim "$H/minirt" --mix 2>&1)
check "GPUTUNE_BUDGET=0 is refused, with what is accepted: $out" \
    sh -c "echo \"\$1\" | grep -q 'GPUTUNE_BUDGET=0 .*a number of seconds over 0'" - "$out"

done_testing
