#!/bin/sh
# bench/frameworks without a GPU: every workload script compiles, wants its OUTPUT argument and skips
# (exit status 3, a SKIP line) when its framework is missing; the driver runs the five ways in rounds
# of rotated order with the environment each needs, compares outputs with the first run's, counts what
# tuning reported and applied, kills a hung run together with its children, and reports failures,
# skips and the shim's warnings, the ways of a round timing their groups in turns, the shim's ways but
# off each with a group beside it with the shim suspended; --resume reads back what an earlier run of
# it finished and runs the rest, and an interrupt kills the runs it started; launch_cost and knob_cost
# skip without PyTorch and refuse bad options and a missing library.
# tests/scripts/fake_python plays the workloads.
. "$(dirname "$0")/lib.sh"

B=$GT_SRC/bench/frameworks
PY=${PYTHON:-python3}
export PYTHONDONTWRITEBYTECODE=1

check "the driver and every workload script compile" "$PY" -c '
import sys
for f in sys.argv[1:]:
    compile(open(f).read(), f, "exec")' "$B/run" "$B/launch_cost" "$B/knob_cost" "$B"/*.py

mkdir "$TMP/stubs"
for m in numpy torch jax cupy triton; do
    echo 'raise ImportError("stubbed out")' >"$TMP/stubs/$m.py"
done
for wl in mlp resnet18 compile_block graphs triton triton_graphs jax cupy; do
    "$PY" "$B/${wl}_workload.py" >"$TMP/$wl.usage" 2>&1
    is "$?" 2 "$wl: no OUTPUT: exit status 2"
    check "$wl: and its usage" grep -q "^usage: ${wl}_workload.py OUTPUT" "$TMP/$wl.usage"
    PYTHONPATH="$TMP/stubs" "$PY" "$B/${wl}_workload.py" "$TMP/$wl.bin" >"$TMP/$wl.out" 2>&1
    is "$?" 3 "$wl: its framework missing: exit status 3"
    check "$wl: and one SKIP line saying so" grep -qx 'SKIP [a-z]* is not importable: stubbed out' "$TMP/$wl.out"
done

out=$(PYTHONPATH="$TMP/stubs" "$PY" "$B/launch_cost" --lib "$GT_PRELOAD" 2>&1)
is "$?" 0 "launch_cost, PyTorch missing: exit status 0"
is "$out" "SKIP torch is not importable: stubbed out" "  and one SKIP line saying so"
"$PY" "$B/launch_cost" --pairs 2 >/dev/null 2>&1
is "$?" 2 "launch_cost --pairs 2: a usage error"
"$PY" "$B/launch_cost" --cpu 100000 >"$TMP/lc.err" 2>&1
is "$?" 2 "launch_cost --cpu with a CPU this process may not use: a usage error"
check "  naming it" grep -q -- "--cpu 100000: not a CPU this process may use" "$TMP/lc.err"
"$PY" "$B/launch_cost" --lib "$TMP/none.so" >"$TMP/lc.err" 2>&1
is "$?" 2 "launch_cost, a library that is not there: exit status 2"
check "  naming it" grep -q "$TMP/none.so is missing" "$TMP/lc.err"

out=$(PYTHONPATH="$TMP/stubs" "$PY" "$B/knob_cost" --lib "$GT_PRELOAD" --rounds 1 2>&1)
is "$?" 0 "knob_cost, PyTorch missing: exit status 0"
is "$out" "SKIP torch is not importable: stubbed out" "  and one SKIP line saying so"
"$PY" "$B/knob_cost" --force 'clamp' >"$TMP/kc.err" 2>&1
is "$?" 2 "knob_cost --force without a configuration: a usage error"
check "  saying what it takes" grep -q -- "--force takes 'GLOB CONFIG'" "$TMP/kc.err"
"$PY" "$B/knob_cost" --groups 2 >/dev/null 2>&1
is "$?" 2 "knob_cost --groups 2: a usage error"
"$PY" "$B/knob_cost" --lib "$TMP/none.so" >"$TMP/kc.err" 2>&1
is "$?" 2 "knob_cost, a library that is not there: exit status 2"
check "  naming it" grep -q "$TMP/none.so is missing" "$TMP/kc.err"

# Cell N (1 workload, 2 plain, 3 off, 4 run-empty, 5 its in-process ratio, 6 tune, 7 its in-process
# ratio, 8 run-tuned, 9 its in-process ratio, 10 bitwise, 11 tuned sigs, 12 warm-up, 13 tune wall,
# 14 the tuning's progress, 15 verdict) of a workload's row in FILE.
cell() {
    awk -F'|' -v w="$2" -v n="$3" '$2 == " " w " " { v = $(n + 1); gsub(/^ +| +$/, "", v); print v; exit }' "$1"
}

not_alive() {
    _st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
    [ -z "$_st" ] || [ "$_st" = Z ]
}

out=$TMP/out
FAKE_DIR=$TMP FAKE_OUT=$out FAKE_SET='budget.seconds=1'
export FAKE_DIR FAKE_OUT FAKE_SET
fake() {
    "$B/run" --lib "$GT_PRELOAD" --python "$GT_SRC/tests/scripts/fake_python" --timeout 2 --set "$FAKE_SET" "$@"
}
fake --rounds 2 --out "$out" mlp resnet18 triton jax cupy compile_block triton_graphs >"$TMP/run.out" 2>"$TMP/run.err"
is "$?" 1 "driver: some runs failed: exit status 1"
R=$TMP/run.out
is "$(cell "$R" mlp 2)" "2" "plain: the median of its rounds"
is "$(cell "$R" mlp 3)" "2.02 (1.010x, 1.01-1.01)" "off: without GPUTUNE_SET, with the shim and a log file; its ratio to plain"
is "$(cell "$R" mlp 4)" "2.1 (1.050x, 1.05-1.05)" "run-empty: a fresh empty cache directory"
is "$(cell "$R" mlp 5)" "1.024x (1.02-1.02)" "  in-process: its groups over those beside them with the shim suspended"
is "$(cell "$R" mlp 6)" "1.9 (0.950x, 0.95-0.95)" "tune: GPUTUNE_SET and a report"
is "$(cell "$R" mlp 7)" "0.927x (0.93-0.93)" "  in-process"
is "$(cell "$R" mlp 8)" "1.8 (0.900x, 0.90-0.90)" "run-tuned: the cache tune filled"
is "$(cell "$R" mlp 9)" "0.878x (0.88-0.88)" "  in-process"
for way in plain off run-empty tune run-tuned; do
    is "$(wc -l <"$TMP/mlp.$way.turns")" 6 "$way: its three groups a round timed in turns, two rounds"
done
is "$(cell "$R" mlp 10)" "yes" "outputs bitwise the first run's"
is "$(cell "$R" mlp 11)" "3 (2 faster, 1 applied)" "signatures tuned, faster and applied"
is "$(cell "$R" mlp 12)" "0.5, 3.0" "warm-up seconds of plain and of the first tune run"
is "$(cell "$R" mlp 14)" "3 sigs, 0.3 s" "the tuning run's last progress line, without a budget"
is "$(cell "$R" mlp 15)" "run-empty 1.050x > 1.02x (95% interval 1.050-1.050; in-process 1.024x, 95% interval \
1.024-1.024, within the target)" \
    "the verdict names the target missed, above it by more than the turns' spread, with the in-process reading"
is "$(cell "$R" compile_block 8)" "2.1 (1.050x, 0.90-1.15)" "a way whose groups spread"
is "$(cell "$R" compile_block 15)" "not resolved: run-tuned 1.050x > 1.00x (95% interval 0.900-1.150; in-process \
1.024x, 95% interval 0.878-1.122)" \
    "  is not resolved where its spread holds the target"
is "$(cell "$R" triton_graphs 15)" "not resolved: run-empty 1.050x > 1.02x (95% interval 1.050-1.050; in-process \
1.024x, 95% interval 1.024-1.024, within the target), run-tuned 1.100x > 1.00x (95% interval 1.100-1.100; \
in-process 1.073x, 95% interval 1.073-1.073), off, which does nothing, 1.100x (95% interval 1.100-1.100)" \
    "nor where off, the control, reads beyond 1.02x; the in-process reading says which way keeps its target there"
is "$(cell "$R" resnet18 10)" "no: run-tuned 2/2" "outputs that differ are counted per way"
check "and fail the verdict" sh -c "awk -F'|' '\$2 == \" resnet18 \"' '$R' | grep -q 'outputs differ'"
is "$(cell "$R" triton 3)" "-" "a way whose runs failed has no time"
is "$(cell "$R" triton 15)" "run-empty 1.050x > 1.02x (95% interval 1.050-1.050; in-process 1.024x, 95% interval \
1.024-1.024, within the target); 2 runs failed" \
    "failed runs fail the verdict"
is "$(cell "$R" jax 11)" "-" "no report from a tune run that was killed"
is "$(cell "$R" cupy 2)" "skipped: cupy is not importable: fake" "a skipped workload says why"
check "a run past --timeout is reported" grep -qx -- "- jax, tuning run: timed out after 2 s; end of .*" "$R"
check "in a round too" grep -qx -- "- jax, round 1, tune: timed out after 2 s; end of .*" "$R"
check "the hung run's children were killed with it" not_alive "$(cat "$TMP/jax.child")"
check "a failed run is reported with its exit status" \
    grep -qx -- "- triton, round 2, off: exit status 1; end of .*" "$R"
check "and the end of its stderr" grep -qx '      boom: fake failure' "$R"
check "the shim's warnings are summed up" grep -qx -- '- mlp: 2 lines, 1 distinct, e.g. `fake warning`' "$R"
check "a line per run as it ends" grep -q '^mlp r1 plain: 2 ms, warm-up 0.50 s, wall [0-9.]* s, outputs same$' "$R"
# The ways of a round, in the order they ran.
order() {
    grep "^mlp r$1 " "$R" | cut -d: -f1 | cut -d' ' -f3 | tr '\n' ' '
}
is "$(order 1)" "plain off run-empty tune run-tuned " "round 1 in order"
is "$(order 2)" "off run-empty tune run-tuned plain " "round 2 rotated by one"
M=$out/frameworks.md
check "frameworks.md: a header" grep -qx '# bench/frameworks' "$M"
check "with the rounds" grep -q '^- rounds: 2 ' "$M"
check "and the settings" grep -qx -- '- GPUTUNE_SET of the tune runs: `budget.seconds=1`; GPUTUNE_BUDGET: none' "$M"
grep '^|' "$R" >"$TMP/table.stdout"
grep '^|' "$M" >"$TMP/table.md"
check "then the table printed" cmp "$TMP/table.stdout" "$TMP/table.md"

: >"$out/mlp/stray"
fake --rounds 1 --out "$out" mlp >"$TMP/again.out" 2>&1
is "$?" 0 "again into the same directory: exit status 0"
check "the workload's directory is cleared first" test ! -e "$out/mlp/stray"
is "$(cell "$TMP/again.out" mlp 11)" "3 (2 faster, 1 applied)" "and its tuned cache: the first tune run tunes again"
is "$(cell "$TMP/again.out" mlp 15)" "not resolved: run-empty 1.050x > 1.02x (95% interval 1.050-1.050, one process \
a way; in-process 1.024x, 95% interval 1.024-1.024, within the target)" \
    "  a target missed in one round is not resolved: the interval holds one process of each way"
# --resume: one round, then continued to two, into a directory of its own (FAKE_DIR counts the turns).
rs=$TMP/rs
mkdir "$rs"
resume() {
    FAKE_DIR=$rs FAKE_OUT=$rs/out fake --out "$rs/out" "$@" mlp
}
resume --rounds 1 >"$rs/1.out" 2>&1
resume --rounds 2 --resume >"$rs/2.out" 2>&1
is "$?" 0 "--resume: exit status 0"
is "$(grep -c ', read back$' "$rs/2.out")" 7 "  the priming run, the tuning run and round 1's five ways read back"
check "  each said as it was" grep -qx 'mlp r1 run-tuned: 1.8 ms, warm-up 0.50 s, wall [0-9.]* s, outputs same, read back' \
    "$rs/2.out"
is "$(wc -l <"$rs/mlp.plain.turns")" 6 "  round 1 not run again: three turns in each of two rounds"
is "$(grep -c '^mlp r2 .*outputs same$' "$rs/2.out")" 5 "  round 2 run"
for n in 2 3 4 5 6 7 8 9 10 11 12 14 15; do
    is "$(cell "$rs/2.out" mlp $n)" "$(cell "$R" mlp $n)" "  cell $n of the table as two rounds in one go give it"
done
rm "$rs/out/mlp/r2.tune.run"
: >"$rs/out/mlp/r2.stray"
resume --rounds 2 --resume >"$rs/3.out" 2>&1
is "$(grep -c ', read back$' "$rs/3.out")" 7 "a round cut short: the whole rounds before it read back"
is "$(grep -c '^mlp r2 .*outputs same$' "$rs/3.out")" 5 "  and it run again, every way"
check "  its files cleared first" test ! -e "$rs/out/mlp/r2.stray"
is "$(wc -l <"$rs/mlp.plain.turns")" 9 "  three turns more"
is "$(cell "$rs/3.out" mlp 8)" "$(cell "$R" mlp 8)" "  the table as before"
resume --rounds 2 --resume >"$rs/4.out" 2>&1
is "$(grep -c ', read back$' "$rs/4.out")" 12 "every round whole: all read back"
is "$(wc -l <"$rs/mlp.plain.turns")" 9 "  nothing run"
is "$(cell "$rs/4.out" mlp 11)" "3 (2 faster, 1 applied)" "  the tuned cache still there"
resume --rounds 1 --resume >"$rs/fewer.out" 2>&1
is "$(grep -c ', read back$' "$rs/fewer.out")" 7 "fewer rounds asked for than there are: those read back"
check "  the later ones kept" test -e "$rs/out/mlp/r2.plain.run"
resume --rounds 2 --resume --set other >/dev/null 2>"$rs/set.err"
is "$?" 2 "--resume under other settings: exit status 2"
check "  naming the setting" grep -qF "was run with other settings (set 'budget.seconds=1', now 'other')" "$rs/set.err"
head -1 "$rs/out/mlp/bench-frameworks.txt" >"$rs/mark" && cp "$rs/mark" "$rs/out/mlp/bench-frameworks.txt"
resume --rounds 2 --resume >/dev/null 2>"$rs/mark.err"
is "$?" 2 "--resume into a directory that records no settings: exit status 2"
check "  saying so" grep -qF "records no settings to resume under; run it without --resume" "$rs/mark.err"
fake --resume mlp >/dev/null 2>"$rs/noout.err"
is "$?" 2 "--resume without --out: a usage error"
check "  saying so" grep -q -- "--resume needs the --out of the run it continues" "$rs/noout.err"
FAKE_DIR=$rs FAKE_OUT=$rs/new fake --rounds 1 --resume --out "$rs/new" mlp >"$rs/new.out" 2>&1
is "$?" 0 "--resume where there is nothing to resume: exit status 0"
check "  saying so" grep -qx "mlp: nothing to resume in $rs/new/mlp; from the start" "$rs/new.out"
is "$(cell "$rs/new.out" mlp 2)" "2" "  and starting afresh"

# An interrupt (SIGTERM: a background job of this shell ignores SIGINT) ends the runs' processes with
# the driver: jax's tune mode hangs, in the tuning run until --timeout, then in round 1 while the
# driver waits for it to be ready, the ways before it waiting for their turns.
child() {
    for _ in $(seq 100); do
        _pid=$(cat "$TMP/jax.child" 2>/dev/null)
        [ -n "$_pid" ] && [ "$_pid" != "$1" ] && echo "$_pid" && return
        sleep 0.1
    done
}
rm -f "$TMP/jax.child"
FAKE_OUT=$TMP/int exec "$B/run" --lib "$GT_PRELOAD" --python "$GT_SRC/tests/scripts/fake_python" --timeout 2 \
    --set "$FAKE_SET" --rounds 1 --out "$TMP/int" jax >"$TMP/int.out" 2>&1 &
driver=$!
hung=$(child "$(child none)")
kill -TERM "$driver"
wait "$driver"
is "$?" 130 "interrupted: exit status 130"
check "  the hung run of the round killed" not_alive "$hung"
check "  and those waiting for their turns" sh -c "! grep -qa '$TMP/in[t]/jax/r1' /proc/[0-9]*/cmdline 2>/dev/null"

FAKE_OUT=$TMP/online fake --rounds 2 --online --out "$TMP/online" mlp >"$TMP/online.out" 2>&1
is "$?" 0 "--online: exit status 0"
check "  three columns more" grep -q '^| workload | plain ms | off | run (empty) | .* | run (tuned), in-process: active/suspended | online | online, in-process: active/suspended | online against tune (steady) | bitwise |' \
    "$TMP/online.out"
is "$(cell "$TMP/online.out" mlp 10)" "1.7 (0.850x, 0.85-0.85)" "  online: a fresh empty cache directory each round"
is "$(cell "$TMP/online.out" mlp 11)" "0.829x (0.83-0.83)" "  and its groups beside those with the shim suspended"
is "$(cell "$TMP/online.out" mlp 12)" "0.895x (0.895-0.895), ahead" \
    "  and against tune mode's steady state in the same turns: 1.7 ms over 1.9"
check "  online's tuning ended within its warm-up: no runs listed for tuning after it" \
    sh -c "! grep -q '^Tuning after the warm-up' '$TMP/online.out'"
check "the launch path's cost as tune and online mode measured it, over the rounds" grep -qxF \
    -e "- mlp, tune: 57 ns a launch, the median of 2 runs (57-57)" -e "- mlp, online: 41 ns a launch, the median of 2 runs (41-41)" \
    "$TMP/online.out"
is "$(grep -c -e '^- mlp, tune: 57 ns' -e '^- mlp, online: 41 ns' "$TMP/online.out")" 2 "  one line each"
FAKE_ONLINE_LAST=9 FAKE_OUT=$TMP/late fake --rounds 1 --online --out "$TMP/late" mlp >"$TMP/late.out" 2>&1
check "online's last signature decided after its warm-up: the run is listed, with both times" grep -qxF -e \
    "- mlp, round 1, online: its last signature decided online 9.0 s after its first launch, its warm-up 0.5 s" \
    "$TMP/late.out"
FAKE_ONLINE_MS=1.905 FAKE_OUT=$TMP/online2 fake --rounds 2 --online --out "$TMP/online2" mlp >"$TMP/online2.out" 2>&1
is "$(cell "$TMP/online2.out" mlp 12)" "1.003x (1.003-1.003), behind" \
    "  behind where the whole interval lies above 1.00, by less than 0.5%"
FAKE_ONLINE_MS=1.905 FAKE_OUT=$TMP/online1 fake --rounds 1 --online --out "$TMP/online1" mlp >"$TMP/online1.out" 2>&1
is "$(cell "$TMP/online1.out" mlp 12)" "1.003x (1.003-1.003, one process a way), not judged" \
    "  not judged from one round, whose interval cannot hold the pace of other processes"
is "$(grep '^mlp r2 ' "$TMP/online.out" | cut -d: -f1 | cut -d' ' -f3 | tr '\n' ' ')" \
    "off run-empty tune run-tuned online plain " "  the sixth way in the rotation"
FAKE_BUDGET=2.5 FAKE_OUT=$TMP/budget fake --rounds 1 --budget 2.5 --out "$TMP/budget" mlp >"$TMP/budget.out" 2>&1
is "$?" 0 "--budget: exit status 0"
is "$(cell "$TMP/budget.out" mlp 6)" "1.9 (0.950x, 0.95-0.95)" "  GPUTUNE_BUDGET in the tune runs"
is "$(cell "$TMP/budget.out" mlp 14)" "3/4 sigs, 90% of GPU time, 2.5 s of 2.5 s" "  and the budget's progress line"
check "  in the header" grep -qx -- '- GPUTUNE_SET of the tune runs: `budget.seconds=1`; GPUTUNE_BUDGET: 2.5 s' \
    "$TMP/budget/frameworks.md"
FAKE_NODES=2 FAKE_BUDGET=2.5 FAKE_OUT=$TMP/nodes fake --rounds 1 --budget 2.5 --out "$TMP/nodes" mlp >"$TMP/nodes.out" 2>&1
is "$(cell "$TMP/nodes.out" mlp 14)" "3/4 sigs (2 graph nodes, untimed), 90% of direct launches' GPU time, 2.5 s of 2.5 s" \
    "  signatures tuned as graph nodes are named apart, since the budget does not time their launches"
FAKE_OUT=$TMP/prof fake --rounds 2 --online --profile 5 --out "$TMP/prof" mlp >"$TMP/prof.out" 2>&1
is "$?" 0 "--profile: exit status 0"
is "$(grep -F '| mlp | `gemm' "$TMP/prof.out")" \
    '| mlp | `gemm\|tile <float>` | 2.00 | 10.00 | 10.00 (1.000x) | 10.00 (1.000x) | 9.00 (0.900x) | 9.50 (0.950x) | 9.00 (0.900x) |' \
    "  a kernel's time a launch in each way, the median over the rounds, and its ratio to plain's"
is "$(grep -F '| mlp | `fill`' "$TMP/prof.out")" \
    '| mlp | `fill` | 1.00 | 1.00 | 1.00 (1.000x) | 1.00 (1.000x) | 1.20 (1.200x) | 1.00 (1.000x) | 1.00 (1.000x) |' \
    "  the kernels in the order of plain's time"
is "$(grep -F '| mlp | every kernel' "$TMP/prof.out")" \
    '| mlp | every kernel and copy, an iteration | - | 21.00 | 21.00 (1.000x) | 21.00 (1.000x) | 19.20 (0.914x) | 20.00 (0.952x) | 19.00 (0.905x) |' \
    "  and every kernel's time an iteration"
check "  a malformed kernel line is left out" sh -c "! grep -q broken '$TMP/prof.out'"
is "$(grep -c '^mlp \(prime\|tuning\): \(2\|1.9\) ms' "$TMP/prof.out")" 2 "  the priming and the tuning run not profiled"
check "without --profile, no kernel table" sh -c "! grep -q '^Kernels inside' '$R'"
fake --profile -1 --out "$TMP/noprofile" mlp >/dev/null 2>"$TMP/noprofile.err"
is "$?" 2 "--profile -1: a usage error"
fake --budget 0 --out "$TMP/nobudget" mlp >/dev/null 2>"$TMP/nobudget.err"
is "$?" 2 "--budget 0: a usage error"
check "  saying so" grep -q -- "--budget must be positive" "$TMP/nobudget.err"
mkdir -p "$TMP/other/mlp"
fake --out "$TMP/other" mlp >/dev/null 2>"$TMP/other.err"
is "$?" 2 "a workload directory the driver did not make: exit status 2"
check "and why" grep -q "was not made by bench/frameworks/run" "$TMP/other.err"
fake --cpu 100000 --out "$TMP/cpu" mlp >/dev/null 2>"$TMP/cpu.err"
is "$?" 2 "a CPU the driver may not use: exit status 2"
check "and why" grep -q -- "--cpu 100000: not a CPU this process may use" "$TMP/cpu.err"
check "the table says where the timed threads ran" grep -q '^- the timed threads pinned to CPU [0-9]' "$M"
# --whole: every thread of the rounds' processes on --cpu from each one's start; the priming and
# tuning runs on every CPU the driver may use.
mkdir "$TMP/whole"
cpu=$("$PY" -c 'import os; print(max(os.sched_getaffinity(0)))')
all=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
FAKE_DIR=$TMP/whole FAKE_OUT=$TMP/whole/out fake --rounds 1 --whole --cpu "$cpu" --out "$TMP/whole/out" mlp \
    >/dev/null 2>&1
is "$(grep -c "^round [a-z-]* $cpu\$" "$TMP/whole/mlp.cpus")" 5 \
    "--whole: each of the round's five processes may run on --cpu alone, from its start"
is "$(grep -c "^untimed [a-z-]* $all\$" "$TMP/whole/mlp.cpus")" 2 "  the priming and tuning runs on every CPU"
check "  the table says so" grep -q "^- every thread of the rounds' processes pinned to CPU $cpu from its start" \
    "$TMP/whole/out/frameworks.md"
fake --whole --cpu none --out "$TMP/wholenone" mlp >/dev/null 2>"$TMP/wholenone.err"
is "$?" 2 "--whole with --cpu none: a usage error"
check "  saying why" grep -q -- "--whole pins to --cpu, which is none" "$TMP/wholenone.err"
check "  and that each workload warmed up as it does" grep -q "^- warm-up: each workload's own\$" "$M"
FWBENCH_STEADY=9 FAKE_OUT=$TMP/steady fake --rounds 1 --out "$TMP/steady" mlp >"$TMP/steady.out" 2>&1
check "  or FWBENCH_STEADY's iterations, in every process" \
    grep -q '^- warm-up: FWBENCH_STEADY=9 iterations in every process$' "$TMP/steady/frameworks.md"

# Each way's process starts as the one before it is told to build, and builds once that one is ready:
# its imports overlap that warm-up, its own warm-up overlaps none.
mkdir "$TMP/warm"
FAKE_WARM=1 FAKE_DIR=$TMP/warm FAKE_OUT=$TMP/warm/out fake --rounds 1 --out "$TMP/warm/out" mlp >/dev/null 2>&1
overlap() {
    awk -v a="$1" -v b="$2" '$0 == "start " b { s = NR } $0 == "ready " a { r = NR } $0 == "build " b { w = NR }
                             END { exit !(s && r && w && s < r && r < w) }' "$TMP/warm/mlp.events"
}
for pair in "plain off" "off run-empty" "run-empty tune" "tune run-tuned"; do
    set -- $pair
    check "$2 starts while $1 warms up, and builds once it is ready" overlap "$1" "$2"
done

# fwbench.run itself, on a workload of plain Python (no framework): the
# warm-up's iterations as the workload sets them, or FWBENCH_STEADY's.
cat >"$TMP/tiny_workload.py" <<'PYEOF'
import sys
import fwbench

count = [0]
fwbench.run(sys.argv[1], lambda: (lambda: count.__setitem__(0, count[0] + 1), lambda: None,
                                  lambda: [str(count[0]).encode()]), groups=2, per_group=2, warmup=5)
PYEOF
out=$(PYTHONPATH="$B" "$PY" "$TMP/tiny_workload.py" "$TMP/tiny.bin" 2>&1)
check "fwbench.run: the workload's warm-up, and its groups" sh -c 'printf "%s\n" "$1" | grep -qx "iterations 5+2x2"' - "$out"
is "$(cat "$TMP/tiny.bin")" 9 "  its steps all taken: 5 + 2 x 2"
# And under the driver's turns (FWBENCH_TURNS), played by a harness that answers with WORD, then two
# `go`s and `end` while the workload answers: what it says, and its exit status.
cat >"$TMP/turns.py" <<'PYEOF'
import os
import subprocess
import sys

go_r, go_w = os.pipe()
done_r, done_w = os.pipe()
env = dict(os.environ, FWBENCH_TURNS=f"{go_r} {done_w}")
p = subprocess.Popen([sys.executable] + sys.argv[2:], env=env, pass_fds=(go_r, done_w), stdout=subprocess.DEVNULL)
os.close(go_r)
os.close(done_w)
go, done = os.fdopen(go_w, "w", buffering=1), os.fdopen(done_r)
said = [done.readline().split()[0]]
try:
    for word in (sys.argv[1], "go", "go", "end"):
        go.write(word + "\n")
        if word != "end":
            said.append((done.readline().split() or ["eof"])[0])
        if said[-1] == "eof":
            break
    go.close()
except BrokenPipeError:
    pass
said.append(str(p.wait()))
print(" ".join(said))
PYEOF
rm -f "$TMP/tiny.bin"
out=$(PYTHONPATH="$B" "$PY" "$TMP/turns.py" build "$TMP/tiny_workload.py" "$TMP/tiny.bin" 2>&1)
is "$out" "loaded ready done done 0" "under turns: loaded, ready once told to build, done for each go, exit status 0"
is "$(cat "$TMP/tiny.bin")" 9 "  its steps all taken"
rm -f "$TMP/tiny.bin"
out=$(PYTHONPATH="$B" "$PY" "$TMP/turns.py" stop "$TMP/tiny_workload.py" "$TMP/tiny.bin" 2>&1)
is "$out" "loaded eof 1" "  told anything but build: it builds nothing and ends, exit status 1"
check "  writing no outputs" test ! -e "$TMP/tiny.bin"
out=$(FWBENCH_STEADY=7 PYTHONPATH="$B" "$PY" "$TMP/tiny_workload.py" "$TMP/tiny.bin" 2>&1)
check "FWBENCH_STEADY=7: seven warm-up iterations" sh -c 'printf "%s\n" "$1" | grep -qx "iterations 7+2x2"' - "$out"
is "$(cat "$TMP/tiny.bin")" 11 "  and its steps all taken: 7 + 2 x 2"

done_testing
