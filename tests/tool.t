#!/bin/sh
# The gputune command's dispatcher, its run/tune wrappers and `cache`.
. "$(dirname "$0")/lib.sh"

G="$GT_BUILD/gputune"
H="$GT_BUILD/tests/helpers"
export LD_LIBRARY_PATH="$GT_BUILD/tests/fakecuda" GPUTUNE_CACHE_DIR="$TMP/cache"
# The wrappers keep what LD_PRELOAD already holds first: a sanitizer's runtime stays there.
[ -z "$GT_SANITIZER_PRELOAD" ] || export LD_PRELOAD="$GT_SANITIZER_PRELOAD"

"$G" >"$TMP/usage.out" 2>&1
is "$?" 2 "no command: usage, exit status 2"
check "the usage names every command" sh -c "grep -q 'inspect FILE' '$TMP/usage.out' && grep -q 'policy check' '$TMP/usage.out' && grep -q 'MODE CMD.*run, tune, retune' '$TMP/usage.out' && grep -q 'cache PROGRAM' '$TMP/usage.out'"
"$G" frobnicate >/dev/null 2>"$TMP/unknown.err"
is "$?" 2 "an unknown command: exit status 2"
check "and says which" grep -q "unknown command 'frobnicate'" "$TMP/unknown.err"
is "$("$G" version)" "gputune 0.1.0" "version"

out=$(GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/run.log" "$G" run "$H/minirt")
is "$out" "minirt: done" "gputune run: the command runs"
check "under the shim, in run mode" grep -q "mode run: 3 kernels launched" "$TMP/run.log"
GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/tune.log" "$G" tune -- "$H/minirt" >/dev/null
check "gputune tune: in tune mode" grep -q "mode tune: " "$TMP/tune.log"
"$G" cache "$H/minirt" >"$TMP/cache.out"
check "gputune cache names the file and its entries" grep -q "minirt-[0-9a-f]*\.ini: 6 entries" "$TMP/cache.out"
is "$(grep -c ' / grid=' "$TMP/cache.out")" 6 "one line per entry"
"$G" run /nonexistent/program 2>"$TMP/missing.err"
is "$?" 127 "a command that does not exist: exit status 127"
check "with the reason" grep -q "cannot run /nonexistent/program" "$TMP/missing.err"
"$G" cache /nonexistent/program 2>/dev/null
is "$?" 2 "cache of a program that does not exist: exit status 2"

done_testing
