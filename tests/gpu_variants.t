#!/bin/sh
# Variants on the GPU: examples run with configurations forced on their
# kernels (GPUTUNE_FORCE), rebuilt from the image's PTX, from the
# application's NVRTC program, from a policy's source, or their image loaded
# again with another cache preference.  Every run must pass its own check
# and write bitwise the output of the run without the shim, each forced
# kernel's launches must have run its variant (launches into a capturing
# stream excepted), and no configuration may have been refused.  runtime_app's
# poly_const reads a __constant__ array the application writes and counts
# into a __device__ variable the application reads: the variant's copies
# must be kept in step.
. "$(dirname "$0")/lib.sh"
need_gpu
export GPUTUNE_CACHE_DIR="$TMP/cache"
E=$GT_BUILD/examples

# forced NAME APP FORCE EXPECTED...: EXPECTED are "PREFIX=APPLIED" pairs.
forced() {
    name=$1 app=$2 force=$3
    shift 3
    [ -e "$TMP/$app.plain.bin" ] || run_as plain "$TMP/$app.plain" "$E/$app" -o "$TMP/$app.plain.bin"
    GPUTUNE_FORCE=$force GT_LOG_LEVEL=debug run_as run "$TMP/$name" "$E/$app" -o "$TMP/$name.bin"
    check "$name: passes its own check" ran_ok "$TMP/$name"
    check "$name: output bitwise identical to the run without the shim" cmp "$TMP/$app.plain.bin" "$TMP/$name.bin"
    check "$name: no configuration refused" sh -c "! grep 'cannot apply\|does not fit' '$TMP/$name.log'"
    for pair in "$@"; do
        is "$(detail_of "$TMP/$name.log" "${pair%=*}" applied)" "${pair##*=}" "$name: ${pair%=*} ran its variant ${pair##*=} times"
    done
}

forced ptx runtime_app \
    "poly_const maxrreg=32 dlcm=cg bounds=on; saxpy maxrreg=40; bias_relu dlcm=cs; scale<float> maxrreg=64 bounds=on; graph_step maxrreg=32" \
    "poly_const(=3" "saxpy(=120" "bias_relu=15" "void scale<float>(=12" "void scale<double>(=0" "graph_step(=0"
check "ptx: rebuilt from the image's PTX" grep -q "kernel poly_const(float const\*, float\*, int, float): variant built from its compute_75 PTX" "$TMP/ptx.log"
forced reload runtime_app "tile_reverse cache=shared; saxpy carveout=25" "tile_reverse(=3" "saxpy(=120"
check "reload: launch-time knobs only compile nothing" sh -c "! grep -q 'variant built' '$TMP/reload.log'"
GPUTUNE_POLICY="$GT_SRC/examples/runtime_app/policy.ini" forced source runtime_app "poly_const POLY_UNROLL=7" "poly_const(=3"
check "source: rebuilt from the policy's source" grep -q "variant built from source .*kernels.cuh" "$TMP/source.log"
forced store runtime_app "poly_const maxrreg=32 dlcm=cg bounds=on" "poly_const(=3"
check "store: a second run compiles nothing" grep -q "variant built from .* out of the store" "$TMP/store.log"
forced ptds runtime_app_ptds "saxpy maxrreg=40; poly_const dlcm=cg" "saxpy(=120" "poly_const(=3"
forced driver driver_app "add_vectors maxrreg=32; scale_shift dlcm=cg; dot_partial bounds=on; lib_axpy maxrreg=64; hash_fill cache=l1" \
    "add_vectors=10" "scale_shift=6" "dot_partial=4" "lib_axpy=5" "hash_fill=3"
forced nvrtc nvrtc_app "rtc_affine maxrreg=64; rtc_stencil<2> dlcm=cg; rtc_block_sum bounds=on" \
    "rtc_affine=8" "void rtc_stencil<2>(=6" "rtc_block_sum=4"
check "nvrtc: rebuilt from the application's NVRTC programs" grep -q "variant built from the application's NVRTC program" "$TMP/nvrtc.log"
forced threads threads_app "thread_iterate maxrreg=32; thread_mix dlcm=cg" "thread_iterate(=1600" "thread_mix(=400"

done_testing
