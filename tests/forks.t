#!/bin/sh
# Forks, on the CPU against the stand-in driver: while three threads launch
# kernels of ever new signatures (tune mode's sessions and their builds
# running), the main thread forks 100 children; every other one launches,
# allocates and frees through the shim, the rest only exit.  Without the
# shim none hangs, and none may with it: a child never waits for a lock a
# thread of its parent held, nor for a compiler's.  minirt kills a child not
# done 30 s after the last fork and counts it hung; `timeout` stops the rest.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
FAKE="$GT_BUILD/tests/fakecuda"
export GPUTUNE_CACHE_DIR="$TMP/cache"

forks() {
    LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=$1 GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/$1.log" \
        timeout 300 sh -c 'LD_PRELOAD="$1" "$2" --threads 3 --forks 100' sh "$GT_PRELOAD" "$H/minirt"
}

plain=$(LD_LIBRARY_PATH="$FAKE" timeout 300 "$H/minirt" --threads 3 --forks 100)
is "$plain" "minirt: 100 children: 0 hung, 0 failed
minirt: done" "without the shim no child hangs"
is "$(forks run)" "$plain" "run mode: no child hangs or fails"
# Under GCC 12's ASan a child that frees memory can hang in libasan itself:
# its allocator takes no locks around fork (LLVM's has since 2023), and a
# parent's build thread may hold one (seen: a child in free() under the
# stand-in's cuMemFree, in SizeClassAllocator64::ReturnToAllocator, in about
# one run of four).  The uninstrumented run of this test checks tune mode.
if [ -n "$GT_SANITIZE" ]; then
    for t in "tune mode: none either" "  sessions ran meanwhile" "  each child says so once" \
        "  only the parent reports"; do
        skip "$t: libasan's allocator is not fork-safe with the parent's build threads"
    done
else
    is "$(forks tune)" "$plain" "tune mode: none either, while sessions build variants"
    check "  sessions ran meanwhile" grep -q ' tuned in ' "$TMP/tune.log"
    is "$(grep -c 'a forked child of a process that used the driver: the shim stays out of its way' "$TMP/tune.log")" \
        100 "  each child says once, at debug, that the shim stays out of its way"
    is "$(grep -c 'launches  *geometries' "$TMP/tune.log")" 1 "  and only the parent reports at exit"
fi

# A child forked before its parent touched the driver uses it as run mode does.
out=$(LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=tune GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/child.log" \
    shim "$H/minirt" --in-child)
is "$out" "minirt: done" "a child forked before the driver was used runs"
check "  it says that it does not tune" \
    grep -q 'a forked child: mode tune runs as mode run here; no tuning session starts' "$TMP/child.log"
check "  and tunes nothing" sh -c "! grep -q ' tuned in ' '$TMP/child.log'"
check "  but reports what it ran" grep -q 'launches  *geometries' "$TMP/child.log"

done_testing
