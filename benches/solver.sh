#!/usr/bin/env bash
# Which boards `perfect` proves from the empty board within a budget:
# every ROWS <= COLS in 3..8 with K in 3..6 and K <= COLS (74 boards), one
# `hint` each (release build) under a CPU-time limit of BUDGET seconds
# (`ulimit -t`, so a machine shared with other jobs does not shorten it),
# with its CPU time, peak memory and value (`-` when the limit killed it).
# BIN=path runs another build instead (say, an older one); HASH=MB sets
# --hash (default 256). Usage:
#   benches/solver.sh [BUDGET_SECONDS] [ROWS,COLS,K ...]
# With boards named, only those. Figures in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
budget="${1:-10}"
shift || true
if [ -z "${BIN:-}" ]; then
    cargo build --release --quiet --locked
fi
bin="${BIN:-$PWD/target/release/ttt-referee}"
work="$PWD/target/solver-bench"
mkdir -p "$work"
boards=("$@")
if [ ${#boards[@]} -eq 0 ]; then
    for rows in 3 4 5 6 7 8; do
        for cols in 3 4 5 6 7 8; do
            [ "$rows" -le "$cols" ] || continue
            for k in 3 4 5 6; do
                [ "$k" -le "$cols" ] && boards+=("$rows,$cols,$k")
            done
        done
    done
fi
proved=0
total=0
printf '%-8s %-8s %8s %10s\n' board value cpu_s peak_kB
for board in "${boards[@]}"; do
    IFS=, read -r rows cols k <<<"$board"
    file="$work/$rows-$cols-$k.txt"
    printf 'Game\nX: a O: b\nBoard: %sx%s, %s in a row\n' "$rows" "$cols" "$k" >"$file"
    out=$(/usr/bin/time -f '%U %S %M' sh -c 'ulimit -t "$1"; exec "$2" hint "$3" --time 100000 --hash "$4"' \
        sh "$budget" "$bin" "$file" "${HASH:-256}" 2>"$work/err" || true)
    value=$(printf '%s\n' "$out" | head -n1 | awk '{print $2}')
    value="${value:--}"
    read -r user sys peak < <(tail -n1 "$work/err")
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    total=$((total + 1))
    case "$value" in win | draw | loss) proved=$((proved + 1)) ;; esac
    printf '%-8s %-8s %8s %10s\n' "$board" "$value" "$cpu" "$peak"
done
echo "proved $proved of $total within $budget CPU-s each"
