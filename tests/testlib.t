#!/bin/sh
# tests/lib.sh itself: a GPU test file holds the device alone (gpu_alone), so that GPU test files run
# one at a time at any PROVE_JOBS, gives it back when it ends, and waits for it only so long.
. "$(dirname "$0")/lib.sh"

command -v flock >/dev/null 2>&1 || skip_all "no flock(1) here: gpu_alone runs the GPU tests unlocked"
LOCK=$GT_BUILD/tests/gpu.lock

(gpu_alone; echo held >"$TMP/held"; while [ ! -e "$TMP/release" ]; do sleep 0.05; done) &
holder=$!
while [ ! -e "$TMP/held" ]; do sleep 0.05; done
check "while a test file holds the device, another cannot take it" sh -c "! flock -n '$LOCK' true"
out=$(GT_GPU_WAIT=0.2; gpu_alone)
is "$out" "# waited 0.2 s for $LOCK, held by another test file or what it left running; running beside it" \
    "a file that waited GT_GPU_WAIT seconds for it runs, saying so"
: >"$TMP/release"
wait "$holder"
check "once the holder ends, the device is free again" flock -n "$LOCK" true

done_testing
