#!/usr/bin/env bash
# What shrinking failing tests costs and gives: `grade` with and without
# --no-shrink (hyperfine, RUNS runs each) on the class of fixtures/class,
# then on 20 generated tests (`gen --within cs1044 --seed 7`) for the five
# students whose bugs are wrong answers or crashes; from one graded report of
# each, every failing test's shrinking time, runs, and the share of move
# lines kept. Needs hyperfine and python3. Figures in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${RUNS:-3}"

cargo build --release --quiet --locked
bin="$PWD/target/release/ttt-referee"
work="$PWD/target/shrink-bench"
rm -rf "$work"
mkdir -p "$work"
cd fixtures/class

"$bin" gen --within cs1044 --count 20 --seed 7 --out-dir "$work/generated" >/dev/null
buggy="students/fay-order students/gus-nocat students/hal-spacing students/ivy-crash students/lee-diag"

measure() { # NAME TESTS STUDENTS...
    local name="$1" tests="$2"
    shift 2
    echo "== $name"
    hyperfine --warmup 1 --runs "$runs" -i --export-json "$work/$name.json" --style basic \
        "$bin grade --tests $tests --no-shrink $*" \
        "$bin grade --tests $tests $*" 2>&1 | grep -v Warning
    "$bin" grade --tests "$tests" --report "$work/$name" "$@" >/dev/null 2>&1 || true
    python3 - "$work/$name/results.json" "$work/$name.json" <<'PY'
import json, statistics, sys
results = json.load(open(sys.argv[1]))
bench = json.load(open(sys.argv[2]))["results"]
rows, ratios, seconds = [], [], []
for s in results["submissions"]:
    for t in s["tests"]:
        crashed = t["verdict"] == "crashed" and (t["exit_status"] is not None or t["signal"] is not None)
        if t["verdict"] != "wrong" and not crashed:
            continue
        m = t["smallest_failing_input"]
        if m is None:
            rows.append((s["submission"], t["test"], t["verdict"], "-", "-", "-", "-", "not smaller"))
            ratios.append(1.0)
            continue
        ratios.append(m["lines"] / m["original_lines"])
        seconds.append(m["seconds"])
        rows.append((s["submission"], t["test"], t["verdict"], m["lines"], m["original_lines"],
                     m["runs"], f'{m["seconds"]:.2f}', "complete" if m["complete"] else "budget"))
for r in rows:
    print(*r, sep="\t")
failing = len(ratios)
off, on = bench[0]["mean"], bench[1]["mean"]
print(f"\nfailing (wrong or crashed) tests: {failing}, shrunk: {len(seconds)}")
print(f"grade --no-shrink {off:.2f} s ± {bench[0]['stddev']:.2f}, with shrinking {on:.2f} s ± {bench[1]['stddev']:.2f}")
print(f"added wall time of the grading per failing test: {(on - off) / failing:.2f} s (--jobs = CPUs)")
if seconds:
    print(f"shrinking time per shrunk test: median {statistics.median(seconds):.2f} s, "
          f"mean {statistics.mean(seconds):.2f} s, max {max(seconds):.2f} s; "
          f"all of them {sum(seconds):.1f} s, {sum(seconds) / failing:.2f} s per failing test")
print(f"median share of move lines kept: {statistics.median(ratios):.2f}")
PY
}

measure class tests students/*
measure generated "$work/generated" $buggy
