# lib.sh: TAP helpers for the shell tests; source it first.
#
#   check "name" command...        a test that passes when the command succeeds
#   is "$got" "$want" "name"       a test that compares two strings
#   skip_all "reason"              skip the whole file
#   need_gpu                       skip the whole file unless a CUDA device is usable, then
#                                  hold the device alone (gpu_alone) until the file ends
#   shim command...                run a command with libgputune preloaded
#   run_as MODE BASE command...    run it without the shim (MODE plain) or under it
#                                  in GPUTUNE_MODE=MODE; leaves BASE.out .err .rc .log
#   ran_ok BASE                    passes when that run exited 0 and printed `result OK`
#   no_table LOG                   passes when LOG, if it exists, holds no exit table
#   done_testing                   print the plan; exit status says whether all passed
# GT_BUILD names the build to test (default build/); GT_KEEP=DIR keeps the files.

: "${GT_BUILD:=$(cd "$(dirname "$0")/.." && pwd)/build}"
GT_SRC=$(cd "$(dirname "$0")/.." && pwd)
tap_n=0
tap_failed=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gputune-test.XXXXXX")
# GT_KEEP=DIR keeps each test's logs and outputs in DIR/<test name>.
trap '[ -n "$GT_KEEP" ] && mkdir -p "$GT_KEEP" && cp -r "$TMP" "$GT_KEEP/$(basename "$0" .t)"; rm -rf "$TMP"' EXIT

# Functions here name their variables _t_*: sh has no locals, and a test's
# own variables must survive the calls.
check() {
    _t_name=$1
    shift
    tap_n=$((tap_n + 1))
    if "$@" >"$TMP/check.out" 2>&1; then
        echo "ok $tap_n - $_t_name"
    else
        echo "not ok $tap_n - $_t_name"
        sed 's/^/#   /' "$TMP/check.out" | head -40
        tap_failed=$((tap_failed + 1))
    fi
}

is() {
    tap_n=$((tap_n + 1))
    if [ "$1" = "$2" ]; then
        echo "ok $tap_n - $3"
    else
        echo "not ok $tap_n - $3"
        printf '#   got:      %s\n#   expected: %s\n' "$1" "$2"
        tap_failed=$((tap_failed + 1))
    fi
}

# One test not run, with why.
skip() {
    tap_n=$((tap_n + 1))
    echo "ok $tap_n # skip $1"
}

skip_all() {
    echo "1..0 # SKIP $1"
    exit 0
}

need_gpu() {
    _t_probe=$("$GT_BUILD/tests/helpers/gpu_probe" 2>&1) || skip_all "no usable CUDA device: $_t_probe"
    gpu_alone
}

# The GPU test files time kernels against each other and against the
# watchdog's budget: two at once (make test PROVE_JOBS=N) would time each
# other's load.  Each holds an exclusive lock on a file of the build on fd 9
# until it exits, so that they run one at a time whatever PROVE_JOBS is.
# The processes it starts inherit the lock; one left running past its file
# would hold it, so a file waits at most GT_GPU_WAIT seconds (default 900)
# and then runs, saying so.
gpu_alone() {
    command -v flock >/dev/null 2>&1 || return 0
    exec 9>>"$GT_BUILD/tests/gpu.lock"
    flock -w "${GT_GPU_WAIT:-900}" 9 ||
        echo "# waited ${GT_GPU_WAIT:-900} s for $GT_BUILD/tests/gpu.lock, held by another test file or what it left running; running beside it"
}

# Under SANITIZE=1 the sanitizer runtime must be the first library loaded,
# and the CUDA driver reserves address space inside ASan's protected shadow
# gap (google/sanitizers#629): without protect_shadow_gap=0 cuInit fails.
GT_PRELOAD="$GT_BUILD/libgputune.so"
GT_SANITIZER_PRELOAD=
if [ -n "$GT_SANITIZE" ]; then
    GT_SANITIZER_PRELOAD=$(${CC:-cc} -print-file-name=libasan.so)
    GT_PRELOAD="$GT_SANITIZER_PRELOAD $GT_PRELOAD"
    export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}:protect_shadow_gap=0"
fi

shim() {
    LD_PRELOAD="$GT_PRELOAD" "$@"
}

# The log level of run_as: info by default, GT_LOG_LEVEL=debug for details.
run_as() {
    _t_mode=$1
    _t_base=$2
    shift 2
    case $_t_mode in
    plain) (unset LD_PRELOAD; exec "$@") >"$_t_base.out" 2>"$_t_base.err" ;;
    *) GPUTUNE_MODE=$_t_mode GPUTUNE_LOG=${GT_LOG_LEVEL:-info} GPUTUNE_LOG_FILE="$_t_base.log" \
           shim "$@" >"$_t_base.out" 2>"$_t_base.err" ;;
    esac
    echo $? >"$_t_base.rc"
}

ran_ok() {
    if [ "$(cat "$1.rc")" = 0 ] && grep -qx 'result OK' "$1.out"; then
        return 0
    fi
    echo "exit status $(cat "$1.rc")"
    cat "$1.out"
    tail -n 20 "$1.err"
    return 1
}

no_table() {
    [ -e "$1" ] || return 0
    if grep -q 'launches  *geometries' "$1" || [ -n "$(exit_table "$1")" ]; then
        cat "$1"
        return 1
    fi
}

done_testing() {
    echo "1..$tap_n"
    [ "$tap_failed" -eq 0 ]
}

# The exit table of a shim log, one kernel a line:
# launches<TAB>geometries<TAB>origin<TAB>ptx<TAB>kernel (demangled)
exit_table() {
    awk '/ info: +launches +geometries +origin/ { on = 1; next }
         on && / info: +[0-9]+ +[0-9]+ / {
             sub(/^.* info: +/, "")
             l = $1; g = $2; o = $3; p = $4
             sub(/^[0-9]+ +[0-9]+ +[^ ]+ +[^ ]+ +/, "")
             print l "\t" g "\t" o "\t" p "\t" $0
             next }
         on && / debug: / { next }
         on { on = 0 }' "$1"
}

# Field N (1 launches, 2 geometries, 3 origin, 4 ptx) of the kernel whose
# demangled name starts with PREFIX, e.g. launches_of log 1 "saxpy(".
table_field() {
    exit_table "$1" | awk -F '\t' -v n="$2" -v p="$3" 'index($5, p) == 1 { print $n; exit }'
}

# The debug detail of a kernel: "key=value" for KEY, e.g. detail_of log "saxpy(" cuLaunchKernel_ptsz
detail_of() {
    awk -v p=" debug: kernel $2" 'index($0, p) && index($0, ": via CUfunction=") { print; exit }' "$1" |
        tr ' ;' '\n\n' | awk -F= -v k="$3" '$1 == k { print $2; exit }'
}
