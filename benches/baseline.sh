#!/usr/bin/env bash
# Whole-process comparisons with the plain C++ referee in benches/baseline/
# (see BENCHMARKS.md). Needs hyperfine (apt-get install hyperfine) and g++.
#
#   benches/baseline.sh           single file, 1000 interleaved runs each, medians
#   benches/baseline.sh batch     10,000 files: one batch run vs a shell loop
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet
g++ -O2 -o target/student_ttt benches/baseline/student_ttt.cpp
ours=target/release/ttt-referee
theirs=target/student_ttt

median() {
    python3 - "$1" <<'PY'
import json, sys
for result in json.load(open(sys.argv[1]))["results"]:
    print("%10.3f ms median  %s" % (result["median"] * 1000, result["command"]))
PY
}

case "${1:-single}" in
single)
    # Interleaved, one run of each in turn, so the host's load touches all
    # alike; an empty Rust program shows what starting a process costs.
    cargo build --release --quiet --example interleave
    printf 'fn main() {}\n' > target/empty.rs
    rustc -O -o target/empty_rust target/empty.rs
    cargo build-static --quiet
    static=target/x86_64-unknown-linux-gnu/release/ttt-referee
    target/release/examples/interleave 1000 \
        target/empty_rust \
        "$ours fixtures/TTTmoves.txt -o target/ours.txt" \
        "$static fixtures/TTTmoves.txt -o target/static.txt" \
        "$theirs fixtures/TTTmoves.txt target/theirs.txt"
    cmp target/ours.txt target/theirs.txt
    cmp target/static.txt target/theirs.txt
    ;;
batch)
    rm -rf target/batch && mkdir -p target/batch/theirs
    $ours gen --count 10000 --seed 1 --out-dir target/batch/moves
    hyperfine --warmup 1 --runs 5 --export-json target/baseline-batch.json \
        "$ours target/batch/moves --out-dir target/batch/ours 2>/dev/null" \
        "for f in target/batch/moves/*.txt; do $theirs \"\$f\" target/batch/theirs/\$(basename \"\$f\"); done" >/dev/null
    median target/baseline-batch.json
    ;;
*)
    echo "usage: benches/baseline.sh [single|batch]" >&2
    exit 2
    ;;
esac
