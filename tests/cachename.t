#!/bin/sh
# Naming and finding cache files, on the CPU against the stand-in driver:
# GPUTUNE_CACHE_FILE lets a program tuned at one path run tuned from
# another; GPUTUNE_CACHE_PATH adds a read-only file searched after the
# process's own, never written; gputune cache finds a program's file.
# (How interpreters key their file by the script: tests/test_cachefile.c.)
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
export LD_LIBRARY_PATH="$GT_BUILD/tests/fakecuda" GPUTUNE_POLICY="$TMP/policy.ini" FAKECUDA_L1_TRIAL_MS=0.2 \
    FAKECUDA_L1_APP_MS=0.2
cat >"$GPUTUNE_POLICY" <<'INI'
[kernel "*saxpy*"]
cache = default, l1
INI
mkdir -p "$TMP/a" "$TMP/b"
cp "$H/minirt" "$TMP/a/minirt"
cp "$H/minirt" "$TMP/b/minirt"

# The program at $1 in mode $2, logged in $TMP/$3.log; prints how many of
# saxpy's signatures it ran tuned from a cache file.
app() {
    out=$(GPUTUNE_MODE=$2 GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/$3.log" shim "$1")
    [ "$out" = "minirt: done" ] || echo "$out"
    grep -c "kernel saxpy.* runs 'cache=l1' from the cache" "$TMP/$3.log"
}

export GPUTUNE_CACHE_DIR="$TMP/cache"
GPUTUNE_CACHE_FILE="$TMP/tuned.ini" app "$TMP/a/minirt" tune tune >/dev/null
check "GPUTUNE_CACHE_FILE: tune mode writes the file it names" grep -q "^config = cache=l1" "$TMP/tuned.ini"
is "$(GPUTUNE_CACHE_FILE="$TMP/tuned.ini" app "$TMP/b/minirt" run other)" 3 \
    "  a copy of the program at another path runs tuned from it"
is "$(app "$TMP/b/minirt" run named)" 0 "  without it, that copy has its own file, empty"

sum=$(cksum <"$TMP/tuned.ini")
rm -rf "$TMP/cache"
is "$(GPUTUNE_CACHE_PATH="$TMP/nowhere.ini:$TMP/tuned.ini" app "$TMP/b/minirt" run site)" 3 \
    "GPUTUNE_CACHE_PATH: a file after the own one is searched (a missing one passes quietly)"
is "$(cksum <"$TMP/tuned.ini")" "$sum" "  and never written"
check "  nothing warned" sh -c "! grep -q ' warn: ' '$TMP/site.log'"

out=$(GPUTUNE_CACHE_FILE="$TMP/tuned.ini" "$GT_BUILD/gputune" cache "$TMP/b/minirt")
check "gputune cache honours GPUTUNE_CACHE_FILE" sh -c "echo \"\$1\" | grep -q '^$TMP/tuned.ini: [1-9][0-9]* entries'" - "$out"
check "  and lists what it holds" sh -c "echo \"\$1\" | grep -q 'saxpy.* cache=l1$'" - "$out"
is "$(cd / && PATH="/nowhere:$TMP/b" "$GT_BUILD/gputune" cache minirt | head -1)" \
    "$(cd "$TMP/b" && "$GT_BUILD/gputune" cache ./minirt | head -1)" "  a program named without a slash is found in PATH"
out=$("$GT_BUILD/gputune" cache 2>&1)
check "gputune cache without a program: its usage names the script form" \
    sh -c "echo \"\$1\" | grep -q 'gputune cache python3 train.py'" - "$out"

done_testing
