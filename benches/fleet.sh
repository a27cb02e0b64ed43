#!/usr/bin/env bash
# Past one machine (issue 39): the scale figures of BENCHMARKS.md, each
# measured with /usr/bin/time -v (wall time and peak RSS).
#   1  merge of a 10,000-submission grading, 20 tests each, in 10 parts
#      (synthetic parts: one real submission's result copied under 10,000
#      names by examples/fleet_synth.rs, with the library's own writers);
#   2  merge of a 200-bot round robin, both colours (39,800 games), in 50
#      parts (synthetic sealed records, examples/fleet_synth.rs);
#   3  peak RSS of grade on a synthetic class of CLASS (default 2,000)
#      copies of a Python submission, one test each, and of 500 for scale;
#   4  peak RSS of a 100-participant round robin (engines: 9,900 games);
#   5  two parts on two cores against one run (--jobs 2): a 200-copy class on
#      9 tests, and a 40-engine round robin;
#   6  a gomoku game's cost (15x15, 5 in a row): the referee's own per game,
#      from engines that answer at once, for the fleet sums on paper.
# Built without fat LTO (a fat-LTO release takes over an hour here):
#   CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
# into target/bench/. Scratch in target/fleet-bench/.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="$PWD/target/bench"
CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo build --release --quiet --locked --bin ttt-referee --bin ttt-guard --example fleet_synth
bin="$CARGO_TARGET_DIR/release/ttt-referee"
synth="$CARGO_TARGET_DIR/release/examples/fleet_synth"
work="$PWD/target/fleet-bench"
class_size="${CLASS:-2000}"
export TTT_REFEREE_RECORD_KEY="fleet-bench-record-key-0123456789"
rm -rf "$work"
mkdir -p "$work"

# measure NAME COMMAND...: its wall time and peak RSS, one line.
measure() {
    local name="$1"
    shift
    local status=0
    /usr/bin/time -v "$@" >"$work/out.txt" 2>"$work/time.txt" || status=$?
    awk -v name="$name" -v status="$status" '
        /Elapsed \(wall clock\)/ { n = split($NF, t, ":"); wall = (n == 3) ? t[1] * 3600 + t[2] * 60 + t[3] : t[1] * 60 + t[2] }
        /Maximum resident set size/ { rss = $NF / 1024 }
        END { printf "%-58s %8.2f s %8.1f MB  (exit %s)\n", name, wall, rss, status }
    ' "$work/time.txt"
}

echo "load before: $(uptime | sed 's/.*load average: //')"

# 1: a grading's merge.
"$bin" grade --tests fixtures/class/tests --seed 1 --generate 11 --partition slice:1/1 \
    --report "$work/template" fixtures/class/students/ada-c >/dev/null 2>&1
"$synth" grade "$work/template" "$work/grade-parts" 10000 10
echo "grade parts: $(du -sh "$work/grade-parts" | cut -f1) on disk"
measure "merge: 10,000 submissions x 20 tests, 10 parts" \
    "$bin" merge "$work"/grade-parts/part-* --report "$work/grade-merged"

# 2: a tournament's merge.
"$synth" event "$work/event-parts" 200 50
echo "event parts: $(du -sh "$work/event-parts" | cut -f1) on disk"
measure "merge: 200 bots, 39,800 games, 50 parts" \
    "$bin" merge "$work"/event-parts/part-* --report "$work/event-merged"

# 3: grade's own memory against the class's size.
mkdir -p "$work/one-test"
cp fixtures/class/tests/01-* "$work/one-test/"
for size in 500 "$class_size"; do
    rm -rf "$work/class"
    mkdir -p "$work/class"
    for i in $(seq -w 1 "$size"); do
        mkdir "$work/class/s$i"
        cp fixtures/class/students/cleo-py/ttt.py "$work/class/s$i/"
    done
    measure "grade: $size Python submissions, 1 test, --jobs 2" \
        "$bin" grade --tests "$work/one-test" --jobs 2 --report "$work/class-report-$size" "$work"/class/s*
done

# 4: the arena's own memory.
hundred=()
for _ in $(seq 1 100); do hundred+=(random); done
measure "tournament: 100 engines (9,900 games), --report" \
    "$bin" tournament "${hundred[@]}" --quiet --jobs 2 --report "$work/hundred"

# 5: two parts on two cores against one run on both.
rm -rf "$work/class"
mkdir -p "$work/class"
for i in $(seq -w 1 200); do
    mkdir "$work/class/s$i"
    cp fixtures/class/students/cleo-py/ttt.py "$work/class/s$i/"
done
measure "grade: 200 submissions x 9 tests, one run --jobs 2" \
    "$bin" grade --tests fixtures/class/tests --jobs 2 --report "$work/split-whole" "$work"/class/s*
measure "grade: the same, parts 1/2 and 2/2 at once, --jobs 1 each" \
    sh -c "for k in 1 2; do \"$bin\" grade --tests fixtures/class/tests --jobs 1 --partition slice:\$k/2 \
        --report \"$work/split-\$k\" \"$work\"/class/s* >/dev/null 2>&1 & done; wait"
measure "merge of the two parts" "$bin" merge "$work/split-1" "$work/split-2" --report "$work/split-merged"
forty=()
for _ in $(seq 1 40); do forty+=(random); done
measure "tournament: 40 engines (1,560 games), one run --jobs 2" \
    "$bin" tournament "${forty[@]}" --quiet --jobs 2 --report "$work/t-whole"
measure "tournament: the same, parts 1/2 and 2/2 at once, --jobs 1" \
    sh -c "for k in 1 2; do \"$bin\" tournament ${forty[*]} --quiet --jobs 1 --partition slice:\$k/2 \
        --report \"$work/t-\$k\" >/dev/null 2>&1 & done; wait"

# 6: a gomoku game's own cost to the referee.
measure "match: 100 gomoku games (15x15, 5), random vs rules, --jobs 1" \
    "$bin" match random rules --board 15x15 --win 5 --games 100 --jobs 1 --quiet
echo "load after: $(uptime | sed 's/.*load average: //')"
