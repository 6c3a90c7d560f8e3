#!/bin/sh
# gputune cache export, import, merge and prune, on the CPU against the
# stand-in driver: a real cache file tuned from tests/helpers/minirt and
# hand-written ones; round trips ini -> T4 -> ini, a GPUTUNE_TRIALS
# landscape as T4, imports into a file that holds entries, the merge rule,
# prune by each criterion (dry runs first), and every error path: exit 2 on
# a usage error, 1 on a failure, nothing written on either.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
FAKE="$GT_BUILD/tests/fakecuda"
export GPUTUNE_POLICY="$TMP/policy.ini" GPUTUNE_CACHE_DIR="$TMP/cache" FAKECUDA_L1_TRIAL_MS=0.2 FAKECUDA_L1_APP_MS=0.2
unset GPUTUNE_CACHE_FILE
cat >"$GPUTUNE_POLICY" <<'INI'
[kernel "*saxpy*"]
cache = default, l1
INI
mkdir -p "$TMP/a" "$TMP/w"
cp "$H/minirt" "$TMP/a/minirt"
A="$TMP/a/minirt"

gt() { "$GT_BUILD/gputune" "$@"; }
# gt's exit status and stderr, for the error paths: "STATUS: first line of stderr".
gt_err() {
    "$GT_BUILD/gputune" "$@" >"$TMP/out" 2>"$TMP/err"
    echo "$?: $(head -1 "$TMP/err")"
}
# The configuration of the entry of signature $2 in cache file $1.
config_of() {
    awk -v sig="signature = $2" '$0 == sig { found = 1 } found && /^config = / { sub(/^config = /, ""); print; exit }' "$1"
}
entries() { grep -c '^\[entry ' "$1"; }
body() { grep -v '^;' "$1"; }

LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=tune GPUTUNE_TRIALS="$TMP/trials.csv" shim "$A" >/dev/null
tuned=$(ls "$TMP"/cache/minirt-*.ini)
is "$(entries "$tuned")" 6 "tune mode gives minirt a cache file of 6 entries"
check "  each names the file that held its image" sh -c "test \$(grep -c '^image_file = $A\$' '$tuned') = 6"

# ---- export ----
gt cache export "$A" >"$TMP/w/exported.ini"
check "export PROGRAM: the program's file as it is" cmp "$tuned" "$TMP/w/exported.ini"
gt cache export -o "$TMP/w/o.ini" --file "$tuned"
check "export --file F -o OUT: the same" cmp "$tuned" "$TMP/w/o.ini"
gt cache export --format t4 -o "$TMP/w/tuned.json" "$A"
is "$?" 0 "export --format t4: exit 0"
check "  one T4 document: schema 1.0.0, a result per entry, kernel, signature and device in its metadata" \
    python3 - "$TMP/w/tuned.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == "1.0.0" and d["metadata"]["timeunit"] == "milliseconds", d["metadata"]
r = d["results"]
assert len(r) == 6, len(r)
for x in r:
    assert x["invalidity"] == "correct" and x["correctness"] == 1 and x["objectives"] == ["time"]
    assert {"kernel", "signature", "device", "arch", "driver", "image"} <= set(x["metadata"]), x["metadata"]
    assert x["measurements"][0]["name"] == "time" and x["measurements"][0]["unit"] == "ms"
saxpy = [x for x in r if x["metadata"]["kernel"] == "_Z5saxpyifPKfPf"]
assert saxpy[0]["configuration"] == {"cache": "l1"} and saxpy[0]["measurements"][0]["value"] == 0.2, saxpy[0]
EOF

# ---- round trips ----
gt cache import "$TMP/w/tuned.json" --file "$TMP/w/back.ini" >"$TMP/out"
check "import T4 into a new file" grep -q "6 entries of .*tuned.json imported (6 new, 0 replaced)" "$TMP/out"
is "$(body "$TMP/w/back.ini")" "$(body "$tuned")" "  ini -> t4 -> ini: every entry, every field, the program"

# Entries with every field a cache file can hold, and names that need escaping in both formats.
cat >"$TMP/w/hand.ini" <<'INI'
[gputune]
format = 2
binary = /opt/app/bin/solver

[entry one]
kernel = we"ird\\name\nwith é
image = 00000000000000ab
image_file = /opt/app/lib/libkernels.so
device = NVIDIA H200
arch = sm_90
driver = 13000
signature = grid=4,1,1 block=128,1,1 smem=0 args=7,-3
config = BLOCK=128 ITEMS=4 cache=l1 ratio=0.50 big=123456789012345678901 lead=007 neg=-2 name=hé
cubin = 00112233445566778899aabbccddeeff
time_us = 12.345
baseline_us = 20.250
trials = 42
space = 420
strategy = random
tuned = 2025-06-01T10:00:00Z
guard = dropped 0.970

[entry two]
kernel = _Z5saxpyifPKfPf
image = 0123456789abcdef
image_file =
device = NVIDIA A100-SXM4-80GB
arch = sm_80
driver = 12080
driver_version = 575.51.03
signature = grid=256,1,1 block=256,1,1 smem=0
config = cache=default carveout=default maxrreg=default dlcm=default bounds=off
cubin =
time_us = 250.000
baseline_us = 250.000
trials = 0
space = 18446744073709551615
strategy = pareto-tree
tuned =
guard_times = 250.000 251.300 / 200.000
INI
gt cache import "$TMP/w/hand.ini" --file "$TMP/w/hand1.ini" >/dev/null
gt cache export --format t4 --file "$TMP/w/hand1.ini" -o "$TMP/w/hand.json"
gt cache import "$TMP/w/hand.json" --file "$TMP/w/hand2.ini" >/dev/null
is "$(body "$TMP/w/hand2.ini")" "$(body "$TMP/w/hand1.ini")" \
    "round trip of escapes, UTF-8, a guard verdict, guard times, no date, the largest space"
check "  the T4 keeps UTF-8 as it is and escapes the quote, backslash and newline" \
    grep -q '"kernel": "we\\"ird\\\\name\\nwith é"' "$TMP/w/hand.json"
check "  integers become JSON numbers, the rest strings" \
    grep -q '"ITEMS": 4,' "$TMP/w/hand.json"
check "  (0.50, 007 and a number past 64 bits keep their text)" \
    sh -c "grep -q '\"ratio\": \"0.50\"' '$TMP/w/hand.json' && grep -q '\"lead\": \"007\"' '$TMP/w/hand.json' &&
           grep -q '\"big\": 123456789012345678901' '$TMP/w/hand.json'"
check "  and the document parses as JSON" python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$TMP/w/hand.json"

# ---- the trials of tune mode as a landscape ----
cat "$TMP/trials.csv" >"$TMP/w/trials.csv"
cat >>"$TMP/w/trials.csv" <<'CSV'
"k2","grid=1,1,1 block=32,1,1 smem=0","BLOCK=32",cut,900.000,1.250,,,,,,
"k2","grid=1,1,1 block=32,1,1 smem=0","BLOCK=64",failed,0.000,0.500,100,2,4096,64,8,32
"k2","grid=1,1,1 block=32,1,1 smem=0","BLOCK=128",invalid,,0.000,,,,,,
"k2","grid=1,1,1 block=32,1,1 smem=0","BLOCK=256",wrong,10.000,0.000,,,,,,
"k2","grid=1,1,1 block=32,1,1 smem=0","BLOCK=512",cut,,0.000,,,,,,
CSV
rows=$(($(wc -l <"$TMP/w/trials.csv") - 1))
est=$(grep -c ',estimated,' "$TMP/w/trials.csv")
gt cache export --trials "$TMP/w/trials.csv" --format t4 -o "$TMP/w/landscape.json" 2>"$TMP/err"
is "$?" 0 "export --trials: exit 0"
check "  the trials only estimated are left out, and said" grep -q "$est trials of .* were estimated, never run: left out" "$TMP/err"
check "  every other trial a result: outcomes as T4's validity, failures named, estimates kept" \
    python3 - "$TMP/w/landscape.json" "$((rows - est))" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert len(r) == int(sys.argv[2]), (len(r), sys.argv[2])
by = {x["configuration"].get("BLOCK"): x for x in r if x["metadata"]["kernel"] == "k2"}
assert by[32]["invalidity"] == "timeout" and by[32]["measurements"][0]["value"] == 0.9 and by[32]["times"]["compilation"] == 1250
assert by[64]["invalidity"] == "runtime" and by[64]["measurements"][0]["value"] == "RuntimeFailedConfig"
assert by[64]["metadata"]["estimate"] == {"instr": 100, "regions": 2, "threads": 4096, "block_threads": 64, "blocks_per_sm": 8, "regs": 32}
assert by[128]["invalidity"] == "compile" and by[256]["invalidity"] == "correctness" and by[256]["correctness"] == 0
assert by[512]["invalidity"] == "timeout" and by[512]["measurements"][0]["value"] == "RuntimeFailedConfig"
ok = [x for x in r if x["invalidity"] == "correct"]
assert ok and all(x["metadata"]["outcome"] == "ok" for x in ok)
assert r[0]["metadata"]["kernel"] == "saxpy(int, float, float const*, float*)", r[0]["metadata"]
EOF
is "$(gt_err cache import "$TMP/w/landscape.json" --file "$TMP/w/no.ini")" \
    "1: gputune cache import: $TMP/w/landscape.json: line 28, column 19: results[0].metadata has no \"device\" (a cache entry needs kernel, signature, device, arch, driver and image); nothing imported" \
    "  a landscape names no device or image: it cannot become cache entries, said"

# ---- import into a file that holds entries ----
sed -e 's/^config = cache=l1$/config = cache=shared/' "$tuned" >"$TMP/w/other.ini"
cp "$tuned" "$TMP/w/target.ini"
printf '\n[entry new]\nkernel = _Z3newv\nimage = 00000000000000cd\ndevice = Fake GPU\narch = sm_90\ndriver = 13000\nsignature = grid=1,1,1 block=1,1,1 smem=0\nconfig = cache=l1\n' >>"$TMP/w/other.ini"
gt cache import "$TMP/w/other.ini" --file "$TMP/w/target.ini" >"$TMP/out"
check "import into an existing file: the new entry added, those it holds kept" \
    grep -q "1 entries of .*other.ini imported (1 new, 0 replaced); 6 it holds already kept (--replace takes the imported ones)" "$TMP/out"
is "$(entries "$TMP/w/target.ini") $(config_of "$TMP/w/target.ini" 'grid=8,1,1 block=128,1,1 smem=0')" "7 cache=l1" \
    "  7 entries, the held configuration unchanged"
gt cache import --replace "$TMP/w/other.ini" --file "$TMP/w/target.ini" >"$TMP/out"
is "$(config_of "$TMP/w/target.ini" 'grid=8,1,1 block=128,1,1 smem=0')" "cache=shared" "  --replace takes the imported ones"
gt cache import "$TMP/w/tuned.json" --into "$A" >"$TMP/out"
check "import --into PROGRAM: the program's own file, nothing new" grep -q "^$tuned: 0 entries .* 6 it holds already kept" "$TMP/out"
GPUTUNE_CACHE_FILE="$TMP/w/env.ini" gt cache import "$TMP/w/tuned.json" >/dev/null
is "$(entries "$TMP/w/env.ini")" 6 "import without --file: GPUTUNE_CACHE_FILE's"
check "  a new file records the program the import names" grep -q "^binary = $A\$" "$TMP/w/env.ini"

# ---- merge ----
entry() { # kernel signature config time trials tuned [guard]
    printf '\n[entry %s]\nkernel = %s\nimage = 00000000000000ef\ndevice = Fake GPU\narch = sm_90\ndriver = 13000\n' "$1$2" "$1"
    printf 'signature = %s\nconfig = %s\ntime_us = %s\nbaseline_us = 20.000\ntrials = %s\ntuned = %s\n' "$2" "$3" "$4" "$5" "$6"
    [ -n "$7" ] && printf 'guard = %s\n' "$7"
    return 0
}
{
    printf '[gputune]\nformat = 2\nbinary = /m1\n'
    entry k s1 A 10.000 5 2025-01-01T00:00:00Z
    entry k s2 A 10.000 5 2025-01-01T00:00:00Z
    entry k s3 A 5.000 5 2025-01-01T00:00:00Z "dropped 0.900"
    entry k s4 A 10.000 5 2025-01-01T00:00:00Z
    entry k s6 A 10.000 5 2025-01-01T00:00:00Z
} >"$TMP/w/m1.ini"
{
    printf '[gputune]\nformat = 2\nbinary = /m2\n'
    entry k s1 B 12.000 50 2026-01-01T00:00:00Z
    entry k s2 B 10.050 50 2025-01-01T00:00:00Z
    entry k s3 B 9.000 5 2025-01-01T00:00:00Z
    entry k s4 B 10.000 5 2026-01-01T00:00:00Z
    entry k s5 B 10.000 5 2026-01-01T00:00:00Z
    entry k s6 A 10.000 5 2025-01-01T00:00:00Z
} >"$TMP/w/m2.ini"
gt cache merge "$TMP/w/m1.ini" "$TMP/w/m2.ini" -o "$TMP/w/merged.ini" >"$TMP/out"
is "$?" 0 "merge A B -o OUT: exit 0"
is "$(for s in s1 s2 s3 s4 s5 s6; do config_of "$TMP/w/merged.ini" $s; done | tr '\n' ' ')" "A B B B B A " \
    "  the faster; within 1% the more trialled; not one the guard dropped; else the later; one file's alone kept"
check "  each choice between two configurations said, and the count" \
    sh -c "grep -q \"k s1 on Fake GPU: .*m1.ini's 'A' (10.000 us, 5 trials) over .*m2.ini's 'B'\" '$TMP/out' &&
           grep -q 'merged.ini: 6 entries from 2 files (5 keys in more than one)' '$TMP/out' &&
           test \$(grep -c ' over ' '$TMP/out') = 4"
is "$(gt cache --file "$TMP/w/merged.ini" | head -1) $(grep '^binary' "$TMP/w/merged.ini")" \
    "$TMP/w/merged.ini: 6 entries binary = /m1" "  the union is a sound cache file, for the first file's program"
gt cache merge "$TMP/w/m2.ini" "$TMP/w/m1.ini" -o "$TMP/w/merged2.ini" >/dev/null
is "$(for s in s1 s2 s3 s4 s5 s6; do config_of "$TMP/w/merged2.ini" $s; done | tr '\n' ' ')" "A B B B B A " \
    "  the same choices whichever file comes first"
cp "$TMP/w/m1.ini" "$TMP/w/into.ini"
gt cache merge --file "$TMP/w/into.ini" "$TMP/w/m2.ini" "$TMP/w/hand.json" >"$TMP/out"
is "$(entries "$TMP/w/into.ini") $(config_of "$TMP/w/into.ini" s2)" "8 B" "merge --file F: into a cache file, T4 inputs too"
gt cache merge -o - "$TMP/w/m1.ini" "$TMP/w/m2.ini" >"$TMP/w/stdout.ini" 2>"$TMP/err"
check "  -o -: the union on the standard output, what was chosen on stderr" \
    sh -c "cmp '$TMP/w/stdout.ini' '$TMP/w/merged.ini' && grep -q ' over ' '$TMP/err'"

# ---- prune ----
mkdir -p "$TMP/b"
cp "$H/minirt" "$TMP/b/minirt"
img=$(sed -n 's/^image = //p' "$tuned" | head -1)
{
    cat "$tuned"
    sed -n '/^\[entry two\]/,$p' "$TMP/w/hand.ini"
    entry old s1 A 10.000 5 2023-05-01T00:00:00Z | sed 's|^image = .*|&\nimage_file = /gone/libold.so|'
    entry bk sb A 10.000 5 2026-01-01T00:00:00Z | sed "s|^image = .*|image = $img\nimage_file = $TMP/b/minirt|"
} >"$TMP/w/p.ini"
total=$(entries "$TMP/w/p.ini")
sum=$(cksum <"$TMP/w/p.ini")
prune() { gt cache prune "$@" --file "$TMP/w/p.ini"; }

prune --dry-run --older-than 2024-01-01 >"$TMP/out"
check "prune --dry-run --older-than: the entry tuned before the date, named" \
    grep -q "^would remove old s1 on Fake GPU: tuned 2023-05-01, before 2024-01-01$" "$TMP/out"
check "  the count, the undated entry kept and said" \
    sh -c "grep -q 'p.ini: 1 of $total entries would be removed (a dry run' '$TMP/out' &&
           grep -q '^1 entries carry no date (tuned): kept' '$TMP/out'"
is "$(cksum <"$TMP/w/p.ini")" "$sum" "  and the file is left as it is"

cp "$H/lazy_app" "$TMP/b/minirt" 2>/dev/null || cp /bin/true "$TMP/b/minirt"
prune --dry-run --missing-images >"$TMP/out"
check "prune --dry-run --missing-images: an image file gone" \
    grep -q "^would remove old s1 on Fake GPU: its image file /gone/libold.so is gone$" "$TMP/out"
check "  a file rebuilt: it holds the image no more" \
    grep -q "^would remove bk sb on Fake GPU: $TMP/b/minirt no longer holds its image $img (rebuilt)$" "$TMP/out"
check "  the entries of the program as it is stay; one with no image file is kept and said" \
    sh -c "grep -q 'p.ini: 2 of $total entries would be removed' '$TMP/out' &&
           grep -q '^1 entries name no image file' '$TMP/out'"

prune --dry-run --driver 13000 >"$TMP/out"
check "prune --dry-run --driver: the entry of another driver" \
    sh -c "grep -q \"^would remove _Z5saxpyifPKfPf grid=256,1,1 block=256,1,1 smem=0 on NVIDIA A100-SXM4-80GB: driver 12080 (kept: driver 13000)$\" '$TMP/out' &&
           grep -q 'p.ini: 1 of $total' '$TMP/out'"
prune --dry-run --device "Fake GPU" --device "NVIDIA H200" >"$TMP/out"
check "prune --dry-run --device (twice): the entry of another device" \
    grep -q "on NVIDIA A100-SXM4-80GB: device 'NVIDIA A100-SXM4-80GB' (kept: 'Fake GPU', 'NVIDIA H200')$" "$TMP/out"
LD_LIBRARY_PATH="$FAKE" prune --dry-run --device current --driver current >"$TMP/out"
check "prune --device current --driver current: this machine's, asked of the driver" \
    sh -c "grep -q \"device 'NVIDIA A100-SXM4-80GB' (kept: driver 13000, 'Fake GPU')\" '$TMP/out' &&
           grep -q 'p.ini: 1 of $total' '$TMP/out'"
is "$(cksum <"$TMP/w/p.ini")" "$sum" "  every dry run left the file as it was"

prune --older-than 2024-01-01 --missing-images --driver 13000 >"$TMP/out"
is "$(grep -c '^removed ' "$TMP/out") $(entries "$TMP/w/p.ini")" "3 $((total - 3))" \
    "prune with three criteria: each entry removed once, said, the file written"
check "  the rest read back sound" sh -c "'$GT_BUILD/gputune' cache --file '$TMP/w/p.ini' 2>&1 | grep -q '^$TMP/w/p.ini: $((total - 3)) entries$'"
gt cache prune --driver 12080 "$A" >"$TMP/out"
is "$(entries "$tuned")" 0 "prune PROGRAM: the program's file"

# ---- errors ----
echo '{"results": [1, 2,]}' >"$TMP/w/bad.json"
echo '[gputune]' >"$TMP/w/bad.ini"
printf 'format = 2\n[entry x]\nkernel = k\ntrials = 4x\n' >>"$TMP/w/bad.ini"
printf '{"results": [{"configuration": {}, "invalidity": "correct", "correctness": 1, "measurements": [{"name": "time", "value": 1, "unit": "ms"}],\n "metadata": {"kernel": "k", "signature": "s", "device": "d", "arch": "sm_90", "image": "ab", "driver": "x"}}]}\n' >"$TMP/w/badvalue.json"
gzip -c "$TMP/w/hand.json" >"$TMP/w/hand.json.gz"
printf 'kernel,signature,configuration,outcome\n' >"$TMP/w/badtrials.csv"
printf 'kernel,signature,configuration,outcome,us,build_s\n"k","s","B=1",ok,,0.5\n' >"$TMP/w/untimed.csv"
cp "$TMP/w/m1.ini" "$TMP/w/keep.ini"
keep=$(cksum <"$TMP/w/keep.ini")
while IFS='|' read -r want args; do
    eval "set -- $args"
    is "$(gt_err cache "$@")" "$want" "$args"
done <<EOF
2: gputune cache export: unknown option '--bogus' (gputune cache --help says how)|export --bogus "$A"
2: gputune cache export: --format is ini or t4, not 'xml' (gputune cache --help says how)|export --format xml "$A"
2: gputune cache export: --trials exports to t4 only (gputune cache --help says how)|export --trials x.csv --format ini
2: gputune cache export: --trials exports a trials file: no PROGRAM or --file with it (gputune cache --help says how)|export --trials x.csv "$A"
2: gputune cache export: -o needs a value (gputune cache --help says how)|export --file x -o
2: gputune cache export: name a program or --file, not both (gputune cache --help says how)|export --file "$TMP/w/m1.ini" "$A"
1: gputune cache export: cannot read $TMP/w/none.ini: No such file or directory|export --file "$TMP/w/none.ini"
1: gputune cache export: $TMP/w/bad.ini: entry 'entry x' (line 3) dropped: line 5: bad trials|export --file "$TMP/w/bad.ini"
1: gputune cache export: cannot write $TMP/nowhere/x.json: No such file or directory|export --format t4 --file "$TMP/w/m1.ini" -o "$TMP/nowhere/x.json"
1: gputune cache export: cannot write /dev/full: No space left on device|export --file "$TMP/w/m1.ini" -o /dev/full
1: gputune cache export: $TMP/w/badtrials.csv: line 1 is not the header GPUTUNE_TRIALS writes (kernel,signature,configuration,outcome,us,build_s,...)|export --trials "$TMP/w/badtrials.csv"
1: gputune cache export: cannot read $TMP/w/none.csv: No such file or directory|export --trials "$TMP/w/none.csv"
1: gputune cache export: $TMP/w/untimed.csv: line 2: an ok trial without a positive time ('')|export --trials "$TMP/w/untimed.csv"
2: gputune cache import: name the FILE to import (gputune cache --help says how)|import --file "$TMP/w/keep.ini"
2: gputune cache import: one FILE at a time ('a' and 'b') (gputune cache --help says how)|import a b --file "$TMP/w/keep.ini"
2: gputune cache import: --into needs a PROGRAM (gputune cache --help says how)|import "$TMP/w/m2.ini" --into
2: gputune cache import: unknown option '--force' (gputune cache --help says how)|import --force "$TMP/w/m2.ini" --file "$TMP/w/keep.ini"
1: gputune cache import: cannot read $TMP/w/none.json: No such file or directory; nothing imported|import "$TMP/w/none.json" --file "$TMP/w/keep.ini"
1: gputune cache import: $TMP/w/bad.json: line 1, column 19: ']' where a value should be; nothing imported|import "$TMP/w/bad.json" --file "$TMP/w/keep.ini"
1: gputune cache import: $TMP/w/badvalue.json: line 2, column 105: results[0].metadata.driver: bad value 'x'; nothing imported|import "$TMP/w/badvalue.json" --file "$TMP/w/keep.ini"
1: gputune cache import: $TMP/w/bad.ini: entry 'entry x' (line 3) dropped: line 5: bad trials; nothing imported|import "$TMP/w/bad.ini" --file "$TMP/w/keep.ini"
1: gputune cache import: $TMP/w/hand.json.gz is compressed with gzip: decompress it first (gzip -dk $TMP/w/hand.json.gz); nothing imported|import "$TMP/w/hand.json.gz" --file "$TMP/w/keep.ini"
2: gputune cache merge: name the files to merge (gputune cache --help says how)|merge -o "$TMP/w/x.ini"
2: gputune cache merge: the union goes to one place: -o OUT, --file F or --into PROGRAM (gputune cache --help says how)|merge -o a --file b "$TMP/w/m1.ini"
2: gputune cache merge: unknown option '--fast' (gputune cache --help says how)|merge --fast "$TMP/w/m1.ini" -o "$TMP/w/x.ini"
1: gputune cache merge: $TMP/w/bad.json: line 1, column 19: ']' where a value should be; nothing merged|merge "$TMP/w/m1.ini" "$TMP/w/bad.json" --file "$TMP/w/keep.ini"
1: gputune cache merge: cannot write $TMP/nowhere/x.ini: No such file or directory|merge "$TMP/w/m1.ini" -o "$TMP/nowhere/x.ini"
2: gputune cache prune: name what to remove: --older-than, --missing-images, --driver or --device (gputune cache --help says how)|prune --file "$TMP/w/keep.ini"
2: gputune cache prune: --older-than takes a date, YYYY-MM-DD, not '2024-02-30' (gputune cache --help says how)|prune --older-than 2024-02-30 --file "$TMP/w/keep.ini"
2: gputune cache prune: --older-than takes a date, YYYY-MM-DD, not '2024-1-1' (gputune cache --help says how)|prune --older-than 2024-1-1 --file "$TMP/w/keep.ini"
2: gputune cache prune: --driver takes a version as the cache file writes it (13000) or 'current', not '13.0' (gputune cache --help says how)|prune --driver 13.0 --file "$TMP/w/keep.ini"
2: gputune cache prune: unknown option '--all' (gputune cache --help says how)|prune --all --file "$TMP/w/keep.ini"
2: gputune cache prune: name a program or --file F (or set GPUTUNE_CACHE_FILE) (gputune cache --help says how)|prune --missing-images
1: gputune cache prune: $TMP/w/none.ini: no such file|prune --missing-images --file "$TMP/w/none.ini"
2: gputune cache prune: /nowhere/app: No such file or directory|prune --missing-images /nowhere/app
EOF
is "$(cksum <"$TMP/w/keep.ini")" "$keep" "no failed import, merge or prune changed the file"
is "$(ls "$TMP/w" | grep -c 'XXXXXX\|\.[A-Za-z0-9]\{6\}$')" 0 "  and no failed output left a temporary file"

is "$(LD_LIBRARY_PATH="$FAKE" FAKECUDA_FAIL=cuInit gt_err cache prune --device current --file "$TMP/w/keep.ini")" \
    "1: gputune cache prune: 'current' needs a usable CUDA device, and the driver finds none (error 1): name the driver or device" \
    "--device current where the driver finds no device: said, exit 1"
chmod 666 "$TMP/w/keep.ini"
is "$(gt_err cache import "$TMP/w/m2.ini" --file "$TMP/w/keep.ini")" \
    "1: gputune cache import: $TMP/w/keep.ini is writable by other users; not using it" \
    "import into a file others can write: refused as the shim refuses it"
chmod 600 "$TMP/w/keep.ini"
is "$(cksum <"$TMP/w/keep.ini")" "$keep" "  and left as it is"

gzip -dc "$GT_SRC/bench/landscapes/public/convolution_milo_A100_T4.json.gz" >"$TMP/w/conv.json" 2>/dev/null
if [ -s "$TMP/w/conv.json" ]; then
    is "$(gt_err cache import "$TMP/w/conv.json" --file "$TMP/w/x.ini")" \
        "1: gputune cache import: $TMP/w/conv.json: line 6, column 5: results[0] has no metadata naming its kernel, signature and device: gputune imports the results it exported from a cache file; nothing imported" \
        "Kernel Tuner's own T4 landscape (7 MB) reads as JSON; it names no kernel or device: said"
else
    echo "ok $((tap_n += 1)) # SKIP the public landscapes are not beside this checkout"
fi

is "$(gt cache --help | head -1)" "usage: gputune cache [list] (PROGRAM [ARGS...] | --file F)" "--help: the usage, exit 0"
is "$(gt_err cache prune --help)" "0: " "  for each subcommand too"

done_testing
