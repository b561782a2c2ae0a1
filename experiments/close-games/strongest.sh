#!/usr/bin/env bash
# experiments/close-games: the strongest level (the solver guarding `hard`, 0.9 s a move) against
# `solver` on the 400 games of the four opening seeds (6 random moves, both seats), judged move by
# move, its own proofs tallied against the judge.
#   experiments/close-games/strongest.sh [KALAHA] [SEEDS...]
set -euo pipefail
cd "$(dirname "$0")/../.."
kalaha=${1:-target/release/kalaha}
shift || true
spec=guard:0.9:policy:checkpoints/kalah64:64
for s in ${*:-1 2 3 4}; do
    "$kalaha" eval --player "$spec" --opponents solver --judge "$spec" --games 100 --opening-moves 6 \
        --seed "$s" --json > "experiments/close-games/strongest-vs-solver-seed$s.json.tmp"
    mv "experiments/close-games/strongest-vs-solver-seed$s.json.tmp" "experiments/close-games/strongest-vs-solver-seed$s.json"
done
