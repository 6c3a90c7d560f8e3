#!/bin/sh
# The GPUTUNE_* variables end to end (the table itself: test_env.c): README
# lists exactly the table's names, `gputune env` and GPUTUNE_LOG=debug show
# every value with its origin, a refused value or an unknown name is said
# once and changes nothing else, and GPUTUNE_SET with one bad word applies
# none of its words.
. "$(dirname "$0")/lib.sh"

G="$GT_BUILD/gputune"
H="$GT_BUILD/tests/helpers"
export LD_LIBRARY_PATH="$GT_BUILD/tests/fakecuda" GPUTUNE_CACHE_DIR="$TMP/cache"

# README's table: the rows of the "Environment variables" section.
awk '/^### Environment variables/ { on = 1; next } /^#/ { on = 0 }
     on && /^\| `GPUTUNE_/ { split($0, f, "`"); print f[2] }' "$GT_SRC/README.md" | sort >"$TMP/readme.names"
env -i PATH="$PATH" "$G" env >"$TMP/clean.out" 2>"$TMP/clean.err"
is "$?" 0 "gputune env in a clean environment: exit status 0"
is "$(cat "$TMP/clean.err")" "" "  nothing to say"
sed -n 's/^\(GPUTUNE_[A-Z_]*\) = .*/\1/p' "$TMP/clean.out" | sort >"$TMP/table.names"
is "$(wc -l <"$TMP/table.names" | tr -d ' ')" 19 "  a line per variable of the table"
check "README's environment table lists exactly the table's names" diff "$TMP/readme.names" "$TMP/table.names"
check "  each with its default and what it accepts" \
    grep -qx '    one of off, run, tune, retune, online; off: .*' "$TMP/clean.out"
check "  every value from its default" sh -c "! grep '^GPUTUNE_' '$TMP/clean.out' | grep -v ' (default)\$'"

env -i PATH="$PATH" GPUTUNE_MODE=tune GPUTUNE_JOBS=4x GPUTUNE_MOED=run "$G" env >"$TMP/bad.out" 2>"$TMP/bad.err"
is "$?" 1 "gputune env with a refused value and a typo: exit status 1"
check "  a given value is shown from the environment" grep -qx 'GPUTUNE_MODE = tune (env)' "$TMP/bad.out"
check "  a refused one as the default" \
    grep -qx 'GPUTUNE_JOBS = the processors this process may use (env refused, default)' "$TMP/bad.out"
check "  which it names with the range" grep -qx \
    'gputune env: GPUTUNE_JOBS=4x is not an integer from 1 to 1024; using the processors this process may use' \
    "$TMP/bad.err"
check "  and the typo with the name it is near" grep -qx \
    'gputune env: GPUTUNE_MOED is not a variable of libgputune and is ignored; did you mean GPUTUNE_MODE?' \
    "$TMP/bad.err"

# minirt under the shim, its log in $TMP/$1.log; the environment before.
minirt() {
    log=$1
    shift
    GPUTUNE_LOG=${GPUTUNE_LOG:-info} GPUTUNE_LOG_FILE="$TMP/$log.log" shim "$H/minirt" "$@"
}
said() {
    grep -c "warn: $1" "$TMP/$2.log"
}

GPUTUNE_LOG=debug GPUTUNE_JOBS=3 minirt debug >/dev/null
check "GPUTUNE_LOG=debug lists the values" grep -q 'debug: environment: GPUTUNE_JOBS = 3 (env)$' "$TMP/debug.log"
check "  with those from their default" grep -q 'debug: environment: GPUTUNE_GUARD = on (default)$' "$TMP/debug.log"

for v in abc 4x ' 4' -2 0 1025 99999999999999999999; do
    out=$(GPUTUNE_JOBS="$v" minirt jobs)
    n=$(said "GPUTUNE_JOBS=$v is not an integer from 1 to 1024; using the processors this process may use" jobs)
    is "$out/$n" "minirt: done/1" "GPUTUNE_JOBS='$v': said once, the application runs"
done
for v in 12abc -1 0x 18446744073709551616 1e3; do
    GPUTUNE_SEED="$v" minirt seed >/dev/null
    is "$(said "GPUTUNE_SEED=$v is not an integer from 0 to 18446744073709551615; using 0x853c49e6748fea9b" seed)" \
        1 "GPUTUNE_SEED='$v': said once"
done

# The configurations random search tries, in order, under a given GPUTUNE_SEED.
tried() {
    rm -rf "$TMP/cache" "$TMP/$1.csv"
    GPUTUNE_MODE=tune GPUTUNE_SEED="$2" GPUTUNE_SET='strategy=random budget.trials=4' GPUTUNE_TRIALS="$TMP/$1.csv" \
        minirt "$1" >/dev/null
    cut -d'"' -f6 "$TMP/$1.csv"
}
default=$(tried seed-default '')
check "random search tries configurations" test -n "$default"
[ "$(tried seed-12 12)" != "$default" ]
check "  in an order GPUTUNE_SEED=12 changes" test $? -eq 0
is "$(tried seed-12abc 12abc)" "$default" "  and GPUTUNE_SEED=12abc does not: the default seed is used"

GPUTUNE_MOED=tune minirt typo >/dev/null
is "$(said 'GPUTUNE_MOED is not a variable of libgputune and is ignored; did you mean GPUTUNE_MODE?' typo)" 1 \
    "an unknown GPUTUNE_ variable: said once, with the name it is near"
check "  and ignored: run mode tunes nothing" \
    sh -c "grep -q 'mode run: ' '$TMP/typo.log' && ! grep -q ' tuned in ' '$TMP/typo.log'"

# GPUTUNE_SET: one bad word and none applies.
for set in 'strategy=random bogus' 'strategy=random [kernel' 'strategy=random ;budget.trials=1'; do
    rm -rf "$TMP/cache"
    GPUTUNE_MODE=tune GPUTUNE_SET="$set" GPUTUNE_REPORT="$TMP/set.csv" minirt set >/dev/null
    check "GPUTUNE_SET='$set': the bad word is named" grep -q "warn: GPUTUNE_SET:2:1: expected KEY=VALUE, found '" \
        "$TMP/set.log"
    check "  and none of the words applies" sh -c "grep -q 'GPUTUNE_SET is not applied' '$TMP/set.log' &&
        test -s '$TMP/set.csv' && ! sed 1d '$TMP/set.csv' | grep -q ',random,'"
done

# %p in the paths of the files the shim writes.
rm -rf "$TMP/cache" "$TMP/pid"
mkdir "$TMP/pid"
GPUTUNE_MODE=tune GPUTUNE_REPORT="$TMP/pid/report.%p.csv" GPUTUNE_TRIALS="$TMP/pid/trials.%p.csv" minirt pid >/dev/null
is "$(ls "$TMP/pid" | sed 's/[0-9][0-9]*/PID/' | tr '\n' ' ')" "report.PID.csv trials.PID.csv " \
    "GPUTUNE_REPORT and GPUTUNE_TRIALS: %p becomes the process id"
check "  the kernel's name quoted whole, commas and all" \
    grep -q '^"saxpy(int, float, float const\*, float\*)","grid=' "$TMP"/pid/report.*.csv

done_testing
