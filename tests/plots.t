#!/bin/sh
# GPUTUNE_PLOTS, on the CPU against the stand-in driver (trials that prefer
# L1 take 0.2 ms, the others 0.25 ms): an SVG per tuned signature, in a
# directory made for it (%p expanded), named safely after the kernel; each
# parses as XML, is titled with its kernel and signature, and holds a point
# per trial the report counts, a best-so-far line that never rises and the
# original's time; a plot that cannot be written is said once.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
export LD_LIBRARY_PATH="$GT_BUILD/tests/fakecuda" GPUTUNE_CACHE_DIR="$TMP/cache" FAKECUDA_L1_TRIAL_MS=0.2 \
    GPUTUNE_SET='strategy=random budget.trials=12'

# minirt tuning everything again (or in mode $MODE), log in $TMP/$1.log.
tuned() {
    GPUTUNE_MODE=${MODE:-retune} GPUTUNE_LOG=info GPUTUNE_LOG_FILE="$TMP/$1.log" shim "$H/minirt"
}

out=$(GPUTUNE_PLOTS="$TMP/plots.%p" GPUTUNE_REPORT="$TMP/report.csv" tuned tune)
is "$out" "minirt: done" "GPUTUNE_PLOTS: the application runs"
dir=$(ls -d "$TMP"/plots.* 2>/dev/null)
check "  the directory is made, %p the process id" sh -c "echo '$dir' | grep -qx '$TMP/plots\.[0-9][0-9]*'"
rows=$(sed 1d "$TMP/report.csv" | wc -l | tr -d ' ')
is "$(ls "$dir" | wc -l | tr -d ' ')" "$rows" "  an SVG per tuned signature ($rows)"
is "$(ls "$dir" | grep -cvE '^[A-Za-z0-9][A-Za-z0-9._-]*-[0-9a-f]{16}\.svg$')" 0 \
    "  named in portable letters after the kernel, with a hash"
check "  fill<float>'s name without its brackets" sh -c "ls '$dir' | grep -q '^void_fill_float_float_float_int-'"
check "  said at info" grep -q "info: GPUTUNE_PLOTS: $rows plots of tuned signatures in $dir\$" "$TMP/tune.log"
check "  a kernel's '<' and '>' written as entities" \
    grep -q '<title>void fill&lt;float&gt;(float\*, float, int) / grid=' "$dir"/void_fill_*

# Each plot against its report row; prints those that differ.
cat >"$TMP/plots.py" <<'PY'
import csv, glob, sys
import xml.etree.ElementTree as ET
S = "{http://www.w3.org/2000/svg}"
rows = {r["kernel"] + " / " + r["signature"]: r for r in csv.DictReader(open(sys.argv[1], encoding="utf-8"))}
bad, seen, fell = [], set(), 0
for path in glob.glob(sys.argv[2] + "/*.svg"):
    svg = ET.parse(path).getroot()
    title = svg.find(S + "title").text
    row = rows.get(title)
    points = svg.findall(f"{S}g[@id='trials']/{S}circle")
    best = svg.find(f"{S}polyline[@id='best']")
    ys = [float(p.split(",")[1]) for p in best.get("points").split()] if best is not None else []
    texts = [t.text for t in svg.iter(S + "text")]
    ok = (row is not None and len(points) == int(row["trials"]) > 0 and len(ys) > 0
          and all(b >= a for a, b in zip(ys, ys[1:]))  # y grows downward: a time that never rises
          and svg.find(f"{S}line[@id='baseline']") is not None
          and "original %.2f \u00b5s" % float(row["baseline_us"]) in texts
          and "trial" in texts and "best time so far (\u00b5s)" in texts)
    seen.add(title)
    fell += len(ys) > 1 and ys[-1] > ys[0]
    if not ok:
        bad.append((path, title, len(points), row and row["trials"], ys))
print(bad or "", set(rows) - seen or "", "fell in %d" % fell)
sys.exit(1 if bad or set(rows) != seen or not fell else 0)
PY
if command -v python3 >/dev/null 2>&1; then
    check "  each parses as XML: its row's kernel and signature, a point per trial, a best-so-far line that never rises, the original's time, labelled axes" python3 "$TMP/plots.py" "$TMP/report.csv" "$dir"
fi

rm -rf "$TMP/run"
out=$(MODE=run GPUTUNE_PLOTS="$TMP/run" tuned run)
is "$out" "minirt: done" "run mode with GPUTUNE_PLOTS: the application runs"
check "  nothing tuned, no directory made" test ! -e "$TMP/run"

# Every plot's name taken by a directory: the first that fails is said, and ends them.
for f in "$dir"/*.svg; do rm "$f" && mkdir "$f"; done
out=$(GPUTUNE_PLOTS="$dir" tuned taken)
is "$out" "minirt: done" "plots that cannot be written: the application runs"
is "$(grep -c 'cannot write GPUTUNE_PLOTS' "$TMP/taken.log")" 1 "  one warning"
check "  naming the file and why" \
    grep -q "warn: cannot write GPUTUNE_PLOTS: $dir/[^ ]*\.svg: Is a directory; no more plots are written" "$TMP/taken.log"

: >"$TMP/plainfile"
out=$(GPUTUNE_PLOTS="$TMP/plainfile/plots" tuned nodir)
is "$out" "minirt: done" "a directory that cannot be made: the application runs"
is "$(grep -c 'GPUTUNE_PLOTS' "$TMP/nodir.log")" 1 "  one warning"
check "  naming it and why" grep -q \
    "warn: cannot write GPUTUNE_PLOTS: cannot create directory $TMP/plainfile/plots: Not a directory; no plots are written" \
    "$TMP/nodir.log"

done_testing
