#!/bin/sh
# Waiting in live play (BENCHMARKS.md, "Waiting: busy bots and silent
# ones"), two measurements:
#
# 1. A busy machine: COPIES (4) copies of fixtures/bots/busy, which thinks
#    THINK_MS (210) ms of CPU time a move, 0.7 of --move-time 0.3, graded by
#    `grade --play --games 2` with --jobs 2 (the cores), 4 and 8: the time
#    forfeits (every bot answers in time on a free core, so each is one
#    that concurrency made) and the wall time.
# 2. A silent bot (fixtures/bots/silent, never answers) graded with the
#    default options: the wall time.
#
# BIN=path/to/ttt-referee measures that build (its ttt-guard beside it);
# by default the release build of this checkout. Run from the repository:
# sh benches/busy.sh
set -eu
if [ -z "${BIN:-}" ]; then
    cargo build --release --locked --quiet
    BIN=$PWD/target/release/ttt-referee
fi
COPIES=${COPIES:-4}
THINK_MS=${THINK_MS:-210}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in $(seq 1 "$COPIES"); do
    mkdir "$work/busy-$i"
    sed "s/^#define THINK_MS 700$/#define THINK_MS $THINK_MS/" fixtures/bots/busy/bot.c >"$work/busy-$i/bot.c"
done
mkdir "$work/silent"
cp fixtures/bots/silent/bot.py "$work/silent/"
# What legal says: the forfeits of each bot, summed.
forfeits() {
    python3 - "$1" <<'PY'
import json, re, sys
results = json.load(open(sys.argv[1]))
total = games = 0
for sub in results["submissions"]:
    for test in sub["tests"]:
        if test["test"] == "legal":
            m = re.match(r"it forfeited (\d+) of its (\d+) games", test["detail"])
            n = re.match(r"it forfeited none of its (\d+) games", test["detail"])
            if m:
                total += int(m.group(1)); games += int(m.group(2))
            elif n:
                games += int(n.group(1))
print("%d time forfeits in %d games" % (total, games))
PY
}
echo "== $COPIES busy bots ($THINK_MS ms of CPU a move), --move-time 0.3, grade --play --games 2"
for jobs in 2 4 8; do
    begin=$(date +%s.%N)
    "$BIN" grade --play --games 2 --move-time 0.3 --startup 2 --jobs "$jobs" \
        --report "$work/report-$jobs" "$work"/busy-* >/dev/null 2>&1 || true
    end=$(date +%s.%N)
    printf -- "--jobs %s: %.1f s, " "$jobs" "$(echo "$end - $begin" | bc)"
    forfeits "$work/report-$jobs/results.json"
done
echo "== a silent bot, grade --play with the default options"
begin=$(date +%s.%N)
"$BIN" grade --play --report "$work/report-silent" "$work/silent" >/dev/null 2>&1 || true
end=$(date +%s.%N)
printf -- "%.1f s, " "$(echo "$end - $begin" | bc)"
forfeits "$work/report-silent/results.json"
