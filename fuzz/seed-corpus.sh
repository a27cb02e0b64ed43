#!/usr/bin/env bash
# Seeds the fuzz corpora from the project's fixtures. Run from fuzz/.
set -euo pipefail
mkdir -p corpus/movefile corpus/referee
for f in ../fixtures/*.txt ../fixtures/*/*.txt; do
    name=$(echo "$f" | tr '/.' '__')
    cp "$f" "corpus/movefile/$name"
    # The referee target reads its options from the first byte.
    for pick in 00 04 08 84; do
        { printf "\x$pick"; cat "$f"; } > "corpus/referee/${name}_$pick"
    done
done
echo "seeded $(ls corpus/movefile | wc -l) move files"
