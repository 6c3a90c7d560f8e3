#!/bin/sh
# Tune mode on the CPU, against the stand-in driver: trial sessions run
# (nothing is really computed, every trial takes as long), results go to
# the cache file and the report, launches from other threads wait for
# sessions, and every failure of the cache file leaves the application's
# run intact.  The GPU tests check what the trials find on a real device.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
FAKE="$GT_BUILD/tests/fakecuda"
export GPUTUNE_CACHE_DIR="$TMP/cache"
FORMAT=$(sed -n 's/^#define GPUTUNE_CACHE_FORMAT //p' "$GT_SRC/include/gputune.h")

# minirt under the shim in mode $1, log in $TMP/$2.log, minirt's arguments after.
minirt() {
    mode=$1 log=$2
    shift 2
    LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=$mode GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/$log.log" shim "$H/minirt" "$@"
}

plain=$(LD_LIBRARY_PATH="$FAKE" "$H/minirt" --threads 3)
is "$(GPUTUNE_REPORT="$TMP/report.csv" minirt tune tune --threads 3)" "$plain" "tune mode: the application's output is unchanged"
is "$(grep -c ' tuned in ' "$TMP/tune.log")" 7 "every launch signature is tuned once"
is "$(table_field "$TMP/tune.log" 1 "saxpy(")" 3120 "every launch still counted, from 3 threads waiting for sessions"
check "a launch the application gets wrong is not tuned, quietly" sh -c "! grep -q 'block=4096.*not tuned' '$TMP/tune.log'"
check "the exit report lists the tuned kernels" grep -q 'baseline .* best .* speedup .* trials' "$TMP/tune.log"
is "$(tail -n +2 "$TMP/report.csv" | wc -l | tr -d ' ')" 7 "GPUTUNE_REPORT: one CSV row per tuned signature"
check "with the columns it promises" grep -q '^kernel,signature,baseline_us,best_us,speedup,trials,invalid,verify_failures,aborted,space,strategy,seconds,compile_s,trial_s,snapshot_s,configuration$' "$TMP/report.csv"
cache=$(ls "$TMP"/cache/minirt-*.ini)
is "$(grep -c '^\[entry ' "$cache")" 7 "the cache file holds an entry per signature"
check "each says what won, against what, how" sh -c "grep -q '^baseline_us = ' '$cache' && grep -q '^strategy = ' '$cache' && grep -q '^space = 420' '$cache'"

is "$(minirt run run)" "minirt: done" "run mode after tuning"
check "it tunes nothing" sh -c "! grep -q ' tuned in ' '$TMP/run.log'"
is "$(minirt tune again)" "minirt: done" "tune mode again"
check "tunes nothing the cache already holds" sh -c "! grep -q ' tuned in ' '$TMP/again.log'"
minirt retune retune --threads 3 >/dev/null
is "$(grep -c ' tuned in ' "$TMP/retune.log")" 7 "retune mode tunes everything again"

echo "this is not a cache file" >"$cache"
is "$(minirt run corrupt)" "minirt: done" "a damaged cache file does not stop the application"
check "it is reported" grep -q "minirt-.*\.ini: line 1 is not key = value.*; tuned configurations from it are not used" "$TMP/corrupt.log"
minirt tune rewrite >/dev/null
check "tuning again puts it aside and writes a sound one" sh -c "test -e '$cache.bad' && grep -q '^format = $FORMAT\$' '$cache'"

# A cache directory that cannot exist (below a plain file, which stops root too).
: >"$TMP/plainfile"
out=$(GPUTUNE_CACHE_DIR="$TMP/plainfile/cache" minirt tune readonly)
is "$out" "minirt: done" "a cache directory that cannot be made does not stop the application"
check "and is reported" grep -q "cannot create cache directory $TMP/plainfile" "$TMP/readonly.log"
check "as are the results it could not keep, once" sh -c "test \$(grep -c 'the results of this run are not kept' '$TMP/readonly.log') = 1"

# GPUTUNE_SET over the settings, GPUTUNE_TRIALS recording each trial.
GPUTUNE_SET='budget.trials=2 strategy=random' GPUTUNE_TRIALS="$TMP/trials.csv" GPUTUNE_REPORT="$TMP/set.csv" \
    minirt retune set --threads 3 >/dev/null
is "$(sed 's/"[^"]*"//g' "$TMP/set.csv" | awk -F, 'NR > 1 && $6 > 2' | wc -l | tr -d ' ')" 0 \
    "GPUTUNE_SET: every session keeps to its budget.trials"
check "  with its strategy" sh -c "sed 1d '$TMP/set.csv' | grep -q ',random,'"
is "$(head -1 "$TMP/trials.csv")" \
    "kernel,signature,configuration,outcome,us,build_s,instr,regions,threads,block_threads,blocks_per_sm,regs" \
    "GPUTUNE_TRIALS: a CSV header"
is "$(sed 1d "$TMP/trials.csv" | wc -l | tr -d ' ')" \
    "$(sed 's/"[^"]*"//g' "$TMP/set.csv" | awk -F, 'NR > 1 { n += $6 } END { print n }')" "  and a row per trial"
check "  each with its outcome and time" sh -c "sed 1d '$TMP/trials.csv' | grep -qE '^\"saxpy.*\",\"[^\"]*\",\"[^\"]+\",ok,[0-9.]+,[0-9.]+(,[0-9]*){6}\$'"
GPUTUNE_SET='strategy=pareto strategy.sample=8 budget.trials=3' GPUTUNE_TRIALS="$TMP/pareto.csv" \
    minirt retune pareto >/dev/null
check "pareto: variants are estimated before trials" grep -q 'tuned in .* cut short; [1-9][0-9]* variants\{0,1\} estimated)' "$TMP/pareto.log"
check "  recorded as estimated rows, without a time" grep -q '",estimated,,' "$TMP/pareto.csv"
is "$(cat "$TMP/trials.csv" "$TMP/pareto.csv" | sed 's/"[^"]*"//g' | awk -F, '$4 != "outcome" && $5 != "" && $5 <= 0')" "" \
    "  no row shows a time of 0 or less"
is "$(sed 's/"[^"]*"//g' "$TMP/pareto.csv" | awk -F, '$4 == "estimated"' | wc -l | tr -d ' ')" \
    "$(grep -o '[0-9]* variants\{0,1\} estimated' "$TMP/pareto.log" | awk '{ n += $1 } END { print n }')" \
    "  one row per estimate the sessions count"
GPUTUNE_SET='budget.trials=x' minirt retune badset >/dev/null
check "a bad GPUTUNE_SET is reported, naming the word" grep -q "GPUTUNE_SET:1:15: expected an integer, found 'x'" "$TMP/badset.log"
check "  and not applied" grep -q "GPUTUNE_SET is not applied" "$TMP/badset.log"
: >"$TMP/plainfile"
GPUTUNE_TRIALS="$TMP/plainfile/x.csv" minirt retune badtrials >/dev/null
check "a GPUTUNE_TRIALS that cannot be written is reported" grep -q "cannot write GPUTUNE_TRIALS=$TMP/plainfile/x.csv" "$TMP/badtrials.log"
GPUTUNE_TRIALS=/dev/full GPUTUNE_REPORT=/dev/full minirt retune full >/dev/null
is "$(grep -c 'cannot write GPUTUNE_TRIALS=/dev/full: No space left on device; no more trials are recorded' "$TMP/full.log")" 1 \
    "GPUTUNE_TRIALS on a full disk: said once"
check "  as is GPUTUNE_REPORT" grep -q "cannot write GPUTUNE_REPORT=/dev/full: No space left on device" "$TMP/full.log"

# Kernels with side effects: nvrtc_min's chatty calls device printf, which
# every trial would repeat.  Its kernels report no parameters, as chatty
# and touch have none.
nvrtc_min() {
    mode=$1 log=$2
    LD_LIBRARY_PATH="$FAKE" FAKECUDA_PARAMS= GPUTUNE_MODE=$mode GPUTUNE_LOG=${GT_LOG_LEVEL:-info} \
        GPUTUNE_LOG_FILE="$TMP/$log.log" shim "$H/nvrtc_min"
}
is "$(nvrtc_min tune sidefx)" "nvrtc_min: done" "a kernel that prints: the application runs"
said='kernel chatty: not tuned: it calls vprintf (device printf), which every trial would repeat; '
said="${said}side_effects = allow in its policy tunes it anyway"
is "$(grep -cF "$said" "$TMP/sidefx.log")" 1 \
    "  it is not tuned, said once for its two launch signatures"
check "  no trial ran it" sh -c "! grep -q 'kernel chatty: .* tuned in' '$TMP/sidefx.log'"
check "  the clean kernel of its module is tuned" grep -q 'kernel touch: .* tuned in' "$TMP/sidefx.log"
GPUTUNE_SET='side_effects=allow' nvrtc_min retune allowed >/dev/null
is "$(grep -c 'kernel chatty: .* tuned in' "$TMP/allowed.log")" 2 "GPUTUNE_SET='side_effects=allow' tunes it anyway"
check "  without the message" sh -c "! grep -q 'kernel chatty: not tuned' '$TMP/allowed.log'"
GT_LOG_LEVEL=debug GPUTUNE_FORCE='chatty maxrreg=64' nvrtc_min tune forced >/dev/null
is "$(detail_of "$TMP/forced.log" chatty applied)" 2 "GPUTUNE_FORCE still applies to it"
check "  without the message" sh -c "! grep -q 'kernel chatty: not tuned' '$TMP/forced.log'"

# The stand-in driver computes nothing, so every launch's outputs already
# hold its reference, as when an application repeats a launch: a candidate
# that skipped its work would pass.  copy() reads x and only writes y, so
# trials start from y poisoned, and the application still finds y as it
# left it.  The other kernels' PTX is not at hand (saxpy) or does not match
# (scale): only configurations that do not rebuild them are tried.
out=$(LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=tune GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/copy.log" \
    shim "$H/minirt" --copy)
is "$out" "minirt: done" "outputs that held the result: the application finds its buffer as it left it"
check "  trials start from the buffer it only writes, poisoned" grep -q "kernel copy: launch .*: its outputs \
already hold what it computes (the application repeats this launch); trials start from the 1 buffer it only writes \
(1.0 MiB) filled with 0xff bytes" "$TMP/copy.log"
check "  and it is tuned" grep -q "kernel copy: launch .* tuned in" "$TMP/copy.log"
# The driver often places buffers end to end: x then starts where y ends,
# and a pointer to x must not count as one just past y's end, which would
# make y look read.
out=$(LD_LIBRARY_PATH="$FAKE" FAKECUDA_ADJACENT=1 GPUTUNE_CACHE_DIR="$TMP/adjacent" GPUTUNE_MODE=tune GPUTUNE_LOG=debug \
    GPUTUNE_LOG_FILE="$TMP/adjacent.log" shim "$H/minirt" --copy)
is "$out" "minirt: done" "x starting where y ends: the application finds its buffer as it left it"
check "  trials start from y poisoned" grep -q "kernel copy: launch .*: its outputs already hold what it computes \
(the application repeats this launch); trials start from the 1 buffer it only writes" "$TMP/adjacent.log"
check "without the kernel's PTX, only launch-time knobs, and the log says why" grep -q "kernel saxpy(.*): launch \
.*: its outputs already hold what it computes (the application repeats this launch) and its PTX is not at hand: no \
PTX of the image defines _Z5saxpyifPKfPf, so a candidate that skipped its work would pass; only launch-time knobs \
are tried" "$TMP/tune.log"
GPUTUNE_SET='strategy=exhaustive budget.trials=1000' GPUTUNE_TRIALS="$TMP/launch.csv" minirt retune launch >/dev/null
check "  no configuration that rebuilds the kernel is tried" \
    sh -c "grep -q '^\"scale\"' '$TMP/launch.csv' &&
           ! grep '^\"scale\"' '$TMP/launch.csv' | grep -Eq 'maxrreg=[0-9]|dlcm=c|bounds=on'"

# The cache file and its directory when they are damaged, foreign, planted or busy.
rm -rf "$TMP/cache"
minirt tune fresh >/dev/null
cache=$(ls "$TMP"/cache/minirt-*.ini)
sound=$(cat "$cache")
sed -i '0,/^trials = /s/^trials = .*/trials = many/' "$cache"
is "$(minirt run onebad)" "minirt: done" "one entry with a bad number: the application runs"
check "  that entry is dropped and named, the others used" \
    grep -q "minirt-.*\.ini: entry 'entry [0-9a-f]*' (line [0-9]*) dropped: line [0-9]*: bad trials; its 5 other entries are used" "$TMP/onebad.log"
minirt tune onebad_tune >/dev/null
is "$(grep -c ' tuned in ' "$TMP/onebad_tune.log")" 1 "  tuning again tunes that entry's signature alone"
is "$(grep -c '^\[entry ' "$cache")" 6 "  and the file holds every entry again"

printf '%s\n' "$sound" | sed 's/^format = [0-9]*$/format = 99/' >"$cache"
newer=$(cat "$cache")
minirt retune newer >/dev/null
check "a newer format: said" grep -q "has format 99, newer than this libgputune's $FORMAT: read as far as understood, never written" "$TMP/newer.log"
is "$(cat "$cache")" "$newer" "  and neither written over nor moved"
check "  its entries are used" grep -q "never written; its 6 entries are used" "$TMP/newer.log"

rm -f "$cache" "$cache.bad"
mkdir "$cache"
is "$(minirt tune dirfile)" "minirt: done" "a directory in the file's place: the application runs"
check "  it is called what it is" grep -q "minirt-.*\.ini is not a regular file; not using it" "$TMP/dirfile.log"
check "  and not renamed" sh -c "test -d '$cache' && ! test -e '$cache.bad'"
rmdir "$cache"
mkfifo "$cache"
is "$(minirt run fifo)" "minirt: done" "a FIFO planted as the file does not hang run mode"
check "  it is refused" grep -q "minirt-.*\.ini is not a regular file; not using it" "$TMP/fifo.log"
"$GT_BUILD/gputune" cache "$H/minirt" >/dev/null 2>"$TMP/fifo_cache.err"
is "$?" 1 "  nor gputune cache, which says why"
rm -f "$cache" "$cache.lock"
ln -s "$TMP/planted" "$cache.lock"
minirt tune link >/dev/null
check "a link planted as the lock is not followed" sh -c "! test -e '$TMP/planted' && grep -q 'minirt-.*\.ini\.lock is a symbolic link; not using it' '$TMP/link.log'"
rm -f "$cache.lock"

# A program path with a newline: the file it gets reads back.
odd="$TMP/odd
dir"
mkdir -p "$odd" && cp "$H/minirt" "$odd/minirt"
LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=tune GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/odd1.log" shim "$odd/minirt" >/dev/null
LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=tune GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/odd2.log" shim "$odd/minirt" >/dev/null
check "a program path with a newline: its file reads back, nothing tuned twice" \
    sh -c "grep -q ' tuned in ' '$TMP/odd1.log' && ! grep -q ' tuned in \|not used\|dropped' '$TMP/odd2.log'"

# A directory others can write: refused, and nothing is created in it.
mkdir -p "$TMP/shared" && chmod 777 "$TMP/shared"
is "$(GPUTUNE_CACHE_DIR="$TMP/shared" minirt tune shared)" "minirt: done" "a cache directory others can write: the application runs"
check "  it is refused" grep -q "cache directory $TMP/shared is writable by other users; not using it" "$TMP/shared.log"
is "$(ls -A "$TMP/shared" | wc -l | tr -d ' ')" 0 "  and nothing is created in it"

# Temporaries of killed writers: removed once old, not while a writer may be at them.
: >"$TMP/cache/minirt-0.ini.Ab12Cd"
: >"$TMP/cache/minirt-0.ini.Zz98Yx"
touch -d '2 days ago' "$TMP/cache/minirt-0.ini.Ab12Cd"
minirt retune sweep >/dev/null
check "a stale temporary of a killed writer is removed, a fresh one kept" \
    sh -c "! test -e '$TMP/cache/minirt-0.ini.Ab12Cd' && test -e '$TMP/cache/minirt-0.ini.Zz98Yx'"

# The lock held by another process: the wait is bounded, the results are
# held back, said once, and written once the lock is free (here: after the
# message; at exit at the latest).
# hold_lock: a process holding the lock until killed (its pid in $holder).
hold_lock() {
    rm -f "$TMP/locked"
    sh -c 'exec 9>"$1"; flock 9; : >"$2"; exec sleep 600' _ "$cache.lock" "$TMP/locked" >/dev/null 2>&1 &
    holder=$!
    until test -e "$TMP/locked"; do sleep 0.05; done
}
hold_lock
( until grep -q 'written later' "$TMP/busy.log" 2>/dev/null; do sleep 0.1; done; kill $holder ) &
watcher=$!
is "$(minirt retune busy --threads 3)" "$plain" "a lock held by another process: the application's output is unchanged"
wait $watcher
is "$(grep -c 'another process has held .*\.lock for over 5\.0 s; the results are kept and written later' "$TMP/busy.log")" 1 \
    "  said once"
is "$(grep -c '^tuned = ' "$cache")" 7 "  and every result is written once the lock is free"
check "  not lost" sh -c "! grep -q 'not kept' '$TMP/busy.log'"
# A holder that never lets go (a stopped process): two bounded waits, then the results are said lost.
hold_lock
before=$(cat "$cache")
is "$(minirt retune stuck)" "minirt: done" "a lock never released: the application still ends"
check "  the results are said lost at exit" grep -q "results held back are not kept: another process has held" "$TMP/stuck.log"
is "$(cat "$cache")" "$before" "  and the file is left as it was"
kill $holder

# Eight processes tuning into one cache file at once.
rm -rf "$TMP/cache"
for i in 1 2 3 4 5 6 7 8; do
    minirt tune "p$i" --threads 3 >/dev/null &
done
wait
cache=$(ls "$TMP"/cache/minirt-*.ini)
is "$(grep -c '^\[entry ' "$cache")" 7 "eight processes at once: one entry per signature, none lost"
is "$(minirt run after8)" "minirt: done" "and the file they wrote reads back"
check "without complaint" sh -c "! grep -q 'not used\|warn' '$TMP/after8.log'"

done_testing
