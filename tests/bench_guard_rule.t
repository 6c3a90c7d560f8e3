#!/bin/sh
# bench/guard_rule: the guard's rule on simulated pairs (a fixed
# pseudo-random sequence, so its figures are the same every run): a row per
# gain, a configuration 3% slower never kept and one 10% faster always kept
# where the launches spread by 5%, and bad arguments refused.
. "$(dirname "$0")/lib.sh"

GR="$GT_BUILD/bench/guard_rule"
out=$("$GR" 400)
is "$?" 0 "exit 0"
check "the header names the checks, the spread and the places" sh -c \
    'printf "%s\n" "$1" | head -1 | grep -q "^400 checks a gain, launches spread by 0.050 (log), places 0.000 apart (log)$"' - "$out"
is "$(printf '%s\n' "$out" | grep -Ec '^ *[+-][0-9]+% +[0-9.]+% +[0-9]+$')" 6 "a row for each of six gains"
is "$(printf '%s\n' "$out" | awk '$1 == "-3%" { print $2 }')" "0.0%" "3% slower: never kept"
is "$(printf '%s\n' "$out" | awk '$1 == "+10%" { print $2 }')" "100.0%" "10% faster: always kept"
out=$("$GR" 0 2>&1)
is "$?" 2 "no checks: a usage error"
check "  said" sh -c 'printf "%s\n" "$1" | grep -q "usage: guard_rule"' - "$out"
done_testing
