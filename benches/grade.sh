#!/usr/bin/env bash
# grade against the plain grading script a course would write: one correct
# submission on 200 tests, `grade --jobs 2` (sandboxed) beside a sequential
# shell loop that runs the program in a temporary directory and compares
# with `diff -b` (unconfined). Also the guard's cost per run. Needs
# hyperfine (apt-get install hyperfine). Figures in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet --locked
cargo build --release --quiet --locked --example guard_cost
bin="$PWD/target/release/ttt-referee"
work="$PWD/target/grade-bench"
rm -rf "$work"
mkdir -p "$work/sub/right"
"$bin" gen --count 200 --seed 11 --with-transcripts --out-dir "$work/tests" >/dev/null
cp "$bin" "$work/sub/right/prog"

cat > "$work/loop.sh" <<'SH'
#!/usr/bin/env bash
# The grading script everyone writes: sequential, no sandbox.
passed=0
for test in "$1"/*.txt; do
    dir="$(mktemp -d)"
    cp "$2"/prog "$dir"/
    cp "$test" "$dir"/TTTmoves.txt
    (cd "$dir" && timeout 2 ./prog TTTmoves.txt -o TTTgame.txt) >/dev/null 2>&1
    diff -b "${test%.txt}.expected" "$dir"/TTTgame.txt >/dev/null 2>&1 && passed=$((passed + 1))
    rm -rf "$dir"
done
echo "$passed passed"
SH
chmod +x "$work/loop.sh"

hyperfine --warmup 1 --runs 10 \
    "$bin grade --jobs 2 --tests $work/tests --run './prog TTTmoves.txt -o TTTgame.txt' $work/sub/right" \
    "$work/loop.sh $work/tests $work/sub/right"

target/release/examples/guard_cost 300
