#!/usr/bin/env bash
# experiments/close-games: one player against `solver` on the 400 games of the four opening seeds
# (6 random moves, both seats), every move of the player judged by the solver.
#   experiments/close-games/series.sh NAME SPEC [SEEDS...]     (KALAHA names another binary)
# then: python3 experiments/close-games/pair.py NAME hard     (paired with hard, game by game)
# writes experiments/close-games/NAME-vs-solver-seedN.json; pair two players with pair.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
kalaha=${KALAHA:-target/release/kalaha}
name=$1
spec=$2
shift 2
for s in ${*:-1 2 3 4}; do
    out=experiments/close-games/$name-vs-solver-seed$s.json
    "$kalaha" eval --player "$spec" --opponents solver --judge "$spec" --games 100 --opening-moves 6 \
        --seed "$s" --json > "$out.tmp"
    mv "$out.tmp" "$out"
done
# The record keeps a row a game (games.csv), not the raw outputs.
files=$(for s in ${*:-1 2 3 4}; do printf 'experiments/close-games/%s-vs-solver-seed%s.json,' "$name" "$s"; done)
python3 experiments/close-games/pair.py --collect "$name" "${files%,}"
