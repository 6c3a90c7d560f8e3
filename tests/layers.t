#!/bin/sh
# The layers (ARCHITECTURE.md): every file includes and calls only its own
# folder and the folders below it, checked on the sources and on the built
# objects' symbols by tests/scripts/layers.
. "$(dirname "$0")/lib.sh"

L="$GT_SRC/tests/scripts/layers"
# The layers, lowest first, as the Makefile lists them; the tools above all.
layers=$(echo $(sed -n 's/^\(CORE\|SHIM\)_DIRS *:= *//p' "$GT_SRC/Makefile") tools)
check "the Makefile names the layers" sh -c "echo '$layers' | grep -q '^shim/base .* shim/top tools$'"
check "no file includes or calls a higher layer" "$L" "$GT_SRC" "$GT_BUILD" $layers

# A deliberately bad tree: a copy of a base file that includes a tune header
# and calls a tune function (as a symbol table shows it).
B="$TMP/bad"
mkdir -p "$B/shim/base" "$B/shim/tune"
{ cat "$GT_SRC/shim/base/median.c"; echo '#include "session.h"'; } >"$B/shim/base/median.c"
cp "$GT_SRC/shim/base/median.h" "$B/shim/base/"
cp "$GT_SRC/shim/tune/session.h" "$GT_SRC/shim/tune/session.c" "$B/shim/tune/"
cat >"$B/nm" <<NM
$B/build/shim/base/median.o:0000000000000000 T gt_median
$B/build/shim/base/median.o:                 U gt_session_tune
$B/build/shim/tune/session.o:0000000000000400 T gt_session_tune
$B/build/shim/tune/session.o:                 U gt_median
NM
"$L" --nm "$B/nm" "$B" "$B/build" shim/base shim/tune >"$TMP/bad.out" 2>&1
is "$?" 1 "an upward include and call fail the check"
check "naming the file that includes and the header" \
    grep -qx "layers: shim/base/median.c includes shim/tune/session.h, a higher layer" "$TMP/bad.out"
check "naming the caller, the symbol and the file defining it" \
    grep -qx "layers: shim/base/median.c uses gt_session_tune of shim/tune/session.c, a higher layer" "$TMP/bad.out"
is "$(wc -l <"$TMP/bad.out")" 2 "and nothing else: calls downward pass"

# Two headers of one name would make "name.h" ambiguous.
cp "$GT_SRC/shim/base/median.h" "$B/shim/tune/"
"$L" --nm /dev/null "$B" "$B/build" shim/base shim/tune >"$TMP/twice.out" 2>&1
check "two headers of one name fail, naming both" \
    grep -q "two headers named median.h: shim/base/median.h and shim/tune/median.h" "$TMP/twice.out"

done_testing
