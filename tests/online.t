#!/bin/sh
# GPUTUNE_MODE=online, on the CPU against the stand-in driver, whose events
# time a function preferring L1 at FAKECUDA_L1_APP_MS and any other launch
# at 0.25 ms: each signature's launch-time knobs take turns on the
# application's own launches, without one synchronization or copy (those
# calls fail here, and tune mode's sessions, which need them, fail), the
# fastest is kept, checked by the guard and written to the cache file, and
# the original stays where nothing beats it.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
export LD_LIBRARY_PATH="$GT_BUILD/tests/fakecuda" GPUTUNE_POLICY="$TMP/policy.ini"
cat >"$GPUTUNE_POLICY" <<'INI'
[kernel "*saxpy*"]
cache = default, shared, l1, equal
INI
NOSYNC=cuStreamSynchronize,cuStreamSynchronize_ptsz,cuEventSynchronize,cuMemcpyDtoDAsync_v2,cuMemcpyDtoD_v2

# minirt in mode $1, logged in $TMP/$2.log, with the cache of suffix $3.
minirt() {
    GPUTUNE_MODE=$1 GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/$2.log" GPUTUNE_CACHE_DIR="$TMP/cache$3" shim "$H/minirt"
}

out=$(FAKECUDA_FAIL=$NOSYNC FAKECUDA_L1_APP_MS=0.2 minirt online on)
is "$out" "minirt: done" "online mode: the application runs"
is "$(grep -c "kernel saxpy.* tuned online over 17 launches: cache=l1 200.00 us against 250.00 us, 1.25x" \
    "$TMP/on.log")" 3 \
    "  each signature of saxpy: the original and three other cache preferences, four turns each after one untimed launch"
is "$(grep -c "'cache=l1' is 1.25x as fast as the original on the application's own launches (6 and 6 timed); kept" \
    "$TMP/on.log")" 3 "  then checked by the guard on the launches that follow"
is "$(grep ' warn: \| error: ' "$TMP/on.log")" "" "  without a synchronization or a copy of the shim's own (they would fail)"
is "$(grep -c '^strategy = online' "$TMP"/cache/minirt-*.ini)" 3 "  the results are written to the cache file"
check "  the exit table counts every launch, those tried online too" \
    grep -q ' info: *120 *3 .*saxpy' "$TMP/on.log"

out=$(FAKECUDA_FAIL=$NOSYNC FAKECUDA_L1_APP_MS=0.2 minirt tune tune tune)
check "where tune mode's sessions fail" grep -q "not tuned: saving its buffers failed" "$TMP/tune.log"

out=$(FAKECUDA_L1_APP_MS=0.3 minirt run run)
is "$out" "minirt: done" "a later run in run mode"
is "$(grep -c "runs 'cache=l1' from the cache .*kept by an earlier run's check" "$TMP/run.log")" 3 \
    "  applies the three results, unchecked since the guard kept them"

out=$(FAKECUDA_L1_APP_MS=0.27 minirt online slower slower)
is "$(grep -c "kernel saxpy.* tuned online over 17 launches: the original 250.00 us against 250.00 us, 1.00x" \
    "$TMP/slower.log")" 3 "where L1 is slower, the original stays"
is "$(grep -h '^config = ' "$TMP"/cacheslower/minirt-*.ini | sort -u)" "config = cache=default" \
    "  and is written as the result"
out=$(FAKECUDA_L1_APP_MS=0.27 minirt online again slower)
check "  a later online run does not try again" sh -c "! grep -q 'tuned online' '$TMP/again.log'"

out=$(FAKECUDA_L1_APP_MS=0.2497 minirt online draw draw)
is "$(grep -c "kernel saxpy.* tuned online over 17 launches: the original 250.00 us against 250.00 us, 1.00x \
('cache=l1' read 249.70 us, within the 0.2% the guard keeps a gain from)" "$TMP/draw.log")" 3 \
    "where L1 is faster by less than the guard's least gain, the original stays, and the line says why"
is "$(grep -c "as fast as the original on the application's own launches" "$TMP/draw.log")" 0 \
    "  and the guard has nothing to check"
is "$(grep -h '^config = ' "$TMP"/cachedraw/minirt-*.ini | sort -u)" "config = cache=default" \
    "  the original is written as the result"

# A knob that makes the kernel ten times slower gets one turn, not four.
out=$(FAKECUDA_L1_APP_MS=2.5 GT_LOG_LEVEL=debug GPUTUNE_LOG=debug GPUTUNE_MODE=online \
    GPUTUNE_LOG_FILE="$TMP/hopeless.log" GPUTUNE_CACHE_DIR="$TMP/cachehopeless" shim "$H/minirt")
is "$out" "minirt: done" "a knob ten times slower: the application runs"
is "$(grep -c "kernel saxpy.*: online, a configuration 10.00x slower than the original (2500.00 us against 250.00 us) \
gets no more turns" "$TMP/hopeless.log")" 3 "  that knob gets no more turns after its first"
is "$(grep -c "kernel saxpy.* tuned online over 14 launches: the original" "$TMP/hopeless.log")" 3 \
    "  so its three other turns are the application's own launches, untimed"
check "  the exit report says how many were decided on the launches, when the last, and how many at exit" grep -Eq \
    "online mode: 3 signatures decided on the application's launches, the last [0-9]+\.[0-9] s after its first launch; 0 more decided at exit" \
    "$TMP/hopeless.log"

# Knobs that need a variant (a register limit here) are built from the
# kernel's PTX on the shim's threads while the application's launches run
# the original, then take their turns like the others; the stand-in driver
# times a variant at FAKECUDA_MODULE_APP_MS on the application's stream.
cat >"$TMP/copy.ini" <<'INI'
[kernel "copy"]
maxrreg = default, 32, 64
INI
online_copies() {
    GPUTUNE_POLICY="$TMP/copy.ini" GPUTUNE_WATCHDOG=off GPUTUNE_MODE=$1 GPUTUNE_LOG=debug \
        GPUTUNE_LOG_FILE="$TMP/$2.log" GPUTUNE_CACHE_DIR="$TMP/cache$3" shim "$H/minirt" --copies 1500 --pace 2
}
out=$(FAKECUDA_FAIL=$NOSYNC FAKECUDA_MODULE_APP_MS=0.2 online_copies online var var)
is "$out" "minirt: done" "online mode, a register limit to try: the application runs"
check "  both variants are tried, four turns each, both beat the original and race it again, eight turns each" grep -q \
    "kernel copy: launch grid=8,1,1 block=256,1,1 smem=0 tuned online over 37 launches: maxrreg=32 200.00 us against 250.00 us, 1.25x" \
    "$TMP/var.log"
check "  then checked by the guard" grep -q "'maxrreg=32' is 1.25x as fast as the original .*; kept" "$TMP/var.log"
is "$(grep -c 'variant built' "$TMP/var.log")" 0 "  the guard runs the variant the turns ran: no second build"
turns=$(sed -n 's/.* \([0-9]*\) in tuning turns or before their signature was decided.*/\1/p' "$TMP/var.log")
check "  while the variants build, the launches run the original as remembered: about the 37 of its turns asked the trial ($turns)" \
    test "${turns:-99}" -le 42
is "$(grep ' warn: \| error: ' "$TMP/var.log")" "" "  without a synchronization or a copy of the shim's own"
check "  the cache file names the variant's cubin in the store" grep -q '^cubin = [0-9a-f]\{32\}$' "$TMP"/cachevar/minirt-*.ini
key=$(sed -n 's/^cubin = //p' "$TMP"/cachevar/minirt-*.ini | head -1)
check "  which is there" test -s "$TMP/cachevar/cubins/$key.cubin"
out=$(FAKECUDA_MODULE_APP_MS=0.2 GPUTUNE_POLICY="$TMP/copy.ini" GPUTUNE_WATCHDOG=off GPUTUNE_MODE=run GPUTUNE_LOG=debug \
    GPUTUNE_LOG_FILE="$TMP/varrun.log" GPUTUNE_CACHE_DIR="$TMP/cachevar" shim "$H/minirt" --copies 20)
check "a later run in run mode applies it, out of the store" grep -q "runs 'maxrreg=32' from the cache" "$TMP/varrun.log"
check "  without building it again" sh -c "! grep -q 'building it' '$TMP/varrun.log'"

# Two knobs that each beat the original are tried together in a second
# stage, against each of the two and the original, eight turns each;
# the stand-in driver times a variant that prefers L1 at FAKECUDA_BOTH_APP_MS.
cat >"$TMP/two.ini" <<'INI'
[kernel "copy"]
cache = default, l1
maxrreg = default, 32
INI
two_knobs() {
    FAKECUDA_FAIL=$NOSYNC FAKECUDA_L1_APP_MS=0.22 FAKECUDA_MODULE_APP_MS=0.2 FAKECUDA_BOTH_APP_MS=$1 \
        GPUTUNE_POLICY="$TMP/two.ini" GPUTUNE_WATCHDOG=off GPUTUNE_MODE=online GPUTUNE_LOG=debug \
        GPUTUNE_LOG_FILE="$TMP/$2.log" GPUTUNE_CACHE_DIR="$TMP/cache$2" shim "$H/minirt" --copies 1500 --pace 2
}
out=$(two_knobs 0.15 both)
is "$out" "minirt: done" "two knobs that each help: the application runs"
check "  both together are tried in a second stage and kept" grep -q \
    "kernel copy: .* tuned online over 45 launches: cache=l1 maxrreg=32 150.00 us against 250.00 us, 1.67x" "$TMP/both.log"
check "  then checked by the guard" grep -q "'cache=l1 maxrreg=32' is 1.67x as fast as the original .*; kept" \
    "$TMP/both.log"
is "$(grep ' warn: \| error: ' "$TMP/both.log")" "" "  without a synchronization or a copy of the shim's own"
is "$(grep -c "online, second stage: 'cache=l1 maxrreg=32' 150.00 us (median of 8)" "$TMP/both.log")" 1 \
    "  its median listed once at debug, though no second round follows (none of its neighbours is new)"
out=$(two_knobs 0.26 worse)
check "where together they are slower, the faster alone is kept" grep -q \
    "kernel copy: .* tuned online over 45 launches: cache=default maxrreg=32 200.00 us against 250.00 us, 1.25x" "$TMP/worse.log"

# A round whose choice is not the original is followed by a second from
# it: the configurations one knob away from the choice that no stage tried
# yet, beside it and the original, four turns each; none beats it here
# (the stand-in times every variant preferring L1 alike), so it stays.
cat >"$TMP/three.ini" <<'INI'
[kernel "copy"]
cache = default, l1, shared
maxrreg = default, 32, 64
INI
out=$(FAKECUDA_FAIL=$NOSYNC FAKECUDA_L1_APP_MS=0.22 FAKECUDA_MODULE_APP_MS=0.2 FAKECUDA_BOTH_APP_MS=0.15 \
    GPUTUNE_POLICY="$TMP/three.ini" GPUTUNE_WATCHDOG=off GPUTUNE_MODE=online GPUTUNE_LOG=debug \
    GPUTUNE_LOG_FILE="$TMP/round.log" GPUTUNE_CACHE_DIR="$TMP/cacheround" shim "$H/minirt" --copies 1500 --pace 2)
is "$out" "minirt: done" "a second round: the application runs"
check "  it starts from the first round's choice, with the two configurations one knob away not tried yet" grep -q \
    "kernel copy: launch .*: online, a second round from 'cache=l1 maxrreg=32', 2 configurations one knob away" \
    "$TMP/round.log"
check "  which take their turns beside it and the original" grep -q \
    "online, first stage: 'cache=shared maxrreg=32' 200.00 us (median of 4)" "$TMP/round.log"
check "  and the choice stays, 16 launches later" grep -q \
    "kernel copy: .* tuned online over 77 launches: cache=l1 maxrreg=32 150.00 us against 250.00 us, 1.67x" \
    "$TMP/round.log"
is "$(grep -c 'a second round' "$TMP/round.log")" 1 "  one second round, no third"
check "  the variants of the four candidates not chosen are unloaded once their launches are read" grep -q \
    "kernel copy: .*: online, the variants of 4 candidates not chosen unloaded" "$TMP/round.log"
check "  the chosen one's is kept: the guard runs it" grep -q \
    "'cache=l1 maxrreg=32' is 1.67x as fast as the original .*; kept" "$TMP/round.log"

# A run that ends before its second stage has had all its turns (here 36
# launches, too few for the second stage's 25 whatever its build takes; the
# first stage's variants come from the store, built by two runs before)
# decides on the first stage: the second stage's combination of knobs may
# differ from run to run, and such a run would otherwise decide nothing.
printf '[kernel "copy"]\nmaxrreg = default, 32\n' >"$TMP/m.ini"
printf '[kernel "copy"]\ndlcm = default, cg\n' >"$TMP/d.ini"
printf '[kernel "copy"]\nmaxrreg = default, 32\ndlcm = default, cg\n' >"$TMP/md.ini"
short() {
    FAKECUDA_FAIL=$NOSYNC FAKECUDA_MODULE_APP_MS=0.2 GPUTUNE_POLICY="$TMP/$1.ini" GPUTUNE_WATCHDOG=off \
        GPUTUNE_MODE=online GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/short$1.log" GPUTUNE_CACHE_DIR="$TMP/cacheshort" \
        shim "$H/minirt" --copies $2 --pace 2
}
short m 300 >/dev/null
short d 300 >/dev/null
rm -f "$TMP"/cacheshort/*.ini
is "$(short md 36)" "minirt: done" "a run too short for the second stage: the application runs"
check "  the signature is decided on the first stage" grep -q \
    "kernel copy: .* tuned online over [0-9]* launches: maxrreg=32 dlcm=default 200.00 us against 250.00 us, 1.25x" \
    "$TMP/shortmd.log"
check "  said at debug" grep -q "online, decided on the stage before: the last one had not had all its turns" \
    "$TMP/shortmd.log"
check "  the exit report counts it among those decided at exit" grep -Eq \
    "online mode: (no signature decided on the application's launches|[0-9]+ signatures decided on the application's launches, .*); 1 (more )?decided at exit" \
    "$TMP/shortmd.log"
is "$(grep -h '^config = ' "$TMP"/cacheshort/*.ini)" "config = maxrreg=32 dlcm=default" "  and written to the cache file"
is "$(grep ' warn: \| error: ' "$TMP/round.log")" "" "  without a synchronization or a copy of the shim's own"

out=$(FAKECUDA_FAIL=$NOSYNC,cuModuleLoadData FAKECUDA_MODULE_APP_MS=0.2 online_copies online varfail varfail)
is "$out" "minirt: done" "variants that cannot be loaded: the application runs"
check "  each says why, at debug" grep -q "kernel copy: online, 'maxrreg=32' cannot be tried: cuModuleLoadData failed" \
    "$TMP/varfail.log"
check "  and gives its turns back: the original stays" grep -q \
    "kernel copy: .* tuned online over 5 launches: the original 250.00 us against 250.00 us, 1.00x" "$TMP/varfail.log"

# An application on two contexts (two devices, say), its launches taking
# turns between them: the trial goes on with the launches of the context
# it started in, to which its events and variants belong, and the others
# run the original; nothing of the shim's reaches the other context (the
# stand-in says so on stderr when a launch or an event record does).
out=$(FAKECUDA_FAIL=$NOSYNC FAKECUDA_L1_APP_MS=0.22 FAKECUDA_MODULE_APP_MS=0.2 FAKECUDA_BOTH_APP_MS=0.15 \
    GPUTUNE_POLICY="$TMP/two.ini" GPUTUNE_WATCHDOG=off GPUTUNE_MODE=online GPUTUNE_LOG=info \
    GPUTUNE_LOG_FILE="$TMP/twoctx.log" GPUTUNE_CACHE_DIR="$TMP/cachetwoctx" shim "$H/minirt" --copies 400 --pace 1 \
    --two-contexts 2>"$TMP/twoctx.err")
is "$out/$(cat "$TMP/twoctx.err")" "minirt: done/" \
    "an application on two contexts: it runs, and nothing of the shim's reaches the other context"
check "  the trial is decided on the launches of the first" grep -q \
    "kernel copy: .* tuned online over 45 launches: cache=l1 maxrreg=32 150.00 us against 250.00 us, 1.67x" \
    "$TMP/twoctx.log"

# A host ahead of the GPU (the stand-in's events complete only at a
# synchronization): none of the turns' times can be read while the
# application launches, and its launches end with the last turn.  At exit,
# after its synchronization, the turns are read, the stage decided and the
# result written.
cat >"$TMP/l1.ini" <<'INI'
[kernel "copy"]
cache = default, l1
INI
out=$(FAKECUDA_EVENTS_PENDING=1 FAKECUDA_L1_APP_MS=0.2 GPUTUNE_POLICY="$TMP/l1.ini" GPUTUNE_MODE=online \
    GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/ahead.log" GPUTUNE_CACHE_DIR="$TMP/cacheahead" shim "$H/minirt" --copies 9)
is "$out" "minirt: done" "a host ahead of the GPU, its launches just enough for the turns: the application runs"
check "  the turns are read at exit and decided" grep -q \
    "kernel copy: launch .* tuned online over 9 launches: cache=l1 200.00 us against 250.00 us, 1.25x" "$TMP/ahead.log"
is "$(grep -h '^config = ' "$TMP"/cacheahead/minirt-*.ini 2>/dev/null)" "config = cache=l1" "  and the result written"

# The device's primary context reset while a signature is being tried,
# its timed launches not done yet (the stand-in's events complete only at
# a synchronization), then more launches of the kernel: the trial lets go
# of its events before they go, never touches them after (the stand-in
# says so on stderr when something does), and ends with the original,
# writing nothing, so that a later run tunes it afresh.
out=$(FAKECUDA_EVENTS_PENDING=1 FAKECUDA_L1_APP_MS=0.2 GPUTUNE_POLICY="$TMP/l1.ini" GPUTUNE_MODE=online \
    GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/reset.log" GPUTUNE_CACHE_DIR="$TMP/cachereset" shim "$H/minirt" \
    --copies 6 --reset --after 20 2>"$TMP/reset.err")
is "$out/$(cat "$TMP/reset.err")" "minirt: done/" \
    "a context reset while tuning online: the application runs, and no event of that context is used after"
check "  the original stays, and says why" grep -q \
    "kernel copy: launch .*: its context was torn down while it was tuned online; the original stays" "$TMP/reset.log"
is "$(cat "$TMP"/cachereset/minirt-*.ini 2>/dev/null | grep -c '^config = ')" 0 "  nothing is written for it"

# A kernel whose signatures all run the original and take no turn for
# online.settle seconds settles: its launches pass untouched from then on,
# and a geometry it meets afterwards runs the original, untried and not
# written, for a later run to tune.  With online.settle = 0 it never settles
# and the late geometry is tried.
for settle in 0.1 0; do
    cat >"$TMP/settle.ini" <<INI
[kernel "copy"]
cache = default, l1
online.settle = $settle
INI
    out=$(FAKECUDA_L1_APP_MS=0.27 GPUTUNE_POLICY="$TMP/settle.ini" GPUTUNE_MODE=online GPUTUNE_LOG=info \
        GPUTUNE_LOG_FILE="$TMP/settle$settle.log" GPUTUNE_CACHE_DIR="$TMP/cachesettle$settle" shim "$H/minirt" \
        --copies 400 --pace 1 --late 40)
    is "$out" "minirt: done" "online.settle = $settle: the application runs"
done
is "$(grep -c 'kernel copy: launch grid=8,.* tuned online over 9 launches: the original' "$TMP/settle0.1.log")" 1 \
    "  settling: the first geometry is tried and keeps the original"
check "  the kernel settles" grep -q "online mode: 1 kernels settled" "$TMP/settle0.1.log"
is "$(grep -c 'grid=16,.* tuned online' "$TMP/settle0.1.log")" 0 "  the geometry met afterwards is not tried"
is "$(grep -c '^config = ' "$TMP"/cachesettle0.1/minirt-*.ini)" 1 "  nor written"
check "  never settling: the late geometry is tried" grep -q \
    "kernel copy: launch grid=16,.* tuned online over 9 launches: the original" "$TMP/settle0.log"
check "  and nothing settles" sh -c "! grep -q 'settled' '$TMP/settle0.log'"
is "$(grep -c '^config = ' "$TMP"/cachesettle0/minirt-*.ini)" 2 "  both are written"

# No preference for the cache runs exactly as the kernel's own where the
# application set none: it takes no turns (two arms, nine launches, as for
# `default, l1` above).
cat >"$TMP/none.ini" <<'INI'
[kernel "copy"]
cache = default, none, l1
INI
out=$(FAKECUDA_L1_APP_MS=0.27 GPUTUNE_POLICY="$TMP/none.ini" GPUTUNE_MODE=online GPUTUNE_LOG=info \
    GPUTUNE_LOG_FILE="$TMP/none.log" GPUTUNE_CACHE_DIR="$TMP/cachenone" shim "$H/minirt" --copies 20)
check "cache = none where the application set no preference: not tried" grep -q \
    "kernel copy: launch grid=8,.* tuned online over 9 launches: the original" "$TMP/none.log"

# A turn that sets a cache preference on the function sets the
# application's own back before its end is recorded: both host calls,
# which on a host ahead of nothing are the GPU's time too
# (FAKECUDA_SWITCH_MS), are in its time, as a kept preference pays them
# where the function's launches at other geometries run another one.
for sw in 0.02 0; do
    out=$(FAKECUDA_SWITCH_MS=$sw FAKECUDA_L1_APP_MS=0.22 GPUTUNE_MODE=online GPUTUNE_LOG=info \
        GPUTUNE_LOG_FILE="$TMP/switch$sw.log" GPUTUNE_CACHE_DIR="$TMP/cacheswitch$sw" shim "$H/minirt" --spread 2 200)
done
is "$(grep -c "kernel saxpy.* tuned online over 17 launches: the original 250.00 us against 250.00 us, 1.00x" \
    "$TMP/switch0.02.log")" 2 "L1 faster by less than setting the preference and setting it back costs: the original stays"
is "$(grep -c "kernel saxpy.* tuned online over 17 launches: cache=l1 220.00 us against 250.00 us, 1.14x" \
    "$TMP/switch0.log")" 2 "  where setting it costs nothing, L1 is chosen"

# The launch path's figure is its steady state's: a sampled launch that a
# turn timed with events is left out of it, and counted.
GPUTUNE_MODE=online GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/path.log" GPUTUNE_CACHE_DIR="$TMP/cachepath" \
    shim "$H/minirt" --spread 140 300 >/dev/null
check "the launch path's figure leaves out the sampled launches that took turns" \
    grep -Eq "launch path: [0-9]+ ns of host time a launch beside the driver's own, the median of the last [0-9]+ launches timed \(one in 256; [1-9][0-9]* more left out, as made while a guard judged, timed with events or waiting for a session\)" \
    "$TMP/path.log"

done_testing
