#!/bin/sh
# `gputune policy check` and `gputune space` on the catalogue in
# tests/policies: every bad file gives exactly the messages its
# "; expect:" lines say (stderr, exit 1); every good file prints exactly its
# summary (stdout, exit 0).  Then the space listings, counts, launches,
# geometry and exit codes.
. "$(dirname "$0")/lib.sh"

T="$GT_BUILD/tests/helpers/policy_tool"
[ -x "$T" ] || skip_all "no $T: run make first"
P="$GT_SRC/tests/policies"

expected() {
    sed -n 's/^; expect: //p' "$1"
}

cd "$P/bad" || exit 1
for f in *.ini; do
    "$T" policy check "$f" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    is "$(cat "$TMP/err")" "$(expected "$f")" "bad/$f: its messages"
    is "$rc/$(wc -c <"$TMP/out")" "1/0" "bad/$f: exit 1, nothing on stdout"
done

cd "$P/good" || exit 1
for f in *.ini; do
    "$T" policy check "$f" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    is "$(cat "$TMP/out")" "$(expected "$f")" "good/$f: its summary"
    is "$rc/$(wc -c <"$TMP/err")" "0/0" "good/$f: exit 0, nothing on stderr"
done

# Several files: the worst result; unreadable beats invalid.
"$T" policy check saxpy.ini automatic.ini >"$TMP/out" 2>&1
is "$?/$(wc -l <"$TMP/out")" "0/3" "two valid files: three sections"
"$T" policy check saxpy.ini ../bad/unknown_key.ini >/dev/null 2>&1
is "$?" 1 "a valid and an invalid file: exit 1"
"$T" policy check saxpy.ini missing.ini ../bad/unknown_key.ini >/dev/null 2>"$TMP/err"
is "$?" 2 "and a missing one: exit 2"
check "the missing file is named" grep -qx "missing.ini: cannot read: No such file or directory" "$TMP/err"
"$T" policy check >/dev/null 2>&1
is "$?" 2 "no file: usage, exit 2"
"$T" policy check --bogus saxpy.ini >/dev/null 2>&1
is "$?" 2 "an unknown option: exit 2"
is "$("$T" policy check --arch sm_75 automatic.ini)" \
    'automatic.ini:4: kernel "*": 300 configurations (900 before constraints)' \
    "--arch: sm_75 has a shorter register ladder"

# gputune space: configurations in enumeration order, one per line.
"$T" space saxpy.ini _Z5saxpyifPKfPf >"$TMP/out" 2>"$TMP/err"
is "$?" 0 "space of saxpy by its mangled name"
is "$(head -3 "$TMP/out" | tr '\n' '|')" "BLOCK=64 ITEMS=1 cache=none|BLOCK=64 ITEMS=1 cache=l1|BLOCK=64 ITEMS=2 cache=none|" \
    "  the last dimension varies fastest"
is "$(wc -l <"$TMP/out")" 22 "  22 configurations"
is "$(tail -1 "$TMP/out")" "BLOCK=256 ITEMS=4 cache=l1" "  the last one"
is "$(cat "$TMP/err")" "note: 1 constraint reads the launch and is not applied; give --grid, --block, --smem or --arg to apply them" \
    "  a note says a constraint waits for the launch"
is "$("$T" space --count saxpy.ini 'saxpy(int, float, float const*, float*)' 2>/dev/null)" 22 "--count, by the demangled name"
is "$("$T" space --count --arg n=100 saxpy.ini saxpy 2>&1)" 8 "a launch with n = 100: BLOCK <= arg.n leaves 8"
is "$("$T" space --geometry --arg n=100000 saxpy.ini saxpy | sed -n 3p)" \
    "BLOCK=64 ITEMS=2 cache=none  grid=782,1,1 block=64,1,1 smem=0" "--geometry: grid from arg.n and the parameters"
is "$("$T" space --geometry --grid 100 --block 256 saxpy.ini scale_kernel)" \
    "(no dimensions)  grid=200,1,1 block=128,1,1 smem=0" "a section that only changes the geometry"

"$T" space automatic.ini anything >"$TMP/out" 2>"$TMP/err"
is "$?/$(wc -l <"$TMP/out")" "0/420" "a kernel [kernel \"*\"] selects: 420 configurations"
is "$(head -1 "$TMP/out")" "cache=default carveout=default maxrreg=default dlcm=default bounds=off" "  the first is the original"
"$T" space saxpy.ini other >"$TMP/out" 2>"$TMP/err"
is "$?/$(wc -l <"$TMP/out")" "0/420" "a kernel no section selects: the automatic space"
is "$(cat "$TMP/err")" "saxpy.ini: no section selects other: its automatic space" "  and says so"
is "$("$T" space --count --no-ptx saxpy.ini other 2>/dev/null)" 10 "  10 without PTX"
"$T" space defaults_only.ini k >"$TMP/out" 2>"$TMP/err"
is "$?/$(wc -c <"$TMP/out")" "0/0" "unnamed = skip: nothing to list"
is "$(cat "$TMP/err")" "defaults_only.ini: no section selects k, and [defaults] says unnamed = skip" "  and says why"
"$T" space every_key.ini histogram_kernel >"$TMP/out" 2>"$TMP/err"
is "$?/$(wc -c <"$TMP/out")" "0/0" "tune = no: nothing to list"
is "$("$T" space --count --block 8,8 every_key.ini 'void gemm<16>(float const*, float const*, float*, int)')" 432 \
    "every_key: TILE <= orig.block.x with an 8x8 block"

"$T" space ../bad/unknown_key.ini k >"$TMP/out" 2>"$TMP/err"
is "$?/$(wc -c <"$TMP/out")" "1/0" "space of an invalid file: exit 1"
is "$(cat "$TMP/err")" "$(expected ../bad/unknown_key.ini | sed 's|^unknown_key|../bad/unknown_key|')" "  with its messages"
"$T" space ../bad/constraint_division.ini k >"$TMP/out" 2>"$TMP/err"
is "$?/$(wc -l <"$TMP/out")" "1/4" "an evaluation error: the rest is listed, exit 1"
"$T" space missing.ini k >/dev/null 2>&1
is "$?" 2 "space of a missing file: exit 2"
"$T" space saxpy.ini >/dev/null 2>&1
is "$?" 2 "space without a kernel: usage, exit 2"

# A policy of 100000 sections loads (comparing each section with every
# other took minutes), and a repeat among them is still found.
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "[kernel \"k%d\"]\nmaxrreg = 32, 64\n", i;
             print "[kernel \"k7\"]" }' >"$TMP/big.ini"
"$T" policy check "$TMP/big.ini" >/dev/null 2>"$TMP/err"
is "$?/$(cat "$TMP/err")" "1/$TMP/big.ini:200001:1: this section repeats the section at line 15; merge them" \
    "100000 sections: loaded, the one repeat found"

done_testing
