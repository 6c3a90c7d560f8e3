#!/bin/sh
# The guard, on the CPU against the stand-in driver, whose events read a
# function that prefers L1 as faster or slower as told (FAKECUDA_L1_*_MS):
# run mode checks each applied configuration against the original on the
# application's own launches, keeps one that is faster there, drops one
# that is not (said once, the original from then on), records either
# verdict in the cache file, and a later run leaves both alone; a kernel
# launched once per run is judged over several runs, unless its launches
# are too small a part of the run to matter.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
FAKE="$GT_BUILD/tests/fakecuda"
export GPUTUNE_CACHE_DIR="$TMP/cache"
export GPUTUNE_POLICY="$TMP/policy.ini"
# Only saxpy is tuned: the counts below are its three signatures' (what auto
# finds for the automatic spaces of the others is not this test's).
cat >"$GPUTUNE_POLICY" <<'INI'
[defaults]
unnamed = skip
[kernel "saxpy*"]
cache = default, l1
INI

# minirt under the shim in mode $1, log in $TMP/$2.log.
minirt() {
    LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=$1 GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/$2.log" shim "$H/minirt"
}

verdicts() {
    grep -h '^guard = ' "$TMP"/cache/minirt-*.ini | sort | uniq -c | sed 's/^ *//'
}

export FAKECUDA_L1_TRIAL_MS=0.2
out=$(FAKECUDA_L1_APP_MS=0.2 minirt tune tune)
is "$out" "minirt: done" "tune mode: the application runs"
is "$(grep -c "kernel saxpy.* tuned in .*: cache=l1 200.00 us against 250.00 us" "$TMP/tune.log")" 3 \
    "  every signature of saxpy tuned to cache=l1, faster in its trials"
check "  its first launches after the session are checked on the application's launches" \
    grep -q "runs 'cache=l1' from tuned now .*; checking it on the application's launches" "$TMP/tune.log"

is "$(grep -c "'cache=l1' is 1.25x as fast as the original on the application's own launches (6 and 6 timed); kept" \
    "$TMP/tune.log")" 3 \
    "  faster in the application too: each signature's configuration is kept, said once, as soon as six pairs are each 10% apart"
check "  the exit line states the effect, and its share of the time since the first launch" \
    grep -q "in the application: of 3 applied configurations checked on its own launches, 3 measured faster and kept (1.2[0-9]x over their [0-9]* launches, [0-9.]* ms of GPU time saved in [0-9.]* s since the first launch, [0-9.]*% of it)" \
    "$TMP/tune.log"
check "  and when the last verdict came, against the first launch" \
    grep -Eq "in the application: the last verdict on its launches came [0-9]+\.[0-9] s after its first launch" "$TMP/tune.log"
is "$(verdicts)" "3 guard = kept 1.250" "  the cache file records the verdicts"

out=$(FAKECUDA_L1_APP_MS=0.3 minirt run kept)
is "$out" "minirt: done" "run mode after that"
is "$(detail_of "$TMP/kept.log" "saxpy" applied)" 120 "  runs the kept configuration at every launch, unchecked"
check "  and says why" grep -q "in the application: 3 applied configurations run as kept by an earlier run's check" \
    "$TMP/kept.log"

rm -rf "$TMP/cache"
FAKECUDA_L1_APP_MS=0.2 GPUTUNE_GUARD=off minirt tune tune1 >/dev/null
out=$(FAKECUDA_L1_APP_MS=0.3 minirt run dropped)
is "$out" "minirt: done" "run mode, the configuration slower in the application: it runs"
is "$(grep -c "'cache=l1' is not faster than the original on the application's own launches (0.83x, 6 and 6 timed); the original runs from now on" \
    "$TMP/dropped.log")" 3 "  each signature's configuration is dropped, and said so once"
check "  the exit line counts them" grep -q "of 3 applied configurations checked on its own launches, none measured faster, 3 dropped as not faster" "$TMP/dropped.log"
is "$(verdicts)" "3 guard = dropped 0.833" "  the cache file records the new verdicts"
saxpy_applied=$(detail_of "$TMP/dropped.log" "saxpy" applied)
check "  most of saxpy's 120 launches ran the original ($saxpy_applied ran the configuration)" [ "$saxpy_applied" -le 30 ]

out=$(FAKECUDA_L1_APP_MS=0.2 minirt run after)
is "$out" "minirt: done" "a later run"
is "$(detail_of "$TMP/after.log" "saxpy" applied)" 0 "  does not try a dropped configuration again"
check "  and checks nothing" sh -c "! grep -q 'on the application.s own launches' '$TMP/after.log'"

rm -rf "$TMP/cache"
FAKECUDA_L1_APP_MS=0.2 GPUTUNE_GUARD=off minirt tune tune2 >/dev/null
out=$(GPUTUNE_GUARD=off FAKECUDA_L1_APP_MS=0.3 minirt run off)
is "$out" "minirt: done" "GPUTUNE_GUARD=off"
is "$(detail_of "$TMP/off.log" "saxpy" applied)" 120 "  every launch runs the configuration, unchecked"
check "  and no verdict is recorded" sh -c "! grep -q '^guard = ' '$TMP'/cache/minirt-*.ini"

rm -rf "$TMP/cache"
FAKECUDA_L1_APP_MS=0.2 GPUTUNE_GUARD=off minirt tune tune3 >/dev/null
out=$(FAKECUDA_L1_APP_MS=0.24 minirt run near)
is "$out" "minirt: done" "a configuration 4% faster on the application's launches"
is "$(grep -c "'cache=l1' is 1.04x as fast as the original on the application's own launches (12 and 12 timed); kept" \
    "$TMP/near.log")" 3 "  is kept once twelve pairs, every one faster, pass its test"

# A cache preference kept at one geometry of a kernel launched at two in
# turn is set on the function before each launch of that geometry and the
# application's own set back before each launch of the other: two host
# calls, which on a host ahead of nothing show in the GPU's time too
# (FAKECUDA_SWITCH_MS).  Timed so, the configuration (0.22 ms) runs at 0.26
# against the original's 0.25; its events hold both calls, so that it is
# dropped where it would slow the application.
spread() {
    LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=$1 GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/$2.log" shim "$H/minirt" \
        --spread 2 100
}
rm -rf "$TMP/cache"
FAKECUDA_L1_APP_MS=0.2 GPUTUNE_GUARD=off spread tune switch0 >/dev/null
awk '/^signature = / { two = / grid=2,/ } /^config = / && two { $0 = "config = cache=default" } { print }' \
    "$TMP"/cache/minirt-*.ini >"$TMP/switch.ini" && cp "$TMP/switch.ini" "$TMP"/cache/minirt-*.ini
out=$(FAKECUDA_SWITCH_MS=0.02 FAKECUDA_L1_APP_MS=0.22 spread run switch1)
is "$(echo "$out" | tail -1)" "minirt: done" "a cache preference at one of two geometries launched in turn: the application runs"
check "  the configuration is timed with the preference set and set back, and dropped" grep -q \
    "'cache=l1' is not faster than the original on the application's own launches (0.96x, 8 and 8 timed)" \
    "$TMP/switch1.log"
rm -rf "$TMP/cache"
FAKECUDA_L1_APP_MS=0.2 GPUTUNE_GUARD=off spread tune switch3 >/dev/null
cp "$TMP/switch.ini" "$TMP"/cache/minirt-*.ini
FAKECUDA_SWITCH_MS=0 FAKECUDA_L1_APP_MS=0.22 spread run switch4 >/dev/null
check "  where setting it costs nothing, the same configuration is kept" grep -q \
    "'cache=l1' is 1.14x as fast as the original on the application's own launches (6 and 6 timed); kept" \
    "$TMP/switch4.log"

# copy runs once per run: the first run only warms up, and each later one
# times one launch, in pairs as within a run, until 6 of each decide.
cat >"$GPUTUNE_POLICY" <<'INI'
[kernel "copy*"]
cache = default, l1
INI
rm -rf "$TMP/cache"
copies() {
    LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=$1 GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/$2.log" shim "$H/minirt" --copy
}
FAKECUDA_L1_APP_MS=0.2 GPUTUNE_GUARD=off copies tune copy0 >/dev/null
times=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do
    FAKECUDA_L1_APP_MS=0.2 copies run "copy$i" >/dev/null
    times="$times|$(grep -h '^guard' "$TMP"/cache/minirt-*.ini)"
done
is "$times" "|guard_times = /|guard_times = 250.000 /|guard_times = 250.000 / 200.000|guard_times = 250.000 / 200.000 200.000|guard_times = 250.000 250.000 / 200.000 200.000|guard_times = 250.000 250.000 250.000 / 200.000 200.000|guard_times = 250.000 250.000 250.000 / 200.000 200.000 200.000|guard_times = 250.000 250.000 250.000 250.000 / 200.000 200.000 200.000|guard_times = 250.000 250.000 250.000 250.000 / 200.000 200.000 200.000 200.000|guard_times = 250.000 250.000 250.000 250.000 250.000 / 200.000 200.000 200.000 200.000|guard_times = 250.000 250.000 250.000 250.000 250.000 / 200.000 200.000 200.000 200.000 200.000|guard_times = 250.000 250.000 250.000 250.000 250.000 250.000 / 200.000 200.000 200.000 200.000 200.000|guard = kept 1.250" \
    "a kernel launched once per run: its times carried from run to run in the cache file, in pairs, to a verdict"
check "  each run before it says so" grep -q "1 not judged yet (too few launches; 1 carry their times to the next run)" \
    "$TMP/copy12.log"
cp "$TMP"/cache/minirt-*.ini "$TMP/kept.ini"
sed -i 's|^guard = .*|guard_times = 250.000 / inf|' "$TMP"/cache/minirt-*.ini
FAKECUDA_L1_APP_MS=0.2 copies run copybad >/dev/null
check "  times in the cache file that do not read (inf): the entry is not used, said with its line" \
    grep -q "warn: .*(line 7) dropped: line 23: bad guard_times; tuned configurations from it are not used" \
    "$TMP/copybad.log"
cp "$TMP/kept.ini" "$TMP"/cache/minirt-*.ini
check "  the thirteenth run decides" grep -q "'cache=l1' is 1.25x as fast as the original on the application's own launches (6 and 6 timed); kept" \
    "$TMP/copy13.log"

# A fresh cache tuned by `$1 tune $2 info`, its entry at grid $3 then
# rewritten by the awk action $4 (sig: the entry's signature, at: grid $3's);
# the file in $f.
tuned_then() {
    rm -rf "$TMP/cache"
    FAKECUDA_L1_APP_MS=0.2 GPUTUNE_GUARD=off $1 tune "$2" info >/dev/null
    f=$(ls "$TMP"/cache/minirt-*.ini)
    awk -v at="grid=$3,1,1" "/^signature = / { sig = \$3 } $4" "$f" >"$TMP/edited.ini" && cp "$TMP/edited.ini" "$f"
}
ORIGINAL='/^config = / && sig == at { $0 = "config = cache=default" } { print }'

# copy at grid 16 once per run, at the end of 0.3 s of launches at grid 8,
# whose entry keeps the original: the first run only warms up; the second
# times its one launch, 0.2 or 0.25 ms of 0.3 s, too little to matter, and
# drops it; a third has nothing left to apply and stays out of the launches.
rare() {
    LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=$1 GPUTUNE_LOG=$3 GPUTUNE_LOG_FILE="$TMP/$2.log" shim "$H/minirt" \
        --copies 60 --pace 5 --late 1 $4
}
tuned_then rare rare0 8 "$ORIGINAL"
is "$(grep -c '^config = cache=l1$' "$f")" 1 "a rarely launched configuration: one entry applies, grid 16's"
FAKECUDA_L1_APP_MS=0.2 rare run rare1 info >/dev/null
is "$(grep -h '^guard' "$f")" "guard_times = /" "  its first run only warms up"
FAKECUDA_L1_APP_MS=0.2 rare run rare2 info >/dev/null
is "$(grep -h '^guard' "$f" | cut -d' ' -f1-3)" "guard = dropped" "  the second times its one launch and drops it"
check "  saying why" grep -Eq "kernel copy: launch grid=16,1,1 .*: 'cache=l1' dropped: its launches checked in this run took 0\.2(00|50) ms of the 0\.[3-9] s since the first launch, too little to gain what watching every launch costs" \
    "$TMP/rare2.log"
check "  and counting it at exit" grep -q "0 dropped as not faster, 1 as too rarely launched to matter (under 0.1% of the run), 0 not judged yet" \
    "$TMP/rare2.log"
is "$(FAKECUDA_L1_APP_MS=0.2 rare run rare3 warn --where | head -1)" "minirt: cuLaunchKernel from libcuda.so.1" \
    "  the third has nothing left to apply: the driver's own launches"

# A small gain on a kernel whose launches time alike (the stand-in's events
# are exact): decided after 32 of each, kept from 0.2% faster on.
many() {
    LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=$1 GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/$2.log" shim "$H/minirt" \
        --copies 100
}
for case in "0.249 kept" "0.2497 dropped"; do
    set -- $case
    rm -rf "$TMP/cache"
    FAKECUDA_L1_APP_MS=0.2 GPUTUNE_GUARD=off many tune "small0" >/dev/null
    FAKECUDA_L1_APP_MS=$1 many run "small_$2" >/dev/null
    is "$(grep -h '^guard = ' "$TMP"/cache/minirt-*.ini | cut -d' ' -f1-3)" "guard = $2" \
        "a configuration $(awk -v t="$1" 'BEGIN { printf "%.2f", (0.25 / t - 1) * 100 }')% faster on the application's launches is $2"
    check "  after 32 of each" grep -q "32 and 32 timed" "$TMP/small_$2.log"
done

# The same small gain (1 us a launch over 100 launches) in a run of 5000
# more launches of another geometry, whose entry keeps the original: 0.1 ms
# saved, less than the shim's path costs those launches at 60 ns each, so
# the configuration is dropped, and the next run leaves every launch to the
# driver.
unpaid() {
    LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=$1 GPUTUNE_LOG=$3 GPUTUNE_LOG_FILE="$TMP/$2.log" shim "$H/minirt" \
        --copies 100 --late "${LATE:-5000}" $4
}
tuned_then unpaid unpaid0 16 "$ORIGINAL"
FAKECUDA_L1_APP_MS=0.249 unpaid run unpaid1 info >/dev/null
is "$(grep -h '^guard = ' "$f")" "guard = dropped 1.004" \
    "a gain that does not pay for the launch path: dropped, with the gain it measured"
check "  saying why" grep -Eq "in the application: the 1 configurations measured faster saved 0\.[01][0-9] ms of GPU time, 0\.00 ms of it where the device was behind the host \(at 0% of the 20 launches sampled\), against 2 x the [0-9.]+ ms run mode's path adds to the 51[0-9][0-9] launches of this run \(([0-9]+ ns each: as|60 ns each: GT_GUARD_PATH_NS, above the [0-9]+ ns) measured on (19|20) of them\), 0\.[0-9]+ ms of it where the device waited for the host: dropped, so that run mode leaves the launches to the driver" \
    "$TMP/unpaid1.log"
check "  and what the path measured, one launch in 256" grep -Eq "launch path: [0-9]+ ns of host time a launch beside the driver's own, the median of the last (19|20) launches timed \(one in 256; [0-9]+ more left out, as made while a guard judged, timed with events or waiting for a session\)" \
    "$TMP/unpaid1.log"
check "  and counting it at exit" grep -q "of 1 applied configurations checked on its own launches, 1 measured faster and dropped as saving too little for the launch path (1.00x over their 100 launches" \
    "$TMP/unpaid1.log"
is "$(FAKECUDA_L1_APP_MS=0.249 unpaid run unpaid2 warn --where | head -1)" "minirt: cuLaunchKernel from libcuda.so.1" \
    "  the next run has nothing left to apply: the driver's own launches"

# The same gain where the device is behind the host at every launch sampled (each stream still holds
# earlier work when asked): the path's host time is hidden behind the device's queue, and the gain is
# the run's, so the configuration is kept, saying why.
tuned_then unpaid busy0 16 "$ORIGINAL"
FAKECUDA_STREAMS_BUSY=1 FAKECUDA_L1_APP_MS=0.249 unpaid run busy1 info >/dev/null
is "$(grep -h '^guard = ' "$f")" "guard = kept 1.004" "a small gain where the host runs ahead of the device: kept"
check "  saying why" grep -Eq "saved (0\.[01][0-9]) ms of GPU time, \\1 ms of it where the device was behind the host \(at 100% of the 20 launches sampled\), against 2 x the [0-9.]+ ms run mode's path adds to the 51[0-9][0-9] launches of this run \(.*\), 0\.00 ms of it where the device waited for the host: kept" \
    "$TMP/busy1.log"

# Over 1150 more launches (a path of 0.075 ms at 60 ns each, too few
# launches timed for a figure of their own) the 0.1 ms saved pays for the
# path once, not twice: dropped; over 600 (0.042 ms) it pays twice over:
# kept, unless GPUTUNE_PATH_NS charges each launch more.
for case in "1150 dropped" "600 kept" "600 dropped 1000"; do
    set -- $case
    tuned_then unpaid "pay$1" 16 "$ORIGINAL"
    GPUTUNE_PATH_NS=${3-} LATE=$1 FAKECUDA_L1_APP_MS=0.249 unpaid run "pay$1.run" info >/dev/null
    is "$(grep -h '^guard = ' "$f" | cut -d' ' -f1-3)" "guard = $2" \
        "  the gain against twice the path of $1 more launches${3:+ at GPUTUNE_PATH_NS=$3}: $2"
done
check "  at GPUTUNE_PATH_NS, saying so" grep -q "ms run mode's path would add to the 70[0-9] launches of this run (1000 ns each: GPUTUNE_PATH_NS)" \
    "$TMP/pay600.run.log"
check "  and at the floor where too few launches were timed" grep -Eq "the 12[0-9][0-9] launches of this run \(60 ns each: GT_GUARD_PATH_NS, with 4 launches measured, too few\)" \
    "$TMP/pay1150.run.log"

# The same, with grid 16's configuration kept by an earlier run: run mode
# stays in the path for it anyway, so the small gain costs nothing more and
# is kept.
tuned_then unpaid unpaid3 16 '{ print } /^config = / && sig == at { print "guard = kept 1.250" }'
FAKECUDA_L1_APP_MS=0.249 unpaid run unpaid4 info >/dev/null
is "$(grep -h '^guard = ' "$f" | sort)" "guard = kept 1.004
guard = kept 1.250" "  where an earlier run's kept configuration keeps run mode in the path anyway, the small gain is kept"

# And with GPUTUNE_FORCE, which keeps run mode in the path too.
tuned_then unpaid unpaid5 16 "$ORIGINAL"
GPUTUNE_FORCE='saxpy* cache=l1' FAKECUDA_L1_APP_MS=0.249 unpaid run unpaid6 info >/dev/null
is "$(grep -h '^guard = ' "$f")" "guard = kept 1.004" "  and where GPUTUNE_FORCE does"

# A launch of a kernel the guard still judges reads and weighs the times that finished, which the
# runs after the verdict do not: its sample of the path is left out too, timed or not.  With events
# that complete only at the exit's synchronization the guard judges grid 8 until then, its window of
# timed launches spent after 18, so the samples at its 256th and 512th launch come from untimed
# launches it still judges; 5000 launches at grid 16 (the original) give the figure.
tuned_then unpaid judging0 16 "$ORIGINAL"
FAKECUDA_EVENTS_PENDING=1 LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=run GPUTUNE_LOG=info \
    GPUTUNE_LOG_FILE="$TMP/judging1.log" shim "$H/minirt" --copies 600 --late 5000 >/dev/null
check "the launch path's samples made while the guard judges are left out, timed or not" \
    grep -Eq "\(one in 256; [2-9] more left out, as made while a guard judged" "$TMP/judging1.log"

# No stream is asked whether it is busy while a capture runs, where the query would break the
# capture (the stand-in refuses it then, and the capture's end fails): the captured launch, after
# each of 16 counts of launches before it, lands on the probe's turn in one of them (at info, where
# run mode watches every launch).
bad=
for k in $(seq 120 135); do
    LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=run GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/capture1.log" shim "$H/minirt" --graph \
        --eager "$k" >"$TMP/capture1.out" 2>&1 || bad="$bad $k"
done
is "$bad" "" "no stream queried while a capture runs: every capture ends, whatever launch it comes at"

# Launches that time unevenly (a 2% spread, each read another step of a
# cycle): each pair's two launches differ by the cycle's step, the same
# either way round.  A gain of 0.4% shows in every pair alike and is kept
# once 32 pairs are read; no gain is dropped as soon as the pairs show it.
for case in "0.249 kept 32" "0.25 dropped 8"; do
    set -- $case
    rm -rf "$TMP/cache"
    FAKECUDA_L1_APP_MS=0.2 GPUTUNE_GUARD=off LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=tune GPUTUNE_LOG_FILE="$TMP/j0.log" \
        shim "$H/minirt" --copies 200 >/dev/null
    FAKECUDA_JITTER=0.02 FAKECUDA_L1_APP_MS=$1 LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=run GPUTUNE_LOG=info \
        GPUTUNE_LOG_FILE="$TMP/jitter_$2.log" shim "$H/minirt" --copies 200 >/dev/null
    is "$(grep -h '^guard = ' "$TMP"/cache/minirt-*.ini | cut -d' ' -f1-3)" "guard = $2" \
        "$(awk -v t="$1" 'BEGIN { printf "%.1f", (0.25 / t - 1) * 100 }')% faster, times spread by 2%: $2"
    check "  after $3 of each" grep -q "$3 and $3 timed" "$TMP/jitter_$2.log"
done

# A kernel launched from four places an iteration whose times differ (the
# middle two 0.6 as long), and a configuration exactly as fast as the
# original: checked in the fixed order ABBA, the middle places always ran
# the configuration and it read 1.67x faster; in pairs whose order is drawn,
# both sides run at every place and it is dropped.
rm -rf "$TMP/cache"
FAKECUDA_L1_APP_MS=0.2 GPUTUNE_GUARD=off LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=tune GPUTUNE_LOG_FILE="$TMP/p0.log" \
    shim "$H/minirt" --copies 200 >/dev/null
FAKECUDA_PLACES=1,0.6,0.6,1 FAKECUDA_L1_APP_MS=0.25 LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=run GPUTUNE_LOG=info \
    GPUTUNE_LOG_FILE="$TMP/places.log" shim "$H/minirt" --copies 200 >/dev/null
is "$(grep -h '^guard = ' "$TMP"/cache/minirt-*.ini | cut -d' ' -f1-3)" "guard = dropped" \
    "a configuration no faster, launched from four places of unequal times: dropped"

# A host that queues every launch ahead of the GPU (the stand-in's events
# complete only at a synchronization, as behind long kernels): no time is
# read while it launches, and none after its last launch.  The launches
# alternate only while 18 timed ones are unread (after one untimed of
# each); the rest run the configuration.  At exit, after the application's
# synchronization, the guard reads them and keeps it; a later run runs it
# unchecked.
ahead() {
    LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=$1 GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/$2.log" shim "$H/minirt" \
        --copies 30 $3
}
rm -rf "$TMP/cache"
FAKECUDA_L1_APP_MS=0.2 GPUTUNE_GUARD=off ahead tune ahead0 >/dev/null
out=$(FAKECUDA_EVENTS_PENDING=1 FAKECUDA_L1_APP_MS=0.2 FAKECUDA_LAUNCHES="$TMP/ahead.launches" ahead run ahead1)
is "$out" "minirt: done" "a host ahead of the GPU: the application runs"
is "$(grep -c ' l1$' "$TMP/ahead.launches")/$(wc -l <"$TMP/ahead.launches")" "20/30" \
    "  10 of its 30 launches run the original (1 untimed, 9 timed), the other 20 the configuration"
check "  the guard reads the times at exit and keeps it" grep -q \
    "'cache=l1' is 1.25x as fast as the original on the application's own launches (9 and 9 timed); kept" \
    "$TMP/ahead1.log"
is "$(grep -h '^guard = ' "$TMP"/cache/minirt-*.ini | cut -d' ' -f1-4)" "guard = kept 1.250" "  and records it"
rm -f "$TMP/ahead.launches"
FAKECUDA_EVENTS_PENDING=1 FAKECUDA_L1_APP_MS=0.2 FAKECUDA_LAUNCHES="$TMP/ahead.launches" ahead run ahead2 >/dev/null
is "$(grep -c ' l1$' "$TMP/ahead.launches")" 30 "  the next run runs it at every launch, unchecked"

# The device's primary context reset right after the launches, before any
# completed: its events go with it, and nothing of the shim's touches them
# after (the stand-in says so on stderr when something does).
rm -rf "$TMP/cache"
FAKECUDA_L1_APP_MS=0.2 GPUTUNE_GUARD=off ahead tune reset0 >/dev/null
out=$(FAKECUDA_EVENTS_PENDING=1 FAKECUDA_L1_APP_MS=0.2 ahead run reset1 --reset 2>"$TMP/reset1.err")
is "$out/$(cat "$TMP/reset1.err")" "minirt: done/" "a context reset with the guard's events pending: no event of it is used after"
check "  the configuration is not judged in that run" \
    grep -q "of 1 applied configurations checked on its own launches, none measured faster, 0 dropped as not faster, 0 as too rarely launched to matter (under 0.1% of the run), 1 not judged yet" \
    "$TMP/reset1.log"

# The application's own retain of the primary context released last, right
# after the launches, as a driver-API program ends: the release takes the
# context and the guard's events with it, so they are read before it.
rm -rf "$TMP/cache"
FAKECUDA_L1_APP_MS=0.2 GPUTUNE_GUARD=off ahead tune release0 >/dev/null
out=$(FAKECUDA_EVENTS_PENDING=1 FAKECUDA_L1_APP_MS=0.2 ahead run release1 --release 2>"$TMP/release1.err")
is "$out/$(cat "$TMP/release1.err")" "minirt: done/" "the primary context's last release with the guard's events pending: no event of it is used after"
check "  the configuration is not judged in that run" \
    grep -q "1 not judged yet" "$TMP/release1.log"

done_testing
