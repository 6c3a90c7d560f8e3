#!/bin/sh
# The watchdog on the GPU.  slow_app's kernels have variants 3 and 100
# times slower than the original, each of a shape the instrumentation
# handles its own way (loop heads, barriers, the kernel's own checkpoint,
# the entry check over many blocks).  Tuned with the watchdog, every slow
# variant is cut short, the application's later allocations, copies and
# launches succeed and its output is bitwise that of the run without the
# shim.  With GPUTUNE_WATCHDOG=off nothing is cut and the result is the
# same; an unknown value is said and the default used.
. "$(dirname "$0")/lib.sh"
need_gpu
export GPUTUNE_POLICY="$GT_SRC/tests/fixtures/slow.ini"
APP=$GT_BUILD/tests/helpers/slow_app

run_as plain "$TMP/plain" "$APP" -o "$TMP/plain.bin"
check "slow_app passes its own check without the shim" ran_ok "$TMP/plain"

GPUTUNE_CACHE_DIR="$TMP/cache" GPUTUNE_REPORT="$TMP/loops.csv" GT_LOG_LEVEL=debug \
    run_as tune "$TMP/loops" "$APP" -o "$TMP/loops.bin"
log=$TMP/loops.log
check "tuned with the watchdog: its own check passes (later allocations, copies, launches)" ran_ok "$TMP/loops"
check "output bitwise identical to the run without the shim" cmp "$TMP/plain.bin" "$TMP/loops.bin"
for k in slow_stream slow_tiles slow_warp slow_blocks; do
    check "$k: the 100x slower variant is cut short" grep -q "kernel $k: 'WORK=100' cut short at its deadline" "$log"
    check "$k: so is the 3x slower one" grep -q "kernel $k: 'WORK=3' cut short at its deadline" "$log"
    check "$k: the original wins" grep -q "kernel $k: launch .* tuned in .* 2 cut short): the original" "$log"
    echo "# $(grep -o "kernel $k: 'WORK=100' cut short.*" "$log")"
done
check "slow_stream: checks at its loop heads" grep -q "kernel slow_stream: watchdog (loops): entry check, [1-9][0-9]* loop-head and 0 barrier checks" "$log"
check "slow_tiles: its barriers decide" grep -q "kernel slow_tiles: watchdog (loops): entry check, 0 loop-head and [1-9][0-9]* barrier checks" "$log"
check "slow_warp: its loops have no safe point, the log says why" \
    grep -q "kernel slow_warp: watchdog (loops): .*only the entry check: the kernel uses barrier 0 with arrive, red" "$log"
check "slow_blocks: the entry check alone" \
    grep -q "kernel slow_blocks: watchdog (loops): entry check, 0 loop-head and 0 barrier checks" "$log"
aborted=$(sed 's/"[^"]*"//g' "$TMP/loops.csv" | awk -F, 'NR > 1 { n += $9 } END { print n + 0 }')
is "$aborted" 8 "the report counts the cut trials"
check "no error or warning from the shim" sh -c "! grep -E ' (warn|error): ' '$log'"

GPUTUNE_CACHE_DIR="$TMP/cache-off" GPUTUNE_WATCHDOG=off GT_LOG_LEVEL=debug \
    run_as tune "$TMP/off" "$APP" -o "$TMP/off.bin"
check "without the watchdog: its own check passes" ran_ok "$TMP/off"
check "  output bitwise identical" cmp "$TMP/plain.bin" "$TMP/off.bin"
check "  nothing is cut short" sh -c "! grep -q 'cut short at its deadline' '$TMP/off.log'"
check "  and the original still wins" \
    sh -c "[ \$(grep -c 'tuned in .* 0 cut short): the original' '$TMP/off.log') -eq 4 ]"

GPUTUNE_CACHE_DIR="$TMP/cache-entry" GPUTUNE_WATCHDOG=entry GT_LOG_LEVEL=debug \
    run_as tune "$TMP/entry" "$APP" -o "$TMP/entry.bin"
check "entry checks only: its own check passes, output bitwise identical" \
    sh -c "grep -qx 'result OK' '$TMP/entry.out' && cmp '$TMP/plain.bin' '$TMP/entry.bin'"
check "  many-block kernels are still cut short" grep -q "kernel slow_blocks: 'WORK=100' cut short" "$TMP/entry.log"
check "  the log says the loops keep only the entry check" \
    grep -q "kernel slow_stream: watchdog (entry): .*only the entry check: the watchdog is set to entry" "$TMP/entry.log"

GPUTUNE_CACHE_DIR="$TMP/cache-bad" GPUTUNE_WATCHDOG=sometimes run_as tune "$TMP/bad" "$APP"
check "an unknown GPUTUNE_WATCHDOG: the run still passes" ran_ok "$TMP/bad"
check "  with one warning naming what it accepts" \
    sh -c "[ \$(grep -c 'GPUTUNE_WATCHDOG=sometimes is not one of off, entry, loops; using loops' '$TMP/bad.log') -eq 1 ]"

done_testing
