# lib.sh: what the shell benchmarks of bench/ share; sourced, never run.

# The median of the numbers on stdin, one per line (the lower middle one of
# an even count); nothing when there are none.
median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
