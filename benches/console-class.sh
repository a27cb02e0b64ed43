#!/usr/bin/env bash
# grade --profile on a class of console programs, timed (BENCHMARKS.md,
# "Console programs judged by their game"). Builds, in $WORK (default
# target/console-bench):
#   uri/        10 copies of fixtures/uri-class/students/fin-cpp (C++), each
#               with a harmless difference of its own (a comment; every
#               other one trailing spaces on its board's cell rows), and 14
#               scripts against the AI: the fixture's 5 and 9 from
#               `gen --profile uri --seed 28`;
#   smalltalk/  10 copies of fixtures/smalltalk-class/students/gil-cpp
#               (C++), each with a comment of its own, and 14 scripts: the fixture's 5 and 9 from `gen --profile
#               smalltalk --seed 28`, those leaving a move to chance played
#               44 times each.
# Then times `grade --profile P --jobs 2` on each with hyperfine, RUNS runs
# (default 3), after checking once that every student passes every script.
# Needs hyperfine, g++ and python3.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet --locked
bin="${CARGO_TARGET_DIR:-$PWD/target}/release/ttt-referee"
work="${WORK:-${CARGO_TARGET_DIR:-$PWD/target}/console-bench}"
runs="${RUNS:-3}"
rm -rf "$work"
mkdir -p "$work/uri/students" "$work/smalltalk/students"

for i in $(seq -w 1 10); do
    s="$work/uri/students/s$i"
    mkdir -p "$s"
    { echo "// Student $i's copy."; cat fixtures/uri-class/students/fin-cpp/main.cpp; } >"$s/main.cpp"
    if [ $((10#$i % 2)) -eq 0 ]; then
        sed -i 's#(col < 2 ? "  |" : "\\n")#(col < 2 ? "  |" : "   \\n")#' "$s/main.cpp"
        grep -q '"   \\n"' "$s/main.cpp"
    fi
    s="$work/smalltalk/students/s$i"
    mkdir -p "$s"
    { echo "// Student $i's copy."; cat fixtures/smalltalk-class/students/gil-cpp/main.cpp; } >"$s/main.cpp"
done
for p in uri smalltalk; do
    "$bin" gen --profile "$p" --seed 28 --count 9 --out-dir "$work/$p/tests" >/dev/null
    cp fixtures/"$p"-class/tests/*.stdin "$work/$p/tests/"
done

for p in uri smalltalk; do
    cd "$work/$p"
    # Once, untimed (it also builds nothing twice: every run rebuilds):
    # every student passes every script, so each timed grading does the
    # whole work.
    "$bin" grade --profile "$p" --jobs 2 --tests tests students/* >table.txt 2>/dev/null || true
    passed="$(awk 'NR > 1 && $(NF - 8) == 100 && $(NF - 6) == 14' table.txt | wc -l)"
    if [ "$passed" -ne 10 ]; then
        echo "$p: expected 10 students passing all 14 scripts, got $passed:" >&2
        cat table.txt >&2
        exit 1
    fi
    echo "$p, load: $(uptime | sed 's/.*load average: //')"
    hyperfine --runs "$runs" --export-csv "$work/$p.csv" \
        -n "$p: 10 students x 14 scripts, --jobs 2" \
        "$bin grade --profile $p --jobs 2 --tests tests students/* >/dev/null 2>&1"
    cd - >/dev/null
done
