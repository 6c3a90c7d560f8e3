#!/bin/sh
# gputune inspect on binaries compiled at test time (tests/fixtures.sh), on
# damaged copies of them, and on files that hold no CUDA code at all.
. "$(dirname "$0")/lib.sh"

G="$GT_BUILD/gputune"
FX="$GT_BUILD/fixtures"
sh "$GT_SRC/tests/fixtures.sh" "$FX" >"$TMP/fixtures.log" 2>&1
case $? in
0) ;;
77) skip_all "nvcc not found: cannot compile the fixtures" ;;
*) echo "Bail out! building the fixtures failed:"; sed 's/^/# /' "$TMP/fixtures.log"; exit 1 ;;
esac
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"

KERNELS="scale
count_hits
void reduce<float>(float const*, float*, int)
void reduce<double>(double const*, double*, int)
mixed
empty_kernel"

# Every kernel of kernels.cu has a row in the table of FILE.
has_kernels() {
    printf '%s\n' "$KERNELS" | while IFS= read -r k; do
        grep -q "^$(printf '%s' "$k" | sed 's/[][*.]/\\&/g')  " "$1" || { echo "no row for $k"; exit 1; }
    done
}

for f in app_default app_gencode app_compressed libkernels.so kernels.o libkernels.a kernels.ptx kernels.cubin \
         lz4.fatbin plain.fatbin made.fatbin embedded.o; do
    "$G" inspect "$FX/$f" >"$TMP/$f.out" 2>"$TMP/$f.err"
    is "$?" 0 "$f: exit status 0"
    check "$f: a row for each kernel of kernels.cu" has_kernels "$TMP/$f.out"
done

check "the table has its headings" grep -q "^KERNEL .* SASS .* PTX .* REGS .* SMEM .* LMEM .* PARAMS .* VARIABLES .* TUNING$" "$TMP/app_default.out"
check "app_gencode: four SASS architectures, oldest first" grep -q "^scale  .* sm_75,sm_90,sm_90a,sm_120  .*compute_90 " "$TMP/app_gencode.out"
check "app_gencode: PTX means the JIT knobs apply; below its target, launch knobs only" grep -q "^scale .*PTX compute_90 (sm_90+): max registers, load cache mode, launch bounds, cache preference, carve-out; SASS only for sm_75: cache preference and carve-out only$" "$TMP/app_gencode.out"
check "a cubin: SASS only, launch knobs only" grep -q "^scale .*SASS only for sm_90: cache preference and carve-out only$" "$TMP/kernels.cubin.out"
check "resources of the newest SASS: reduce<double> on sm_90" grep -q "^void reduce<double>(double const\*, double\*, int)  *sm_90  *compute_90  *14  *2048  *0  *3 (20 B)  *hits " "$TMP/app_compressed.out"
check "mixed: 256 bytes of stack on sm_90" grep -q "^mixed  .* 40  *0  *256  *6 (72 B) " "$TMP/kernels.cubin.out"
check "variables used: scale reads coef" grep -q "^scale  .*  coef  " "$TMP/kernels.ptx.out"
check "variables used: count_hits reaches hits through bump()" grep -q "^count_hits  .*  hits  " "$TMP/kernels.ptx.out"
check "a cubin alone cannot say which kernel uses which variable" grep -q "^scale  .*  ?  " "$TMP/kernels.cubin.out"
check "the file line says what the file is" grep -q "^$FX/libkernels.so: shared library, 2 fatbins: 1 device-linked, 1 registered by the CUDA runtime; 3 entries, 6 kernels$" "$TMP/libkernels.so.out"
check "a fatbin in a section of its own is found" grep -q "^$FX/embedded.o: object file, 1 fatbin" "$TMP/embedded.o.out"

"$G" inspect "$FX/app_rdc" >"$TMP/rdc.out" 2>&1
is "$?" 0 "app_rdc: exit status 0"
check "app_rdc: the file line tells the linked fatbin from the objects'" grep -q "^$FX/app_rdc: executable, 3 fatbins: 1 device-linked, 2 of relocatable objects; 5 entries, 3 kernels$" "$TMP/rdc.out"
check "app_rdc: the linked kernel gets its object's PTX" grep -q "^linked_apply  *sm_90  *compute_90 .*linked_total .*relocatable PTX" "$TMP/rdc.out"
check "app_rdc: a kernel the device link dropped says so" grep -q "^linked_unreferenced .*left out of the program$" "$TMP/rdc.out"

"$G" inspect "$FX/sidefx.fatbin" >"$TMP/sidefx.out" 2>&1
is "$?" 0 "sidefx.fatbin: exit status 0"
check "TUNING: a kernel that prints is one tune mode leaves alone" \
    grep -q "^sfx_print .*carve-out; tune mode leaves it alone: it calls vprintf (device printf)$" "$TMP/sidefx.out"
check "  one that allocates too" \
    grep -q "^sfx_heap .*: it calls malloc (device malloc) and free (device free)$" "$TMP/sidefx.out"
check "  not the clean kernel beside them" grep -q "^sfx_clean .*carve-out$" "$TMP/sidefx.out"

"$G" inspect "$FX/lto.fatbin" >"$TMP/lto.out" 2>&1
is "$?" 0 "lto.fatbin: exit status 0"
check "lto.fatbin: its IR is listed, no kernel" grep -q "^  IR    compute_90 x1$" "$TMP/lto.out"

# --arch: the knobs on one device
"$G" inspect --arch sm_90 "$FX/app_gencode" >"$TMP/arch.out"
check "--arch sm_90: JIT from compute_90" grep -q "^scale .*PTX compute_90 for sm_90: max registers, load cache mode, launch bounds, cache preference, carve-out$" "$TMP/arch.out"
"$G" inspect --arch sm_90 "$FX/kernels.cubin" >"$TMP/arch.out"
check "--arch sm_90 on a cubin: launch knobs only" grep -q "^scale .*SASS only for sm_90: cache preference and carve-out only$" "$TMP/arch.out"
"$G" inspect --arch 89 "$FX/kernels.cubin" >"$TMP/arch.out"
check "--arch 89 on an sm_90 cubin: nothing runs" grep -q "^scale .*none: no code that runs on sm_89$" "$TMP/arch.out"
"$G" inspect --arch 86 "$FX/app_default" >"$TMP/arch.out"
check "--arch 86: compute_75 PTX reaches it" grep -q "^scale .*PTX compute_75 for sm_86: " "$TMP/arch.out"
"$G" inspect --arch sm_x "$FX/app_default" >"$TMP/o" 2>"$TMP/e"
is "$?" 2 "--arch with no architecture: exit status 2"

"$G" inspect -j 1 "$FX/app_gencode" >"$TMP/j1.out"
check "one thread or many: the same output" cmp "$TMP/j1.out" "$TMP/app_gencode.out"
"$G" inspect --wide "$FX/app_gencode" >"$TMP/wide.out"
check "--wide keeps whole names" grep -q "^void reduce<double>(double const\*, double\*, int)  " "$TMP/wide.out"

# JSON
"$G" inspect --json "$FX/app_gencode" "$FX/kernels.ptx" >"$TMP/out.json"
is "$?" 0 "--json: exit status 0"
if command -v python3 >/dev/null 2>&1; then
    summary=$(python3 - "$TMP/out.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
f = d["files"][0]
ks = {k["name"]: k for k in f["kernels"]}
mixed = ks["mixed"]
sass = {s["arch"]: s for s in mixed["sass"]}
p = mixed["ptx"][0]
print(d["status"], len(d["files"]), len(f["kernels"]), ",".join(sorted(sass)),
      sass["sm_90"]["registers"], sass["sm_90"]["local"], sass["sm_90"]["max_threads"][0],
      p["target"], p["param_bytes"], [q["offset"] for q in p["params"]] == [s["offset"] for s in sass["sm_90"]["params"]],
      ",".join(ks["count_hits"]["variables"]), len(ks["_Z6reduceIfEvPKT_PS0_i"]["ptx"][0]["loops"]) >= 2,
      f["summary"]["elf"]["sm_90a"]["kernels"], d["files"][1]["format"])
EOF
)
    is "$summary" "0 2 6 sm_120,sm_75,sm_90,sm_90a 40 256 128 compute_90 72 True hits True 6 PTX" \
        "--json: kernels, resources per architecture, PTX layout equal to the cubin's, variables, loops, summary"
else
    check "--json: an object per file" grep -q '"files": \[' "$TMP/out.json"
fi

# A path of any bytes: JSON keeps its UTF-8, escapes what it must, and puts
# U+FFFD in place of bytes that are not UTF-8, so that the output parses.
weird=$(printf '%s/q"b\\s\tn\nc\001\177 caf\303\251 \346\227\245 \377 \346\227.ptx' "$TMP")
cp "$FX/kernels.ptx" "$weird"
"$G" inspect --json "$weird" >"$TMP/weird.json"
is "$?" 0 "--json, a path with quotes, control bytes, UTF-8 and bytes that are not: exit status 0"
if command -v python3 >/dev/null 2>&1; then
    check "  the output is UTF-8 and parses, the path read back with U+FFFD for each bad part" python3 -c '
import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
want = sys.argv[2] + "/q\"b\\s\tn\nc\x01\x7f caf\u00e9 \u65e5 \ufffd \ufffd.ptx"
sys.exit(d["files"][0]["path"] != want or not d["files"][0]["kernels"])' "$TMP/weird.json" "$TMP"
else
    check "  the path's UTF-8 kept as it is" grep -q "caf$(printf '\303\251') $(printf '\346\227\245')" "$TMP/weird.json"
fi
is "$(LC_ALL=C tr -d '\n' <"$TMP/weird.json" | LC_ALL=C grep -c '[[:cntrl:]]')" 0 "  no raw control byte in it"

# Not CUDA, not there, not readable: one line each, exit status 2.
printf 'just text\n' >"$TMP/text.txt"
: >"$TMP/empty"
"$G" inspect "$TMP/text.txt" >"$TMP/o" 2>"$TMP/e"
is "$?" 2 "a text file: exit status 2"
is "$(cat "$TMP/e")" "gputune inspect: $TMP/text.txt: not CUDA device code: no fatbin, cubin, PTX or ELF file" "  and why"
"$G" inspect "$G" >"$TMP/o" 2>"$TMP/e"
is "$?" 2 "an ELF without device code: exit status 2"
check "  saying there is none" grep -q "no CUDA device code" "$TMP/e"
"$G" inspect "$TMP/missing" >"$TMP/o" 2>"$TMP/e"
is "$?" 2 "a missing file: exit status 2"
check "  cannot open it" grep -q "cannot open: No such file or directory" "$TMP/e"
"$G" inspect "$TMP" >"$TMP/o" 2>"$TMP/e"
is "$?" 2 "a directory: exit status 2"
"$G" inspect "$TMP/empty" >"$TMP/o" 2>"$TMP/e"
is "$?" 2 "an empty file: exit status 2"
if [ "$(id -u)" != 0 ]; then
    cp "$FX/kernels.ptx" "$TMP/secret.ptx" && chmod 000 "$TMP/secret.ptx"
    "$G" inspect "$TMP/secret.ptx" >"$TMP/o" 2>"$TMP/e"
    is "$?" 2 "an unreadable file: exit status 2"
fi
"$G" inspect "$FX/kernels.ptx" "$TMP/text.txt" >"$TMP/o" 2>"$TMP/e"
is "$?" 2 "a good file and a bad one: exit status 2"
check "  the good one is still shown" grep -q "^scale " "$TMP/o"
"$G" inspect >"$TMP/o" 2>"$TMP/e"
is "$?" 2 "no file: exit status 2"
check "  with the usage" grep -q "^usage: gputune inspect" "$TMP/e"
"$G" inspect --bogus x >"$TMP/o" 2>"$TMP/e"
is "$?" 2 "an unknown option: exit status 2"
"$G" inspect --json "$TMP/text.txt" >"$TMP/o" 2>"$TMP/e"
is "$?" 2 "--json on a bad file: exit status 2"
check "  the error is in the JSON too" grep -q '"error": "not CUDA device code' "$TMP/o"

# Damaged copies: never a crash.
crashes=0
for f in app_default kernels.o lz4.fatbin kernels.cubin kernels.ptx; do
    size=$(wc -c <"$FX/$f")
    for cut in 1 16 64 100 1000 4096 $((size / 3)) $((size / 2)) $((size - 100)) $((size - 1)); do
        [ "$cut" -gt 0 ] && [ "$cut" -lt "$size" ] || continue
        head -c "$cut" "$FX/$f" >"$TMP/cut"
        "$G" inspect "$TMP/cut" >/dev/null 2>&1
        rc=$?
        [ "$rc" -le 2 ] || { echo "# $f cut at $cut: exit status $rc"; crashes=$((crashes + 1)); }
    done
done
is "$crashes" 0 "truncated fixtures: exit status 0, 1 or 2, never a crash"

cp "$FX/lz4.fatbin" "$TMP/bad.fatbin"
# the first entry's compressed size, cut to 16 bytes
printf '\020\000\000\000' | dd of="$TMP/bad.fatbin" bs=1 seek=32 conv=notrunc 2>/dev/null
"$G" inspect "$TMP/bad.fatbin" >"$TMP/o" 2>"$TMP/e"
is "$?" 1 "a corrupt compressed entry: exit status 1"
check "  the entry is named as damaged" grep -q "damaged elf entry for sm_90 in the fatbin at offset 0: implausible sizes" "$TMP/o"
check "  and counted on stderr" grep -q "bad.fatbin: 1 entry could not be decoded" "$TMP/e"

# A file cut short while it is mapped (here, right after).
cp "$FX/app_default" "$TMP/shrinking"
LD_PRELOAD="${GT_SANITIZER_PRELOAD:+$GT_SANITIZER_PRELOAD }$GT_BUILD/tests/helpers/libtruncmap.so" \
    "$G" inspect "$TMP/shrinking" >/dev/null 2>"$TMP/e"
is "$?" 2 "a file cut short while mapped: exit status 2, not SIGBUS"
check "  said" grep -q "shrinking: the file was cut short while being read" "$TMP/e"

done_testing
