#!/bin/sh
# The referee's own cost of live play (BENCHMARKS.md, "Matches between
# bots"): two copies of the trivial C bot (fixtures/bots/first-c) play a
# match of GAMES games on 3x3, each bot one process for the whole game, and
# the time per move is the match's wall time over its moves (the bots'
# thinking is a few microseconds). Then a 10-bot round robin: 90 ordered
# pairings, 2 games each (--rounds 2: every pair plays each side twice),
# 180 games, --jobs 2. Run from the repository: sh benches/match.sh
set -eu
GAMES=${GAMES:-200}
cargo build --release --locked --quiet
bin=$PWD/target/release/ttt-referee
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for name in a b c d e f g h i j; do
    mkdir "$work/bot-$name"
    cp fixtures/bots/first-c/bot.c "$work/bot-$name/"
done
echo "== $GAMES games, first-c against itself, 3x3 (one process per bot per game)"
hyperfine --runs 3 --export-json "$work/match.json" \
    "$bin match $work/bot-a $work/bot-b --games $GAMES -q"
python3 - "$work/match.json" "$GAMES" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["results"][0]
games = int(sys.argv[2])
# first-c against itself: X takes 1, O 2, X 3, O 4 ... X wins at 7: 7 moves.
moves = 7 * games
print("per game: %.2f ms; per move: %.2f ms (median of %d runs, %d moves a run)"
      % (runs["median"] / games * 1000, runs["median"] / moves * 1000, len(runs["times"]), moves))
PY
echo "== the bare pipe runner (benches/bare_runner.c): the same games, no sandbox"
cc -O2 -o "$work/bare_runner" benches/bare_runner.c
cc -O2 -o "$work/first" fixtures/bots/first-c/bot.c
hyperfine --runs 3 "$work/bare_runner $GAMES $work/first $work/first"
echo "== the same games between engines (no processes): the arena's own loop"
hyperfine --runs 3 "$bin match rules rules --games $GAMES -q"
echo "== a 10-bot round robin, 90 ordered pairings x 2 games (180 games), --jobs 2"
hyperfine --runs 3 \
    "$bin tournament $work/bot-a $work/bot-b $work/bot-c $work/bot-d $work/bot-e $work/bot-f $work/bot-g $work/bot-h $work/bot-i $work/bot-j --rounds 2 --jobs 2 -q"
