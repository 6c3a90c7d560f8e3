#!/bin/sh
# gputune inspect on real input nobody here wrote: the toolkit's cuBLAS
# libraries, hundreds of megabytes of compressed cubins and PTX.
. "$(dirname "$0")/lib.sh"

G="$GT_BUILD/gputune"
LIB="${CUDA_HOME:-/usr/local/cuda}/lib64"
[ -e "$LIB/libcublasLt.so" ] || skip_all "no $LIB/libcublasLt.so"

now() { date +%s.%N; }

for lib in libcublasLt.so libcublas.so; do
    [ -e "$LIB/$lib" ] || continue
    t0=$(now)
    "$G" inspect --json "$LIB/$lib" >"$TMP/$lib.json" 2>"$TMP/$lib.err"
    rc=$?
    t1=$(now)
    is "$rc" 0 "$lib: exit status 0"
    echo "# $lib: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s for --json"
    check "$lib: nothing on stderr" test ! -s "$TMP/$lib.err"
    check "$lib: no damaged entry" grep -q '"damaged_entries": 0,' "$TMP/$lib.json"
    if command -v python3 >/dev/null 2>&1; then
        facts=$(python3 - "$TMP/$lib.json" <<'EOF'
import json, sys
f = json.load(open(sys.argv[1]))["files"][0]
elf = f["summary"]["elf"]
named = all(k["name"] and k["sass"] or k["ptx"] for k in f["kernels"])
print(len(f["kernels"]) > 1000, "sm_90" in elf and elf["sm_90"]["kernels"] > 0, named,
      all(e["error"] is None for fb in f["fatbins"] for e in fb["entries"]))
EOF
)
        is "$facts" "True True True True" "$lib: over a thousand kernels, SASS for sm_90, every entry decoded"
        python3 - "$TMP/$lib.json" <<'EOF'
import json, sys
f = json.load(open(sys.argv[1]))["files"][0]
for kind in ("elf", "ptx"):
    print("# %s %s" % (kind, ", ".join("%s: %d entries, %d kernels" % (a, v["entries"], v["kernels"])
                                     for a, v in f["summary"][kind].items())))
EOF
    fi
    "$G" inspect "$LIB/$lib" >"$TMP/$lib.txt" 2>&1
    is "$?" 0 "$lib: the table too"
    check "$lib: the table names its file" grep -q "^$LIB/$lib: shared library, [0-9]* fatbins" "$TMP/$lib.txt"
    check "$lib: where PTX is only for newer devices, older ones get launch knobs" \
        grep -q "PTX compute_120 (sm_120+): .*; SASS only for sm_75,sm_80,sm_86,sm_90,sm_100: cache preference and carve-out only$" "$TMP/$lib.txt"
    "$G" inspect --arch sm_90 "$LIB/$lib" >"$TMP/$lib.90" 2>&1
    check "$lib --arch sm_90: SASS only there" grep -q "SASS only for sm_90: cache preference and carve-out only$" "$TMP/$lib.90"
done

done_testing
