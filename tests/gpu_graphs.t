#!/bin/sh
# Kernels that run only in a CUDA graph, on the GPU.  graph_app captures
# relax and blend into a graph, destroys the graph and replays the
# executable graph 80 times.  Forced, a variant of relax goes into the graph
# when it is instantiated; tuned, both kernels get sessions at the graph's
# second launch, and any variant that wins is checked on the replays.
# Outputs must be bitwise those of the run without the shim.
. "$(dirname "$0")/lib.sh"
need_gpu
export GPUTUNE_CACHE_DIR="$TMP/cache"
APP=$GT_BUILD/tests/helpers/graph_app

run_as plain "$TMP/plain" "$APP" -o "$TMP/plain.bin"
check "graph_app passes its own check without the shim" ran_ok "$TMP/plain"

GT_LOG_LEVEL=debug GPUTUNE_FORCE='relax maxrreg=32' run_as run "$TMP/force" "$APP" -o "$TMP/force.bin"
check "a forced variant: its own check passes" ran_ok "$TMP/force"
check "  output bitwise identical" cmp "$TMP/plain.bin" "$TMP/force.bin"
check "  the graph's node of relax gets it when the graph is instantiated" \
    grep -q "kernel relax: a graph node for launch .* runs '.*maxrreg=32" "$TMP/force.log"

# A carve-out is a launch attribute, which cuda.h calls valid for launches
# only: captured, it must go into the graph with the launch, and the
# driver must neither refuse it nor invalidate the application's capture.
GT_LOG_LEVEL=debug GPUTUNE_FORCE='relax carveout=50' run_as run "$TMP/carve" "$APP" -o "$TMP/carve.bin"
check "a forced carve-out: its own check passes" ran_ok "$TMP/carve"
check "  output bitwise identical" cmp "$TMP/plain.bin" "$TMP/carve.bin"
check "  it goes into the graph with the captured launch" \
    grep -q "kernel relax: via .*; captured=[1-9][0-9]* cooperative=0 applied=[1-9]" "$TMP/carve.log"
check "  without an error or a warning from the shim" sh -c "! grep -E ' (warn|error): ' '$TMP/carve.log'"

cat >"$TMP/graph.ini" <<'INI'
[kernel "relax"]
maxrreg = default, 32, 64
dlcm = default, cg
INI
GT_LOG_LEVEL=info GPUTUNE_POLICY="$TMP/graph.ini" run_as tune "$TMP/tune" "$APP" -o "$TMP/tune.bin"
check "tune mode: its own check passes" ran_ok "$TMP/tune"
check "  output bitwise identical" cmp "$TMP/plain.bin" "$TMP/tune.bin"
check "  relax, launched only in the graph, is tuned" grep -q "kernel relax: launch .* tuned in " "$TMP/tune.log"
check "  blend too" grep -q "kernel blend: launch .* tuned in " "$TMP/tune.log"
# A winner a node can hold (a variant) is checked on the replays; a winner
# of launch-time knobs only, or the original, leaves nothing to check.
if grep -q "kernel \(relax\|blend\): launch .* tuned in .*): .*\(maxrreg=[0-9]\|dlcm=c\|bounds=on\)" "$TMP/tune.log"; then
    # On failure, what the log says of the sessions and graphs.
    check "  the variants that won are checked on the graph's replays (or said not judged yet)" sh -c \
        "grep -q 'a graph with [12] tuned kernel nodes\\? (\\(relax\\|blend\\) first): \\(its replays take\\|not judged\\)' \
         '$TMP/tune.log' || { grep -i 'graph\\|tuned in\\|guard' '$TMP/tune.log'; false; }"
else
    check "  no variant won its trials: no replay to check" sh -c "! grep -q 'a graph with' '$TMP/tune.log'"
fi
grep "tuned in\|a graph with\|replay_us" "$TMP/tune.log" "$TMP/tune.out" | sed 's/^.* info: /# /; s/^[^#]*replay_us/# replay_us/'
check "no error or warning from the shim" sh -c "! grep -E ' (warn|error): ' '$TMP/tune.log'"

GT_LOG_LEVEL=debug GPUTUNE_POLICY="$TMP/graph.ini" run_as run "$TMP/run" "$APP" -o "$TMP/run.bin"
check "run mode with the tuned cache: its own check passes" ran_ok "$TMP/run"
check "  output bitwise identical" cmp "$TMP/plain.bin" "$TMP/run.bin"
for w in plain force carve tune run; do echo "# $w: $(grep replay_us "$TMP/$w.out")"; done

done_testing
