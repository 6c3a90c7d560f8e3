#!/bin/sh
# bench/launch_path on the stand-in driver: it runs each mode, prints a row
# per mode with its median and its excess over off, names the log level it
# ran at and the memory written between launches (at info, the figure each
# mode's shim measured its own path at), and says what is missing
# when the build is.  Its figures are
# timings, so nothing here asserts their size.  With --instructions it
# counts under valgrind instead, where valgrind is installed and the build
# has no sanitizer (whose runtime valgrind cannot run); those counts do not
# vary, so the run-tuned row, which applies a configuration at every
# launch, must count more instructions than off's and, with the caches
# thrashed between launches, more misses.
. "$(dirname "$0")/lib.sh"

LP="$GT_SRC/bench/launch_path"
export GT_PRELOAD
out=$(GT_BUILD="$GT_BUILD" "$LP" 8 20 2>&1)
is "$?" 0 "exit 0"
check "the header names the geometries, the rounds and the log level" sh -c \
    'printf "%s\n" "$1" | head -1 | grep -q "one kernel at 8 geometries in turn, 20 rounds a run, 7 runs a mode, log level warn, 0 KB written between launches"' - "$out"
for m in off run run-tuned tune online; do
    check "a row for $m: its median, its excess over off and its seven runs" sh -c \
        'printf "%s\n" "$2" | grep -Eq "^$1 +[0-9.]+ +[+-][0-9.]+ +([0-9.]+ ){7}\$"' - "$m" "$out"
done
check "off's excess over itself is nothing" sh -c 'printf "%s\n" "$1" | grep -Eq "^off +[0-9.]+ +\+0\.0 "' - "$out"
info=$(GPUTUNE_LOG=info GT_BUILD="$GT_BUILD" "$LP" 4 5 2>&1 | head -1)
check "GPUTUNE_LOG sets the level it runs at" sh -c 'printf "%s\n" "$1" | grep -q "log level info"' - "$info"
own=$(GPUTUNE_LOG=info GT_BUILD="$GT_BUILD" "$LP" 8 600 2>&1 | tail -1)
check "  and at info, over enough launches, the figure each mode's shim measured its path at" sh -c \
    'printf "%s\n" "$1" | grep -Eq "^the shim.s own figure for its path, the median over the runs: run [0-9.]+ ns, run-tuned [0-9.]+ ns, tune [0-9.]+ ns, online [0-9.]+ ns$"' - "$own"
check "  not at warn" sh -c '! printf "%s\n" "$1" | grep -q "own figure"' - "$out"
thrash=$(GT_BUILD="$GT_BUILD" "$LP" 4 5 64 2>&1)
is "$?" 0 "THRASH_KB: exit 0"
check "THRASH_KB: the header says how much is written between launches, a row per mode" sh -c \
    'printf "%s\n" "$1" | head -1 | grep -q ", 64 KB written between launches" && [ "$(printf "%s\n" "$1" | grep -Ec "^(off|run|run-tuned|tune|online) ")" = 5 ]' - "$thrash"
mkdir "$TMP/bin" && ln -s "$(command -v dirname)" "$TMP/bin/dirname"
err=$(PATH="$TMP/bin" GT_BUILD="$GT_BUILD" "$LP" --instructions 4 5 2>&1)
is "$?/$err" "2/launch_path: --instructions needs valgrind, which is not installed" \
    "--instructions without valgrind: exit 2 and why"
if [ -n "$GT_SANITIZE" ]; then
    skip "a sanitizer's runtime does not run under valgrind"
    skip "a sanitizer's runtime does not run under valgrind"
    skip "a sanitizer's runtime does not run under valgrind"
elif ! command -v valgrind >/dev/null; then
    skip "valgrind is not installed"
    skip "valgrind is not installed"
    skip "valgrind is not installed"
else
    ins=$(GT_BUILD="$GT_BUILD" "$LP" --instructions 4 5 8192 2>&1)
    check "--instructions: a row per mode, instructions and misses a launch, each with the excess over off" sh -c \
        'printf "%s\n" "$1" | head -1 | grep -q "instructions and L1 data read misses a launch (valgrind: runs of 5 and 10 rounds)" &&
         [ "$(printf "%s\n" "$1" | grep -Ec "^(off|run|run-tuned|tune|online) +[0-9.]+ +[+-][0-9.]+ +[0-9.]+ +[+-][0-9.]+$")" = 5 ]' - "$ins"
    check "  applying a configuration at every launch counts more instructions than off" sh -c \
        'printf "%s\n" "$1" | awk "/^run-tuned / { exit !(\$3 > 0) }"' - "$ins"
    check "  and, with the caches thrashed between launches, more misses" sh -c \
        'printf "%s\n" "$1" | awk "/^run-tuned / { exit !(\$5 > 0) }"' - "$ins"
fi
err=$(GT_BUILD="$TMP/nobuild" "$LP" 2>&1)
is "$?/$err" "2/launch_path: no build directory; run make" "without a build: exit 2 and what to do"

done_testing
