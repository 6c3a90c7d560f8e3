#!/bin/sh
# A cubin loaded from memory, as Triton loads its kernels, on the CPU
# against the stand-in driver: its bytes are SASS only, but where Triton's
# cache directory holds the identical cubin with its PTX beside it, that
# PTX is the kernel's, and tune mode builds variants from it.
. "$(dirname "$0")/lib.sh"

H="$GT_BUILD/tests/helpers"
F="$GT_BUILD/fixtures"
[ -f "$F/kernels.cubin" ] && [ -f "$F/kernels.ptx" ] || skip_all "no fixtures (nvcc needed to build them)"
export LD_LIBRARY_PATH="$GT_BUILD/tests/fakecuda" GPUTUNE_SET='budget.trials=2'

# A Triton cache: an entry with the cubin and its PTX, one with junk.
mkdir -p "$TMP/triton/f00d/other" "$TMP/triton/c0de"
cp "$F/kernels.cubin" "$TMP/triton/c0de/scale.cubin"
cp "$F/kernels.ptx" "$TMP/triton/c0de/scale.ptx"
echo junk >"$TMP/triton/f00d/x.cubin"

# minirt --cubin in tune mode with TRITON_CACHE_DIR=$1, logged in $TMP/$2.log
# (or minirt $3 ${4:-$F/kernels.cubin}).
load() {
    rm -rf "$TMP/cache"
    TRITON_CACHE_DIR=$1 GPUTUNE_MODE=tune GPUTUNE_LOG=debug GPUTUNE_LOG_FILE="$TMP/$2.log" \
        GPUTUNE_CACHE_DIR="$TMP/cache" shim "$H/minirt" "${3:---cubin}" "${4:-$F/kernels.cubin}"
}

is "$(load "$TMP/triton" found)" "minirt: done" "a cubin loaded from memory, Triton's cache beside"
check "  its PTX is found beside the identical cubin" \
    grep -q "image: memory cubin, [0-9]* bytes, ptx 90, sass 90, PTX from $TMP/triton/c0de/scale.ptx" "$TMP/found.log"
check "  the exit table says where it came from" grep -q "memory:cubin  *compute_90+triton  *scale" "$TMP/found.log"
check "  and counts it among the kernels with PTX" \
    grep -q "kernels launched: 0 with source (NVRTC), 1 with PTX, 0 SASS only" "$TMP/found.log"
check "  tune mode builds variants from it" grep -q "kernel scale: .* waiting for builds" "$TMP/found.log"
check "  and does not call it SASS only" sh -c "! grep -q '(SASS only)' '$TMP/found.log'"

is "$(load "$TMP/triton" bypath --cubin-path "$TMP/triton/c0de/scale.cubin")" "minirt: done" \
    "the cubin of Triton's cache loaded by its path, as TorchInductor loads it"
check "  its PTX is found beside it" \
    grep -q "image: file cubin, [0-9]* bytes, ptx 90, sass 90, PTX from $TMP/triton/c0de/scale.ptx" "$TMP/bypath.log"
check "  the exit table says so" grep -q "file:cubin  *compute_90+triton  *scale" "$TMP/bypath.log"

# TorchInductor's own copy of Triton's cache (/tmp/torchinductor_USER/triton/0/...),
# which is not Triton's cache directory: the PTX beside the file loaded counts.
mkdir -p "$TMP/inductor/triton/0/ab12"
cp "$F/kernels.cubin" "$TMP/inductor/triton/0/ab12/scale.cubin"
cp "$F/kernels.ptx" "$TMP/inductor/triton/0/ab12/scale.ptx"
is "$(load "$TMP/nowhere" inductor --cubin-path "$TMP/inductor/triton/0/ab12/scale.cubin")" "minirt: done" \
    "a cubin loaded by its path outside Triton's cache"
check "  its PTX is found beside the file" \
    grep -q "image: file cubin, [0-9]* bytes, ptx 90, sass 90, PTX from $TMP/inductor/triton/0/ab12/scale.ptx" \
    "$TMP/inductor.log"
rm "$TMP/inductor/triton/0/ab12/scale.ptx"
is "$(load "$TMP/nowhere" alone --cubin-path "$TMP/inductor/triton/0/ab12/scale.cubin")" "minirt: done" \
    "a cubin file with no PTX beside it"
check "  is SASS only, quietly" sh -c "grep -q 'ptx 0, sass 90, file ' '$TMP/alone.log' && ! grep -q ' warn: ' '$TMP/alone.log'"

mkdir -p "$TMP/broken/dead"
cp "$F/kernels.cubin" "$TMP/broken/dead/scale.cubin"
sed '0,/ret;/s//not_an_instruction;/' "$F/kernels.ptx" >"$TMP/broken/dead/scale.ptx"
is "$(GPUTUNE_SET='budget.trials=64' load "$TMP/broken" broken)" "minirt: done" "PTX beside the cubin that does not build"
check "  the session's line says why its candidates could not be tried" grep -q \
    "kernel scale: launch .* tuned in .* trials ([1-9][0-9]* invalid, the first '[^']*': building from .* failed: .*, 0 computed" \
    "$TMP/broken.log"

cp "$F/kernels.cubin" "$TMP/other.cubin"
printf 'X' | dd of="$TMP/other.cubin" bs=1 seek=200 conv=notrunc 2>/dev/null
rm -rf "$TMP/triton/c0de"
mkdir -p "$TMP/triton/beef"
cp "$TMP/other.cubin" "$TMP/triton/beef/scale.cubin"
cp "$F/kernels.ptx" "$TMP/triton/beef/scale.ptx"
is "$(load "$TMP/triton" differs)" "minirt: done" "a cached cubin of the same size but other bytes"
check "  is not taken for it: SASS only" grep -q "image: memory cubin, [0-9]* bytes, ptx 0, sass 90$" "$TMP/differs.log"

is "$(load "$TMP/nowhere" none)" "minirt: done" "no Triton cache directory"
check "  SASS only, quietly" sh -c "grep -q 'ptx 0, sass 90\$' '$TMP/none.log' && ! grep -q ' warn: ' '$TMP/none.log'"

done_testing
