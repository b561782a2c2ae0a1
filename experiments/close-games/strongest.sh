#!/usr/bin/env bash
# experiments/close-games: the strongest level (the solver guarding `hard`, 0.9 s a move) against
# `solver` on the 400 games of the four opening seeds, its own proofs tallied against the judge.
#   experiments/close-games/strongest.sh [SEEDS...]     (KALAHA names another binary)
exec "$(dirname "$0")/series.sh" strongest guard:0.9:policy:checkpoints/kalah64:64 "$@"
