#!/usr/bin/env bash
# Seeds the fuzz corpora from the project's fixtures. Run from fuzz/.
set -euo pipefail
mkdir -p corpus/movefile corpus/referee corpus/console
for f in ../fixtures/*.txt ../fixtures/*/*.txt; do
    name=$(echo "$f" | tr '/.' '__')
    cp "$f" "corpus/movefile/$name"
    # The referee target reads its options from the first byte.
    for pick in 00 04 08 84; do
        { printf "\x$pick"; cat "$f"; } > "corpus/referee/${name}_$pick"
    done
done
# The console target: a profile byte, then a scripted session.
for f in ../fixtures/play/*.stdin; do
    name=$(basename "$f" .stdin)
    case "$name" in
        default-*) pick=00 ;; xtreme-*) pick=01 ;; extended-*) pick=02 ;; uri-*) pick=0b ;;
    esac
    { printf "\x$pick"; cat "$f"; } > "corpus/console/$name"
done
echo "seeded $(ls corpus/movefile | wc -l) move files and $(ls corpus/console | wc -l) console sessions"
