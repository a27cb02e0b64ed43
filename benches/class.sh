#!/usr/bin/env bash
# grade on a class: 60 copies of one correct 3-file C++ submission
# (fixtures/class/students/ben-cpp, found by its files, built with g++ -O2 in
# the sandbox) on 15 tests within CS 1044's guarantees, timed three ways,
# interleaved (RUNS rounds, default 3, of one hyperfine run of each):
#   a  `grade --jobs 2 sub/*`: builds and test runs two at a time;
#   b  a loop of `grade --jobs 2 SUB` over the submissions: each build alone,
#      then its 15 tests two at a time (how grade built before builds ran
#      --jobs at a time);
#   c  `grade --jobs 1 sub/*`, for information.
# Prints each one's mean ± sd and a/b, whose target is at most 0.65. Needs
# hyperfine (apt-get install hyperfine) and g++. Figures in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet --locked
bin="$PWD/target/release/ttt-referee"
work="$PWD/target/class-bench"
runs="${RUNS:-3}"
rm -rf "$work"
mkdir -p "$work/sub"
for i in $(seq -w 1 60); do
    cp -R fixtures/class/students/ben-cpp "$work/sub/s$i"
done
cd "$work"
"$bin" gen --within cs1044 --count 15 --seed 3 --out-dir tests >/dev/null

# Once, untimed (it also warms the caches): every submission passes every
# test, so each timed grading does the whole work and exits 0.
"$bin" grade --tests tests --jobs 2 sub/* >table.txt 2>/dev/null
passed="$(awk 'NR > 1 && $3 == 100 && $5 == 15' table.txt | wc -l)"
if [ "$passed" -ne 60 ]; then
    echo "expected 60 submissions passing all 15 tests, got $passed:" >&2
    cat table.txt >&2
    exit 1
fi

# Interleaved: each round is one hyperfine run of a, b and c in turn, so a
# change in the machine's load (others compile here) touches all three.
for round in $(seq 1 "$runs"); do
    echo "round $round, load: $(uptime | sed 's/.*load average: //')"
    hyperfine --runs 1 --export-csv "round-$round.csv" \
        -n 'a: grade --jobs 2 sub/*' \
        "$bin grade --tests tests --jobs 2 sub/* >/dev/null 2>&1" \
        -n 'b: one grade --jobs 2 per submission' \
        "for s in sub/*; do $bin grade --tests tests --jobs 2 \"\$s\" >/dev/null 2>&1; done" \
        -n 'c: grade --jobs 1 sub/*' \
        "$bin grade --tests tests --jobs 1 sub/* >/dev/null 2>&1"
done
echo "after, load: $(uptime | sed 's/.*load average: //')"

# round-N.csv: command,mean,stddev,median,user,system,min,max (seconds); one
# run, so mean is its time. Lines 2, 3, 4 are a, b, c.
awk -F, '
    FNR == 1 { next }
    { k = FNR - 1; n[k]++; t[k, n[k]] = $2; cpu[k] += $5 + $6; name[k] = $1 }
    FNR == 3 { ratios = ratios sprintf(" %.3f", t[1, n[1]] / $2) }
    END {
        for (k = 1; k <= 3; k++) {
            sum = 0; lo = t[k, 1]; hi = lo
            for (i = 1; i <= n[k]; i++) { sum += t[k, i]; lo = t[k, i] < lo ? t[k, i] : lo; hi = t[k, i] > hi ? t[k, i] : hi }
            mean[k] = sum / n[k]; ss = 0
            for (i = 1; i <= n[k]; i++) ss += (t[k, i] - mean[k]) ^ 2
            sd[k] = n[k] > 1 ? sqrt(ss / (n[k] - 1)) : 0
            printf "%-40s %8.2f s ± %6.2f  (%.2f–%.2f s, %d runs; CPU %.1f s a run)\n",
                name[k], mean[k], sd[k], lo, hi, n[k], cpu[k] / n[k]
        }
        r = mean[1] / mean[2]
        sr = r * sqrt((sd[1] / mean[1]) ^ 2 + (sd[2] / mean[2]) ^ 2)
        printf "a/b = %.3f ± %.3f by the means; round by round:%s; target at most 0.65\n", r, sr, ratios
    }' $(seq -f 'round-%g.csv' 1 "$runs")
