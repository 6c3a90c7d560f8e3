#!/bin/sh
# build/bench/replay on the synthetic landscape of tests/fixtures/replay
# (toy.ini: 62 configurations besides the original, toy.csv their times in
# enumeration order, with an invalid region and a slow tail): exhaustive's
# numbers are known exactly (the first row in the file's order that reaches
# each goal, and what the trials up to it cost), runs repeat for a seed, both forms of the command line agree,
# a session's simulated time (--seconds) bounds its trials and estimates,
# a strategy that cannot run is reported and the others go on, and a
# malformed landscape gives one error naming file and line, exit 2.
. "$(dirname "$0")/lib.sh"

R="$GT_BUILD/bench/replay"
[ -x "$R" ] || skip_all "no $R: run make first"
F="$GT_SRC/tests/fixtures/replay"
cd "$TMP" || exit 1

"$R" --runs 5 --strategies exhaustive,random "$F/toy.ini" toy "$F/toy.csv" >out 2>err
is "$?/$(wc -c <err)" "0/0" "replay: exit 0, nothing on stderr"

# What exhaustive must print: for each goal, the 1-based row of the first
# configuration within it of the optimum (the fastest ok time, or the
# original's when faster), with its share of the 62 configurations; and the
# simulated seconds to 95%: 0.1 s of builds per batch of 16, a trial 6 runs
# of its time, or one run to its deadline (twice the best time so far, the
# original's at first) when it is slower, as the first rows are.
base=$(awk -F, '$1 == "toy" { print $2 }' "$F/baselines.csv")
expect=$(awk -F, -v base="$base" 'NR > 1 { n++; ok[n] = $(NF-2) == "ok"; us[n] = $(NF-1) }
    END {
        opt = base
        for (i = 1; i <= n; i++) if (ok[i] && us[i] < opt) opt = us[i]
        split("0.90 0.95 0.99", g, " ")
        for (k = 1; k <= 3; k++) {
            at[k] = "-"
            for (i = 1; i <= n && at[k] == "-"; i++) if (ok[i] && opt / us[i] >= g[k]) at[k] = i
            printf "%s %.1f%% ", at[k], 100 * at[k] / n
        }
        best = base
        for (i = 1; i <= at[2]; i++) {
            if (i % 16 == 1) secs += 0.1
            if (ok[i] && us[i] > 2 * best) secs += 2 * best / 1e6
            else if (ok[i]) secs += 6 * us[i] / 1e6
            if (ok[i] && us[i] < best) best = us[i]
        }
        printf "%.1f %d\n", secs, n
    }' "$F/toy.csv")
row() {
    awk -v s="$1" '/^== summary/ { exit } $1 == s' out
}
got=$(row exhaustive | awk '{ print $2, $3, $4, $5, $6, $7, $11, $12 }')
is "$got" "$expect" "exhaustive: trials to 90/95/99% (and share of the space) as the enumeration order says, the seconds to 95% with the slow rows cut; every trial run"
is "$(row exhaustive | awk '{ print $8, $10, $14 }')" "0% no 100.0%" \
    "exhaustive: never within 2% of the space, does not beat random, ends at the optimum"
check "the optimum is named" grep -qx '   optimum 20000.0 us, 5.00x the original.s 100000.0 us: A=5 B=4 C=1' out
check "the landscape covers the space" grep -qx '   the landscape covers every valid configuration' out
check "random is the reference" grep -q '^   random .* (ref) ' out

"$R" --runs 5 --strategies exhaustive,random "$F/toy.ini" toy "$F/toy.csv" >again 2>&1
check "runs repeat for a seed" cmp out again

# The directory form: baselines.csv names the kernels, --policies their policy.
"$R" --runs 5 --strategies exhaustive,random --policies "$F" "$F" >dir 2>&1
is "$(grep -E '^   (exhaustive|random) ' dir)" "$(grep -E '^   (exhaustive|random) ' out)" \
    "a directory gives the same tables"

# Every strategy: those that cannot run are reported, the rest run.
"$R" --runs 2 "$F/toy.ini" toy "$F/toy.csv" >all 2>&1
is "$?" 0 "every strategy: exit 0"
check "every strategy has a row and a summary line" sh -c '
    for s in random exhaustive auto; do grep -q "^   $s " "$1" || exit 1; done
    [ "$(sed -n "/^== summary/,\$p" "$1" | grep -c "^   [a-z]")" -ge 3 ]' - all
check "an unknown strategy is not available" sh -c \
    '"$1" --runs 1 --strategies nosuch "$2/toy.ini" toy "$2/toy.csv" | grep -q "^   nosuch  *not available: "' - "$R" "$F"

# Estimates: `estimated` rows and the estimate columns answer the strategies
# that ask (pareto estimates the whole toy space); without them it still runs.
cp "$F/baselines.csv" .
{ head -1 "$F/toy.csv" | sed 's/$/,instr,regions,threads,block_threads,blocks_per_sm,regs/'
  sed 1d "$F/toy.csv" | awk '{ print $0 ",,,,,," }'
  sed 1d "$F/toy.csv" | awk -F'"' -v OFS='"' '{ n++; $7 = ",estimated,-1.000,0.1," (1000 + n) ",1,1024,128,4,32" } 1'; } >est.csv
"$R" --runs 2 --strategies pareto "$F/toy.ini" toy est.csv >est 2>&1
is "$?" 0 "estimates: exit 0"
is "$(awk '$1 == "pareto" { print $(NF-1) }' est | head -1)" "$(sed 1d "$F/toy.csv" | wc -l | tr -d ' ')" \
    "  pareto estimated every configuration"
"$R" --runs 2 --strategies pareto "$F/toy.ini" toy "$F/toy.csv" >noest 2>&1
check "  and runs on a landscape without estimates" grep -q '^   pareto .*100.0%$' noest

# A configuration the landscape lacks is named.
cp "$F/baselines.csv" .
sed '/"A=1 B=2 C=0"/d' "$F/toy.csv" >toy.csv
"$R" --runs 1 --strategies exhaustive "$F/toy.ini" toy toy.csv >out 2>&1
check "a missing configuration is named" grep -qx '   missing from the landscape: A=1 B=2 C=0' out
check "and counted" grep -q 'missing from the landscape: 1,' out

# Malformed landscapes: one message with file and line, exit 2, no table.
malformed() {
    "$R" --runs 1 "$F/toy.ini" toy toy.csv >out 2>err
    is "$?/$(wc -c <out)/$(cat err)" "2/0/$1" "$2"
}
sed '3s/A=1 B=1 C=2/A=7 B=1 C=2/' "$F/toy.csv" >toy.csv
malformed "replay: toy.csv:3: configuration 'A=7 B=1 C=2': A=7 is not one of its values (1, 2, 3, 4, 5, 6)" \
    "a value outside the space"
sed '5s/ C=1"/"/' "$F/toy.csv" >toy.csv
malformed "replay: toy.csv:5: configuration 'A=1 B=2': 'C' is missing" "a configuration without a dimension"
sed '1s/,us,/,time,/' "$F/toy.csv" >toy.csv
malformed "replay: toy.csv:1: no 'us' column (expected kernel,signature,configuration,outcome,us,build_s)" \
    "a missing column"
sed '7s/,ok,/,fine,/' "$F/toy.csv" >toy.csv
malformed "replay: toy.csv:7: outcome 'fine': expected ok, invalid, failed, wrong, cut or estimated" "an unknown outcome"
sed '8s/,ok,[0-9.]*,/,ok,fast,/' "$F/toy.csv" >toy.csv
malformed "replay: toy.csv:8: us 'fast' is not a time in microseconds" "a time that is not a number"
{ cat "$F/toy.csv"; sed -n 9p "$F/toy.csv"; } >toy.csv
malformed "replay: toy.csv:64: configuration 'A=1 B=4 C=2' given twice" "a configuration given twice"
sed '3s/$/,5,,,,,/; 1s/$/,instr,regions,threads,block_threads,blocks_per_sm,regs/' "$F/toy.csv" >toy.csv
malformed "replay: toy.csv:3: an estimate lacks some of instr, regions, threads, block_threads, blocks_per_sm, regs" \
    "an estimate with columns missing"
cp "$F/toy.csv" toy.csv
echo "kernel,us" >baselines.csv
malformed "replay: baselines.csv: no time for kernel toy" "no baseline"

# T4 landscapes with their T1 spaces (tiny_T4.json, tiny_T1.json): 12
# configurations, 3 excluded by the conditions (a chained comparison, not,
# and, or, //, %), the default A=1 B=1 C=0 the original; an entry not
# "correct" is invalid however fast its time, an entry outside the space is
# ignored, parameters the space lacks are ignored.
T1="$F/tiny_T1.json" T4="$F/tiny_T4.json"
"$R" --runs 3 --strategies exhaustive --t4 "$T4" "$T1" >t4 2>err
is "$?/$(wc -c <err)" "0/0" "T4: exit 0, nothing on stderr"
check "T4: the space's size from T1's parameters and conditions" grep -q '^== tiny: 8 configurations besides the original' t4
check "T4: the original is T1's default, the optimum a valid entry (a faster invalid one is not)" \
    grep -qx '   optimum 500.0 us, 4.00x the original.s 2000.0 us: A=2 B=2 C=0' t4
check "T4: entries outside the space are ignored" grep -qx '   2 rows outside the space (or of the original) ignored' t4
check "T4: the 98%-in-64 column" sh -c 'grep "^   exhaustive " "$1" | grep -q " 100%  no "' - t4
if command -v gzip >/dev/null; then
    gzip -c "$T4" >tiny_T4.json.gz
    "$R" --runs 3 --strategies exhaustive --t4 tiny_T4.json.gz "$T1" >gz 2>&1
    is "$(grep '^   exhaustive ' gz)" "$(grep '^   exhaustive ' t4)" "T4: a .json.gz reads the same"
    PATH=/nonexistent "$R" --runs 1 --t4 tiny_T4.json.gz "$T1" >out 2>err
    is "$?/$(cat err)" "2/replay: tiny_T4.json.gz: cannot run gzip (not on PATH?): a .gz landscape is read through \`gzip -dc\`; decompress it first or install gzip" \
        "T4: without gzip a .gz landscape is a clear error"
else
    skip 2 "no gzip"
fi

# Mixed with the other form, and --loo: a line per landscape held out.
"$R" --runs 2 --strategies exhaustive,random --loo "$F/toy.ini" toy "$F/toy.csv" --t4 "$T4" "$T1" >mixed 2>&1
is "$?" 0 "T4 mixed with POLICY KERNEL LANDSCAPE: exit 0"
check "  both landscapes replayed" sh -c 'grep -q "^== toy:" "$1" && grep -q "^== tiny:" "$1"' - mixed
is "$(sed -n '/^== leave-one-out/,$p' mixed | grep -cE '^   (toy|tiny) ')" 2 "  --loo: a choice per landscape held out"

# Errors: one message naming the file (and line), exit 2.
# A session's time (--seconds, simulated): exhaustive stops after what 2 s
# hold (a batch's builds 0.1 s, each of the first trials cut at 2x the
# original's 0.1 s); pareto-guided estimates within a third of 0.5 s only:
# the batches begun at 0 and 0.1 s, 32 of the 62.
row() {
    "$R" --runs 2 --strategies "$1" --seconds "$2" "$F/toy.ini" toy "$F/toy.csv" |
        awk -v s="$1" '$1 == s && $2 != "95%" { print $(NF-2), $(NF-1) }'
}
is "$(row exhaustive 2)" "10 0" "--seconds 2: exhaustive runs 10 trials"
is "$(row pareto-guided 0.5)" "2 32" "--seconds 0.5: pareto-guided estimates 32 configurations, a third of the time"
"$R" --seconds 0 "$F/toy.ini" toy "$F/toy.csv" >out 2>err
is "$?/$(cat err)" "2/replay: --seconds 0: expected a positive number" "--seconds 0 is refused"

t4err() {
    "$R" --runs 1 --t4 "$1" "$2" >out 2>err
    is "$?/$(wc -c <out)/$(cat err)" "2/0/$3" "$4"
}
sed 's/not (C == 1 and A \/\/ 2 == 0)/A ** 2 <= 16/' "$T1" >pow_T1.json
t4err "$T4" pow_T1.json "replay: pow_T1.json: condition 'A ** 2 <= 16 or B % 2 == 0': the operator '**' is not supported (T1 conditions may use integers, parameter names, + - * // %, comparisons, and, or, not, parentheses)" \
    "T4: an unsupported condition is named"
sed 's/1 <= A \* B <= 4/A in [1, 2]/' "$T1" >in_T1.json
t4err "$T4" in_T1.json "replay: in_T1.json: condition 'A in [1, 2]': after a complete condition, 'in' is not supported (T1 conditions may use integers, parameter names, + - * // %, comparisons, and, or, not, parentheses)" \
    "T4: 'in' is refused"
t4err nosuch.json "$T1" "replay: nosuch.json: cannot read: No such file or directory" "T4: a missing file"
sed '9s/"A": 1,/"A": 1/' "$T4" >bad_T4.json
t4err bad_T4.json "$T1" "replay: bad_T4.json: malformed JSON: line 10, column 5: '\"' where ',' or '}' should be" \
    "T4: malformed JSON names the line"
sed '11d' "$T4" >noc_T4.json
t4err noc_T4.json "$T1" "replay: noc_T4.json:7: the configuration has no value for parameter C" \
    "T4: an entry without a parameter is named, with its line"
# The 98%-in-64 column is what a session of the default budget gets, not
# the first 64 trials of a longer one: anneal cools over its budget, and on
# gemm's landscape the first 64 trials of 1000 reached 98% in 1 run of 10,
# a session of 64 trials in 5.
L="$GT_SRC/bench/landscapes"
for t in 64 1000; do
    "$R" --runs 10 --max-trials $t --strategies anneal "$GT_SRC/examples/suite/gemm.ini" gemm "$L/gemm.csv" >"budget$t" 2>&1
done
share98() { awk '$1 == "anneal" && NF > 12 { print $(NF - 5) }' "$1"; }
is "$(share98 budget1000)" "$(share98 budget64)" "the share at 98% within 64 trials is a 64-trial session's, whatever --max-trials"

done_testing
