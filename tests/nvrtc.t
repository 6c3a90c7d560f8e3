#!/bin/sh
# NVRTC output recognized as such: tests/helpers/nvrtc_min compiles with the
# real NVRTC (no GPU needed) and loads through the stand-in driver, linked
# with -lcuda, so the shim's exported driver symbols are the door here.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
FAKE="$GT_BUILD/tests/fakecuda"

plain=$(LD_LIBRARY_PATH="$FAKE" "$H/nvrtc_min")
is "$plain" "nvrtc_min: done" "the program runs without the shim"
shimmed=$(LD_LIBRARY_PATH="$FAKE" GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/run.log" shim "$H/nvrtc_min")
is "$shimmed" "$plain" "and the same with it"
is "$(table_field "$TMP/run.log" 3 axpy)" nvrtc:ptx "the module is known to come from NVRTC"
is "$(table_field "$TMP/run.log" 4 axpy)" compute_75 "with the PTX target NVRTC was given"
is "$(table_field "$TMP/run.log" 1 axpy)" 3 "launches through the exported cuLaunchKernel"
is "$(table_field "$TMP/run.log" 3 touch)" memory:ptx "PTX not from NVRTC is plain memory"
check "the program's name and options are kept" \
    grep -q "NVRTC program axpy.cu, options: -DFACTOR=3 --gpu-architecture=compute_75" "$TMP/run.log"

off=$(LD_LIBRARY_PATH="$FAKE" GPUTUNE_MODE=off GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/off.log" shim "$H/nvrtc_min")
is "$off" "$plain" "off mode"
check "off mode keeps nothing" sh -c "! grep -q 'image:' '$TMP/off.log'"

done_testing
