#!/bin/sh
# Trial times are true, on the GPU.  lattice_app's kernel has the shape that
# once read short under the watchdog (a 3D grid of 262,144 blocks, many
# waves, per-thread loops) and a space of 216 configurations, some 3 and 8
# times slower.  Searched whole with the watchdog and without, every trial
# not counted as cut short must read within 5% of the same configuration's
# time without checks, the slow variants must be cut, and the application's
# output stays bitwise that of the run without the shim.
. "$(dirname "$0")/lib.sh"
need_gpu
export GPUTUNE_POLICY="$GT_SRC/tests/fixtures/lattice.ini"
export GPUTUNE_SET='strategy=exhaustive budget.trials=1000 budget.seconds=300'
APP=$GT_BUILD/tests/helpers/lattice_app
TOL=0.05

run_as plain "$TMP/plain" "$APP" -o "$TMP/plain.bin"
check "lattice_app passes its own check without the shim" ran_ok "$TMP/plain"

for wd in loops off; do
    GPUTUNE_CACHE_DIR="$TMP/cache-$wd" GPUTUNE_WATCHDOG=$wd GPUTUNE_TRIALS="$TMP/$wd.csv" GT_LOG_LEVEL=debug \
        run_as tune "$TMP/$wd" "$APP" -o "$TMP/$wd.bin"
    check "watchdog $wd: the application's own check passes" ran_ok "$TMP/$wd"
    check "  output bitwise identical to the run without the shim" cmp "$TMP/plain.bin" "$TMP/$wd.bin"
    echo "# $(grep -o 'kernel lattice: launch .* tuned in .*' "$TMP/$wd.log")"
done

# configuration -> outcome and time, per file; then every configuration that
# ran whole under the watchdog against its time without it.
awk -F'"' -v tol=$TOL '
    FNR == 1 { file++; next }
    { split($7, f, ","); out[file, $6] = f[2]; us[file, $6] = f[3] }
    END {
        for (k in out) {
            split(k, p, SUBSEP)
            if (p[1] != 1) continue
            c = p[2]
            if (out[1, c] == "cut") cut++
            if (out[1, c] != "ok") continue
            if (out[2, c] != "ok") { printf "%s: ok with checks, %s without\n", c, out[2, c]; bad++; continue }
            r = us[1, c] / us[2, c]
            n++
            if (r < 1 - tol || r > 1 + tol) { printf "%s: %.1f us with checks, %.1f us without (%.3f)\n", c, us[1, c], us[2, c], r; bad++ }
            if (r < lo || lo == "") lo = r
            if (r > hi) hi = r
        }
        printf "compared %d, outside %d, cut %d, ratios %.3f..%.3f\n", n, bad, cut, lo, hi
    }' "$TMP/loops.csv" "$TMP/off.csv" >"$TMP/compare.txt"
sed 's/^/# /' "$TMP/compare.txt"
summary=$(tail -n 1 "$TMP/compare.txt")
check "every configuration but the original ran (215 trials each way)" \
    sh -c "[ \$(tail -n +2 '$TMP/loops.csv' | wc -l) -eq 215 ] && [ \$(tail -n +2 '$TMP/off.csv' | wc -l) -eq 215 ]"
# Checks that time apart from their plain builds are lowered (tune/trial.c): said here when it happens.
grep -o "kernel lattice: the watchdog's checks change its times.*" "$TMP/loops.log" | sed 's/^/# /'
check "the slow variants are cut short under the watchdog" sh -c "echo '$summary' | grep -q 'cut [1-9]'"
check "without the watchdog nothing is cut" sh -c "! grep -q ',cut,' '$TMP/off.csv'"
check "every trial not cut reads within 5% of its time without checks" \
    sh -c "echo '$summary' | grep -q 'compared [1-9][0-9]*, outside 0,'"
check "no error or warning from the shim" sh -c "! grep -hE ' (warn|error): ' '$TMP/loops.log' '$TMP/off.log'"

done_testing
