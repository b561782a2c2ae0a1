#!/usr/bin/env bash
# experiments/solver-sims: how much search the `hard` level's network needs to meet issue 24's
# floor against `solver` (the opening's game-theoretic result reached in >= 95 of 100 games). The
# preset report's series (100 games from 50 openings of 6 random moves, seed 1, both seats, every
# move of the network's player judged by the solver), played by `policy:checkpoints/kalah64:SIMS`
# for each SIMS given (64 is the `hard` level). Reports into experiments/solver-sims/sims-SIMS/.
#   experiments/solver-sims/run.sh SIMS...            (KALAHA names another binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${KALAHA:-target/release/kalaha}
for sims in "$@"; do
  "$bin" eval --player "policy:checkpoints/kalah64:$sims" --opponents solver \
    --judge "policy:checkpoints/kalah64:$sims" --games 100 --opening-moves 6 --seed 1 \
    --name "solver-sims/sims-$sims" --experiments experiments --json \
    > "experiments/solver-sims/sims-$sims.json" 2> "experiments/solver-sims/sims-$sims.log"
done
