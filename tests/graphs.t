#!/bin/sh
# Launches captured into a graph, on the CPU against the stand-in driver:
# minirt launches scale seven times directly, then captures two launches
# into a graph.  A configuration already settled (here forced, so run
# unchecked) goes into the graph when it can be captured: a variant loaded
# by the direct launches, or the carve-out, which goes with the launch; a
# cache preference, set on the function rather than the launch, cannot,
# and the captured launches run the original.  A configuration its guard
# still checks stays out of the graph.  A kernel node added by hand gets a
# settled variant already loaded, and nothing else (a node has no stream for
# module-variable copies and no place for a carve-out).  At instantiation a
# node with launch-time knobs gets a copy of the original image that has
# them set on its function.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
export LD_LIBRARY_PATH="$GT_BUILD/tests/fakecuda" GPUTUNE_CACHE_DIR="$TMP/cache"

# minirt with GPUTUNE_FORCE=$2 in mode $1; prints scale's captured and applied launches.
scale() {
    # scale takes no parameters, and its variant must agree with the original
    out=$(FAKECUDA_PARAMS= GPUTUNE_FORCE=$2 GPUTUNE_MODE=$1 GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/log" \
        shim "$H/minirt")
    [ "$out" = "minirt: done" ] || echo "minirt: $out"
    echo "captured=$(detail_of "$TMP/log" scale captured) applied=$(detail_of "$TMP/log" scale applied)"
    grep ' warn: \| error: ' "$TMP/log"
    rm -f "$TMP/log"
}

is "$(scale run 'scale maxrreg=32')" "captured=2 applied=9" \
    "a variant (register limit) loaded by the direct launches runs in the graph too"
is "$(scale run 'scale carveout=50')" "captured=2 applied=9" "a carve-out goes into the graph with the launch"
is "$(scale run 'scale cache=l1')" "captured=2 applied=7" \
    "a cache preference does not: the captured launches run the original"

cat >"$TMP/policy.ini" <<'INI'
[kernel "scale"]
cache = default, l1
carveout = default, 50
INI
# Tuned to cache=l1 (faster in its trials), unchecked; the entry then made
# to say carveout=50, which a graph can hold.
rm -rf "$TMP/cache"
FAKECUDA_PARAMS= FAKECUDA_L1_TRIAL_MS=0.2 GPUTUNE_POLICY="$TMP/policy.ini" GPUTUNE_MODE=tune GPUTUNE_GUARD=off \
    shim "$H/minirt" >/dev/null
sed -i 's/^config = cache=l1 carveout=default$/config = cache=default carveout=50/' "$TMP"/cache/minirt-*.ini
export GPUTUNE_POLICY="$TMP/policy.ini"
is "$(scale run '')" "captured=2 applied=3" \
    "a cached configuration its guard still checks runs on its share of the direct launches, and not in the graph"
is "$(GPUTUNE_GUARD=off scale run '')" "captured=2 applied=9" "  with GPUTUNE_GUARD=off it runs in the graph too"

# minirt --nodes with GPUTUNE_FORCE=$1: the kernel nodes the driver got, and
# scale's count of nodes given a variant.
nodes() {
    rm -f "$TMP/nodes"
    out=$(FAKECUDA_NODES="$TMP/nodes" FAKECUDA_PARAMS= GPUTUNE_FORCE=$1 GPUTUNE_MODE=run GPUTUNE_LOG=debug \
        GPUTUNE_LOG_FILE="$TMP/log" GPUTUNE_CACHE_DIR="$TMP/nodecache" shim "$H/minirt" --nodes)
    [ "$out" = "minirt: done" ] || echo "minirt: $out"
    echo "$(tr '\n' ';' <"$TMP/nodes") nodes=$(detail_of "$TMP/log" scale nodes)"
    rm -f "$TMP/log"
}
unset GPUTUNE_POLICY
is "$(nodes 'scale maxrreg=32')" "scale module 16x256;scale module 16x256; nodes=2" \
    "a kernel node, added and set again, gets the variant the direct launches loaded"
is "$(nodes 'scale carveout=50')" "scale kernel 16x256;scale kernel 16x256; nodes=0" \
    "  a carve-out has no place in a node: the application's kernel"

# minirt --graph (copy captured into a graph that alone runs it) in mode
# $1 with the cache of suffix $2, logged in $TMP/$3.log, with minirt's
# further arguments after: which functions the driver's nodes got, and what
# the log says of graphs.
graph() {
    rm -f "$TMP/nodes"
    mode=$1 suffix=$2 log=$3
    shift 3
    out=$(FAKECUDA_NODES="$TMP/nodes" GPUTUNE_MODE=$mode GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/$log.log" \
        GPUTUNE_CACHE_DIR="$TMP/graph$suffix" shim "$H/minirt" --graph "$@")
    [ "$out" = "minirt: done" ] || echo "minirt: $out"
    sort -u "$TMP/nodes" 2>/dev/null | tr '\n' ';'
}
cat >"$TMP/copy.ini" <<'INI'
[kernel "copy"]
maxrreg = default, 32, 64
INI
# The stand-in driver times a variant at 0.2 ms, the original at 0.25 (no
# watchdog: its flag would be a module variable the stand-in cannot find).
export GPUTUNE_POLICY="$TMP/copy.ini" GPUTUNE_WATCHDOG=off FAKECUDA_MODULE_MS=0.2
is "$(graph tune 1 gtune)" "copy module 8x256;" \
    "tune mode: a kernel launched only in a graph is tuned, its winner put in the graph"
check "  by a session at the graph's second launch" \
    grep -q "kernel copy: launch grid=8,1,1 block=256,1,1 smem=0 tuned in .*: maxrreg=32 200.00 us against 250.00 us" \
    "$TMP/gtune.log"
check "  then checked on the application's replays, alternating, and kept" grep -q \
    "a graph with 1 tuned kernel node (copy first): its replays take 200.00 us against 250.00 us .*(6 and 6 timed), 1.25x; kept" \
    "$TMP/gtune.log"
is "$(grep -h '^guard = ' "$TMP"/graph1/*.ini)" "guard = kept 1.250" "  the verdict goes to the cache file"
is "$(graph retune 1 gretune)" "copy module 8x256;" \
    "retune mode: the same kernel, its cache entry there, is tuned again in the graph"
check "  by a session of its own" grep -q "kernel copy: launch grid=8,1,1 .* tuned in .*: maxrreg=32" "$TMP/gretune.log"
check "  the replays after it count as the variant's launches" grep -q ' info: *2[0-9] *1 .* copy$' "$TMP/gtune.log"
is "$(graph run 1 grun)" "copy module 8x256;" "run mode: the graph gets the kept variant when it is instantiated"
check "  said at debug" grep -q "kernel copy: a graph node for launch grid=8,1,1 block=256,1,1 smem=0 runs 'maxrreg=32'" \
    "$TMP/grun.log"

# Launch-time knobs alone: the node's parameters have no place for them, so
# the node gets a copy of the original image with the knobs set on its
# function, and the application's own function keeps its settings.
unset GPUTUNE_POLICY
is "$(GPUTUNE_FORCE='copy cache=l1 carveout=50' graph run 11 gknobs)" "copy module 8x256;" \
    "launch-time knobs: the node gets a copy of the image with them set on its function"
check "  said at debug" grep -q "kernel copy: a graph node for launch .* runs 'cache=l1 carveout=50 " "$TMP/gknobs.log"
is "$(FAKECUDA_FAIL=cuModuleLoadData GPUTUNE_FORCE='copy cache=l1' graph run 11 gnocopy)" "" \
    "  the copy failing to load: the node is left as it was, the application's kernel"
check "  said once at info, nothing at warn" sh -c "grep -c 'cannot give graph nodes .cache=l1 .*: cuModuleLoadData failed' \
    '$TMP/gnocopy.log' | grep -qx 1 && ! grep -q ' warn: \| error: ' '$TMP/gnocopy.log'"
export GPUTUNE_POLICY="$TMP/copy.ini"

# The same winner not judged yet (tuned on direct launches, then captured, as
# frameworks do): run mode judges it on the replays of the graph.
rm -rf "$TMP/graph8"
cp -r "$TMP/graph1" "$TMP/graph8"
sed -i '/^guard = /d' "$TMP"/graph8/*.ini
is "$(graph run 8 gjudge)" "copy module 8x256;" \
    "run mode: a cached variant its guard has not judged goes into a clone of the graph"
check "  the replays alternate and judge it" grep -q \
    "a graph with 1 tuned kernel node (copy first): its replays take 200.00 us against 250.00 us .*1.25x; kept" \
    "$TMP/gjudge.log"
is "$(grep -h '^guard = ' "$TMP"/graph8/*.ini)" "guard = kept 1.250" "  the verdict goes to the cache file"
is "$(graph run 8 gjudged)" "copy module 8x256;" "  and the next run puts it into the graph at instantiation"
for f in cuGraphClone cuGraphInstantiateWithParams cuEventRecord; do
    rm -rf "$TMP/graph10" "$TMP/gfail10.log"
    cp -r "$TMP/graph1" "$TMP/graph10"
    sed -i '/^guard = /d' "$TMP"/graph10/*.ini
    FAKECUDA_FAIL=$f graph run 10 gfail10 >/dev/null
    check "run mode, $f failing: the replays run as the application made them" sh -c \
        "! grep -q 'its replays take' '$TMP/gfail10.log' && ! grep -q ' warn: \| error: ' '$TMP/gfail10.log'"
    is "$(grep -h '^guard = ' "$TMP"/graph10/*.ini)" "" "  and no verdict is written"
done
# The replays are judged on executable graphs of the shim's own: the
# application's is updated once, when the verdict is in.
rm -rf "$TMP/graph10"
cp -r "$TMP/graph1" "$TMP/graph10"
sed -i '/^guard = /d' "$TMP"/graph10/*.ini
FAKECUDA_FAIL=cuGraphExecUpdate_v2 graph run 10 gupd10 >/dev/null
check "run mode, cuGraphExecUpdate_v2 failing: the replays are judged all the same" grep -q \
    "its replays take 200.00 us against 250.00 us .*kept" "$TMP/gupd10.log"
check "  the application's graph keeps the kernels it was made with, said at debug only" sh -c \
    "grep -q 'debug: a graph cannot be updated to its tuned kernels' '$TMP/gupd10.log' && ! grep -q ' warn: \| error: ' '$TMP/gupd10.log'"
is "$(grep -h '^guard = ' "$TMP"/graph10/*.ini)" "guard = kept 1.250" "  and the verdict is written, for the next run"
rm -rf "$TMP/graph9"
cp -r "$TMP/graph1" "$TMP/graph9"
sed -i '/^guard = /d' "$TMP"/graph9/*.ini
NOSYNC=cuStreamSynchronize,cuStreamSynchronize_ptsz,cuEventSynchronize,cuMemcpyDtoDAsync_v2,cuMemcpyDtoD_v2
is "$(FAKECUDA_FAIL=$NOSYNC graph online 9 gonline)" \
    "copy module 8x256;" "online mode judges it on the replays the same way"
check "  without a session (the synchronizing calls fail here, and nothing says so)" sh -c \
    "grep -q 'its replays take 200.00 us against 250.00 us .*kept' '$TMP/gonline.log' && ! grep -q ' warn: \| error: \|tuned in' '$TMP/gonline.log'"

# Online mode, a kernel launched only in a graph: at each replay from the
# second its candidates take turns in a node of a clone of the graph (the
# replays 2 ms apart, and many, so that the variants' builds end while they
# run even on a loaded machine under ASan: 100 were too few there), each
# replay timed whole; then the choice is judged on the replays.
BUILT='--copies 600'
rm -rf "$TMP/graph12"
is "$(FAKECUDA_FAIL=$NOSYNC graph online 12 gonl $BUILT --pace 2)" "copy function 8x256;copy module 8x256;" \
    "online mode: a kernel launched only in a graph is tuned on the replays, its choice put in the graph"
check "  its candidates took turns, one per replay, and the fastest was chosen" grep -q \
    "kernel copy: launch grid=8,1,1 block=256,1,1 smem=0 tuned online over 37 launches: maxrreg=32 200.00 us against 250.00 us, 1.25x" \
    "$TMP/gonl.log"
check "  then judged on the replays and kept" grep -q \
    "a graph with 1 tuned kernel node (copy first): its replays take 200.00 us against 250.00 us .*1.25x; kept" \
    "$TMP/gonl.log"
check "  with no session, no synchronization (those calls fail here), nothing at warn" sh -c \
    "! grep -q ' warn: \| error: \|tuned in' '$TMP/gonl.log'"
is "$(grep -h '^strategy = \|^guard = ' "$TMP"/graph12/*.ini | tr '\n' ';')" "strategy = online;guard = kept 1.250;" \
    "  both go to the cache file"
is "$(graph run 12 gonlrun)" "copy module 8x256;" "  and the next run puts the variant into the graph at instantiation"
# Each turn times the node that takes it, between two event-record nodes
# of the trial clone, not the whole replay (the stand-in times a replay as
# its last node: the first node's candidates would all read the second's).
rm -rf "$TMP/graph26"
FAKECUDA_FAIL=$NOSYNC graph online 26 gonlmarks $BUILT --pace 2 --two-nodes >/dev/null
is "$(grep -c "kernel copy: launch grid=\(8\|16\),1,1 .* tuned online over 37 launches: maxrreg=32 200.00 us against 250.00 us" \
    "$TMP/gonlmarks.log")" 2 "online mode, a graph of two nodes: each node's candidates timed alone, each node's found"
rm -rf "$TMP/graph27"
FAKECUDA_FAIL=$NOSYNC,cuGraphAddEventRecordNode graph online 27 gonlnomarks $BUILT --pace 2 --two-nodes >/dev/null
check "  where a node cannot be marked, its turns time the whole replay, said at debug with the kernel and why" sh -c \
    "grep -q 'kernel copy: its node in a graph cannot be timed alone (cuGraphAddEventRecordNode: [A-Z_]*.*); its online turns time the whole replay' '$TMP/gonlnomarks.log' &&
     grep -q 'kernel copy: launch grid=8,1,1 .* tuned online over 13 launches: the original' '$TMP/gonlnomarks.log' &&
     ! grep -q ' warn: \| error: ' '$TMP/gonlnomarks.log'"
# The device's primary context reset while the nodes take turns, or after
# they did, then the executable graph destroyed (as a framework's graph
# object may go after a reset): nothing of the shim's touches the events
# the reset took.
rm -rf "$TMP/graph28" "$TMP/graph29"
FAKECUDA_FAIL=$NOSYNC graph online 28 gonlreset $BUILT --pace 1 --reset >/dev/null 2>"$TMP/gonlreset.err"
is "$(cat "$TMP/gonlreset.err")" "" "  a reset after the marked turns: no event of the shim's is used after it"
check "  (the turns and the judging were over before it)" grep -q \
    "a graph with 1 tuned kernel node (copy first): its replays take 200.00 us against 250.00 us .*; kept" \
    "$TMP/gonlreset.log"
FAKECUDA_FAIL=$NOSYNC graph online 29 gonlreset2 --copies 20 --pace 1 --reset >/dev/null 2>"$TMP/gonlreset2.err"
is "$(cat "$TMP/gonlreset2.err")" "" "  a reset while the nodes take turns (or wait for their builds): none either"
printf '[kernel "copy"]\ncache = default, l1\n' >"$TMP/copyl1.ini"
rm -rf "$TMP/graph13"
is "$(GPUTUNE_POLICY="$TMP/copyl1.ini" graph online 13 gonll1 --copies 60 --pace 1)" \
    "copy function 8x256;copy module 8x256;" \
    "online mode, a launch-time knob: the node holds a copy of the image with the knob set on its function"
check "  tried and chosen on the replays" grep -q "tuned online over .* launches: cache=l1 200.00 us against 250.00 us" \
    "$TMP/gonll1.log"
# An executable graph updated in place to other functions and back runs the
# kernels after them slower on the GPU: the turns and the guard's
# alternation run in executable graphs of the shim's own, and the
# application's (the first instantiated) is updated once, to the choice.
rm -rf "$TMP/graph23" "$TMP/updates"
FAKECUDA_EXEC_UPDATES="$TMP/updates" GPUTUNE_POLICY="$TMP/copyl1.ini" \
    graph online 23 gonlown --copies 60 --pace 1 >/dev/null
is "$(grep -c '^1$' "$TMP/updates")" "1" \
    "online mode: the application's executable graph is updated once, when the choice is judged"
check "  the turns update the shim's own in place" grep -q '^[2-9]' "$TMP/updates"
# The driver orders the launches of one executable graph: a replay on
# another stream than the one before waits for it while the shim launches
# its own, and not once the application's runs again.
rm -rf "$TMP/graph24" "$TMP/waits"
FAKECUDA_WAITS="$TMP/waits" GPUTUNE_POLICY="$TMP/copyl1.ini" \
    graph online 24 gonlstreams --copies 60 --pace 1 --two-streams >/dev/null
check "  replays on two streams by turns: each waits for the one before while they are tuned" sh -c \
    "grep -q 'its replays take .*kept' '$TMP/gonlstreams.log' && [ \$(wc -l <'$TMP/waits') -ge 20 ] && [ \$(wc -l <'$TMP/waits') -lt 60 ]"
rm -f "$TMP/waits"
FAKECUDA_WAITS="$TMP/waits" GPUTUNE_POLICY="$TMP/copyl1.ini" graph online 23 gonlonestream --copies 60 --pace 1 >/dev/null
is "$(cat "$TMP/waits" 2>/dev/null | wc -l)" "0" "  on one stream none waits"
# The application updates its executable graph while the nodes take turns:
# the shim's own copies are stale, so its replays run as the application
# made them from then on, and the shim updates it no more.
rm -rf "$TMP/graph25" "$TMP/updates"
FAKECUDA_EXEC_UPDATES="$TMP/updates" GPUTUNE_POLICY="$TMP/copyl1.ini" \
    graph online 25 gonlchanged --copies 60 --pace 1 --app-update 10 >/dev/null
check "online mode, the application updating its executable graph itself: tuning the graph stops, said at info" \
    grep -q "info: a graph's executable graph was changed by the application while its kernels were tuned" \
    "$TMP/gonlchanged.log"
is "$(grep -c '^1$' "$TMP/updates")" "1" "  its executable graph is updated by the application alone"
check "  nothing judged on the replays, nothing above info" sh -c \
    "! grep -q 'its replays take\| warn: \| error: ' '$TMP/gonlchanged.log'"
rm -rf "$TMP/graph14"
FAKECUDA_FAIL=cuGraphInstantiateWithParams graph online 14 gonlfail --copies 60 --pace 1 >/dev/null
check "online mode, no executable graph of its own to be had: nothing is chosen, nothing said above debug" sh -c \
    "! grep -q 'tuned online\|its replays take\| warn: \| error: ' '$TMP/gonlfail.log'"
is "$(grep -h '^config = ' "$TMP"/graph14/*.ini 2>/dev/null)" "" "  and no configuration is written"

is "$(FAKECUDA_MODULE_APP_MS=0.3 graph tune 2 gslow)" "copy function 8x256;copy module 8x256;" \
    "where the winner of the trials makes the replays slower"
check "  the guard drops it" grep -q \
    "its replays take 300.00 us against 250.00 us .*0.83x; the original kernels run from now on" "$TMP/gslow.log"
is "$(grep -h '^guard = ' "$TMP"/graph2/*.ini)" "guard = dropped 0.833" "  and says so in the cache file"
is "$(graph run 2 gslowrun)" "" "  run mode leaves the graph as the application made it"

# Two nodes whose winners, judged together, slow the replays (the stand-in
# times a replay 0.25 ms, 0.05 less with the first node's variant and 0.1
# more with the second's): each is then judged alone, the first kept.
rm -rf "$TMP/graph15"
FAKECUDA_GRAPH_DELTA_MS=-0.05,0.1 graph tune 15 gtwo --two-nodes --copies 150 >/dev/null
is "$(grep -o 'a graph.*' "$TMP/gtwo.log" | sed 's/ with the original kernels (.*timed)//')" \
    "a graph with 2 tuned kernel nodes (copy first): its replays take 300.00 us against 250.00 us, 0.83x; the original kernels run from now on
a graph's kernel node of copy, launch grid=8,1,1 block=256,1,1 smem=0, judged alone: its replays take 200.00 us against 250.00 us, 1.25x; kept
a graph's kernel node of copy, launch grid=16,1,1 block=256,1,1 smem=0, judged alone: its replays take 350.00 us against 250.00 us, 0.71x; its original stays" \
    "two winners that slow the replays together: each judged alone, on the replays that follow"
is "$(grep -h '^guard = ' "$TMP"/graph15/*.ini | tr '\n' ';')" "guard = kept 1.250;guard = dropped 0.714;" \
    "  each verdict goes to its cache entry"
is "$(FAKECUDA_GRAPH_DELTA_MS=-0.05,0.1 graph run 15 gtworun --two-nodes)" "copy module 8x256;" \
    "  and the next run puts the one kept into the graph"
is "$(GPUTUNE_GUARD=off graph tune 3 goff)" "copy module 8x256;" \
    "GPUTUNE_GUARD=off: the winner goes into the graph unchecked"
check "  no replay is timed" sh -c "! grep -q 'its replays take' '$TMP/goff.log'"

# Under GPUTUNE_BUDGET the nodes' sessions count among the signatures
# tuned, and none starts once the budget is spent.
rm -rf "$TMP/graph16" "$TMP/graph17"
GPUTUNE_BUDGET=100 graph tune 16 gbudget --two-nodes >/dev/null
check "a budget: the graph's two nodes are tuned, and the progress line at exit counts them" \
    grep -q "info: tuning: 2 of 2 signatures seen (2 in graphs) tuned, [0-9.]* s of 100 s spent" "$TMP/gbudget.log"
GPUTUNE_BUDGET=0.000001 graph tune 17 gspent --two-nodes >/dev/null
check "a budget spent by the first node's session: it keeps nothing" \
    grep -q "kernel copy: launch grid=8,1,1 .* not tuned: the process's tuning budget ran out after 0 trials" \
    "$TMP/gspent.log"
check "  and the second node gets none" sh -c "! grep -q 'launch grid=16,1,1 .*tuned' '$TMP/gspent.log'"
is "$(cat "$TMP"/graph17/*.ini 2>/dev/null | grep -c '^\[entry ')" 0 "  nothing is written, so a later run tunes both"

# The kernels launched directly before the capture (a framework's warm-up),
# grid 16 four times slower: its node's session comes first, though the
# graph holds it second.
rm -rf "$TMP/graph18"
FAKECUDA_GRID_MS=16:1 GPUTUNE_BUDGET=0.000001 graph tune 18 gorder --two-nodes --eager 4 >/dev/null
check "a budget and the nodes' kernels timed on direct launches: the slower one's session goes first" \
    grep -q "kernel copy: launch grid=16,1,1 .* not tuned: the process's tuning budget ran out after 0 trials" \
    "$TMP/gorder.log"
check "  and, the budget spent, the other gets none" sh -c "! grep -q 'launch grid=8,1,1 .*tuned' '$TMP/gorder.log'"

rm -rf "$TMP/graph5"
is "$(FAKECUDA_EVENTS_PENDING=1 graph tune 5 gpend)" "copy module 8x256;" \
    "where no replay's time can be read while the application replays (the GPU behind it)"
check "  at most 18 timed replays out unread, read when the application destroys the graph after waiting for it" \
    grep -q "a graph with 1 tuned kernel node (copy first): its replays take 200.00 us against 250.00 us with the original kernels (9 and 9 timed), 1.25x; kept" \
    "$TMP/gpend.log"
is "$(grep -h '^guard = ' "$TMP"/graph5/*.ini)" "guard = kept 1.250" "  the verdict goes to the cache file"

for f in cuGraphClone cuGraphExecUpdate_v2 cuGraphGetNodes; do
    rm -rf "$TMP/graph4"
    FAKECUDA_FAIL=$f graph tune 4 gfail >/dev/null
    check "$f failing: the graph runs the original kernels (no replay counted as the variant's)" \
        grep -q ' info: *1 *1 .* copy$' "$TMP/gfail.log"
    is "$(grep ' warn: \| error: ' "$TMP/gfail.log")" "" "  and the application sees nothing of it"
done

# A stream capture takes the function's cache preference into its nodes
# for good, as the real driver does (the stand-in's nodes keep the one
# their function had when they were set).  Trials and online turns that
# set one on the application's own function put its own back as they end,
# so that a framework's capture right after its warm-up (one launch
# directly, then the capture) records the application's kernel as it set
# it: here cache=l1 reads slower in trials and the original is kept.
printf '[kernel "copy"]\ncache = default, shared, l1, equal\n' >"$TMP/copycache.ini"
# The cache preferences the graph's nodes of the application's function ran with, one line.
replays_cache() {
    grep '^copy function ' "$TMP/$1.launches" | sort -u | tr '\n' ';'
}
for way in "tune 19 1" "online 20 3"; do
    set -- $way
    rm -rf "$TMP/graph$2" "$TMP/cc$2.launches"
    FAKECUDA_L1_TRIAL_MS=0.3 FAKECUDA_LAUNCHES="$TMP/cc$2.launches" GPUTUNE_POLICY="$TMP/copycache.ini" \
        graph "$1" "$2" "gcache$2" --eager "$3" >/dev/null
    check "$1 mode, $3 direct launches before the capture: a cache preference was tried on the application's function" \
        grep -q '^copy kernel \(shared\|l1\|equal\)$' "$TMP/cc$2.launches"
    is "$(replays_cache "cc$2")" "copy function none;" "  the graph's replays run it with the application's own preference"
done

# Run mode with cache=l1 forced: the direct launches leave it on the
# function; a captured launch of the original takes the application's own
# (here the copy of the image that would carry l1 into the nodes fails to
# load, so the nodes keep the captured original).
rm -rf "$TMP/graph21" "$TMP/cc21.launches"
FAKECUDA_FAIL=cuModuleLoadData FAKECUDA_LAUNCHES="$TMP/cc21.launches" GPUTUNE_POLICY="$TMP/copycache.ini" \
    GPUTUNE_FORCE='copy cache=l1' graph run 21 gforcel1 --eager 2 >/dev/null
is "$(grep -c '^copy kernel l1$' "$TMP/cc21.launches")" 2 "run mode, cache=l1 forced: the direct launches run it"
is "$(replays_cache cc21)" "copy function none;" "  the graph's replays run the captured original with the application's preference"

# Every driver call of a graph's tuning failing in turn (every k-th,
# GT_FAULT_STEP=1 for each), in tune mode and in online mode: the
# application ends as it would on that error, never by a signal or a hang,
# with at most one message.
for mode in tune online; do
    args=
    [ $mode = online ] && args="--copies 60 --pace 1"
    rm -rf "$TMP/graph6"
    FAKECUDA_COUNT="$TMP/count" graph $mode 6 gcount $args >/dev/null
    total=$(cut -d' ' -f1 "$TMP/count")
    step=${GT_FAULT_STEP:-$(((total + 99) / 100))}
    : >"$TMP/wrong"
    for n in $(seq 1 "$step" "$total"); do
        rm -rf "$TMP/graph7" "$TMP/gfault.log"
        out=$(FAKECUDA_FAIL_AFTER=$n GPUTUNE_MODE=$mode GPUTUNE_LOG=warn GPUTUNE_LOG_FILE="$TMP/gfault.log" \
            GPUTUNE_CACHE_DIR="$TMP/graph7" timeout 60 env LD_PRELOAD="$GT_PRELOAD" "$H/minirt" --graph $args 2>&1)
        rc=$?
        msgs=$(grep -c ' \(warn\|error\): ' "$TMP/gfault.log" 2>/dev/null)
        case $rc in
        0 | 4) [ "${msgs:-0}" -le 1 ] || echo "call $n failing: $msgs messages" >>"$TMP/wrong" ;;
        *) echo "call $n failing: exit status $rc: $out" >>"$TMP/wrong" ;;
        esac
    done
    check "$mode mode: a graph's tuning makes driver calls ($total)" test "$total" -gt 100
    is "$(head -3 "$TMP/wrong")" "" "  each failing in turn (1 in $step): no signal, no hang, at most one message"
done

done_testing
