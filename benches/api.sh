#!/usr/bin/env bash
# What function-level grading costs: `grade --api xtreme` and `grade --api
# igameboard` on one student of fixtures/api with 500 random cases per
# function (the issue's measure), for the correct student and for one whose
# bug is shrunk to a smallest call; hyperfine, RUNS runs each. Needs
# hyperfine, python3, javac. Figures in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${RUNS:-5}"

cargo build --release --quiet --locked
bin="$PWD/target/release/ttt-referee"
work="$PWD/target/api-bench"
rm -rf "$work"
mkdir -p "$work"
cd fixtures/api

hyperfine --warmup 1 --runs "$runs" -i --style basic --export-markdown "$work/api.md" \
    -n "xtreme, ada-correct" "$bin grade --api xtreme --cases 500 --report $work/r1 xtreme/ada-correct" \
    -n "xtreme, eli-updiag (shrunk)" "$bin grade --api xtreme --cases 500 --report $work/r2 xtreme/eli-updiag" \
    -n "igameboard, ada-correct" "$bin grade --api igameboard --cases 500 --report $work/r3 igameboard/ada-correct" \
    -n "igameboard, cy-one-diagonal (shrunk)" \
    "$bin grade --api igameboard --cases 500 --report $work/r4 igameboard/cy-one-diagonal" 2>&1 | grep -v Warning
cat "$work/api.md"
