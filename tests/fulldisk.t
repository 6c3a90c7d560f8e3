#!/bin/sh
# A full disk under the cache directory, on the CPU against the stand-in
# driver: tests/helpers/fulldisk.c, preloaded with the shim, makes every
# file written there by a temporary and a rename (the cache file, the
# store's cubins) fail with ENOSPC.  The application's output must not
# change, the cache file already there must stay as it was, no temporary
# may be left behind (on a full disk least of all), the user must be told
# what was not kept and why, and a later run with room writes it.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
export LD_LIBRARY_PATH="$GT_BUILD/tests/fakecuda" GPUTUNE_SET='budget.trials=3' GPUTUNE_CACHE_DIR="$TMP/cache"

# minirt $3... in mode $1, logged in $TMP/$2.log, the cache directory full
# when FULLDISK_DIR names it.
minirt() {
    mode=$1 log=$2
    shift 2
    GPUTUNE_MODE=$mode GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/$log.log" \
        LD_PRELOAD="$GT_PRELOAD $H/libfulldisk.so" "$H/minirt" "$@"
}

warnings() {
    grep ' \(warn\|error\): ' "$TMP/$1.log"
}

# Temporaries in the cache directory: a written file's name and six characters of mkstemp's.
strays() {
    (cd "$TMP/cache" && find . -type f -name '*.??????' | sort)
}

plain=$("$H/minirt" --copy)
is "$(minirt tune first --copy)" "$plain" "a first tune session, with room"
before=$(cat "$TMP"/cache/minirt-*.ini)
check "  writes its result" sh -c "echo \"\$1\" | grep -q '^config = '" - "$before"

out=$(FULLDISK_DIR="$TMP/cache" minirt retune full --copy)
is "$out" "$plain" "tuning again on a full disk: the application's output is unchanged"
is "$(cat "$TMP"/cache/minirt-*.ini)" "$before" "  the cache file is left as it was"
is "$(strays)" "" "  no temporary is left behind"
is "$(warnings full | sed 's/^gputune\[[0-9]*\] //; s|/[^ ]*/minirt-[0-9a-f]*\.ini|FILE|')" \
    "warn: cannot write FILE: No space left on device; the results are kept and written later (at exit at the latest)
warn: 1 results held back are not kept: cannot write FILE: No space left on device" \
    "  the user is told the results are held, then that they are lost, and why"

# Online mode building variants: the store's cubins cannot be kept either.
cat >"$TMP/copy.ini" <<'INI'
[kernel "copy"]
maxrreg = default, 32
INI
export GPUTUNE_POLICY="$TMP/copy.ini" GPUTUNE_WATCHDOG=off FAKECUDA_MODULE_APP_MS=0.2
rm -rf "$TMP/cache"
plain=$("$H/minirt" --copies 1500 --pace 2)
out=$(FULLDISK_DIR="$TMP/cache" minirt online variants --copies 1500 --pace 2)
is "$out" "$plain" "online mode building variants on a full disk: the application's output is unchanged"
check "  the variant still runs: it is loaded from memory" \
    grep -q "tuned online over .* launches: maxrreg=32 200.00 us against 250.00 us" "$TMP/variants.log"
is "$(grep -c 'info: cannot store .*/cubins/[0-9a-f]*\.cubin: No space left on device; the variants built in this run are not kept' \
    "$TMP/variants.log")" 1 "  the cubin the store could not keep is said once, at info"
is "$(strays)" "" "  no temporary is left behind"
is "$(cat "$TMP"/cache/minirt-*.ini 2>/dev/null)" "" "  nor a cache file"
is "$(warnings variants | grep -c 'results held back are not kept: .*No space left on device')" 1 \
    "  and the lost result is a warning"

out=$(minirt online room --copies 1500 --pace 2)
is "$out" "$plain" "a later run with room"
check "  tunes it again and writes the result" grep -q '^config = maxrreg=32$' "$TMP"/cache/minirt-*.ini
key=$(sed -n 's/^cubin = //p' "$TMP"/cache/minirt-*.ini)
check "  and its cubin" test -s "$TMP/cache/cubins/$key.cubin"
is "$(warnings room)" "" "  without a warning"

done_testing
