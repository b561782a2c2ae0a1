#!/usr/bin/env bash
# experiments/solver-sims: how much search the `hard` level's network needs to meet issue 24's
# floor against `solver` (the opening's game-theoretic result reached in >= 95 of 100 games). The
# preset report's series (100 games from 50 openings of 6 random moves, seed 1, both seats, every
# move of the network's player judged by the solver), played by `policy:checkpoints/kalah64:SIMS`
# for each SIMS given (64 is the `hard` level). Reports into experiments/solver-sims/sims-SIMS/.
# PROVE=on plays `policy:checkpoints/kalah64:SIMS:prove=on` (the search proves subtrees,
# MCTS-solver) into sims-SIMS-prove/.
#   experiments/solver-sims/run.sh SIMS...            (KALAHA names another binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${KALAHA:-target/release/kalaha}
opt=""; tag=""
if [ "${PROVE:-off}" = on ]; then opt=":prove=on"; tag="-prove"; fi
for sims in "$@"; do
  "$bin" eval --player "policy:checkpoints/kalah64:$sims$opt" --opponents solver \
    --judge "policy:checkpoints/kalah64:$sims$opt" --games 100 --opening-moves 6 --seed 1 \
    --name "solver-sims/sims-$sims$tag" --experiments experiments --json \
    > "experiments/solver-sims/sims-$sims$tag.json" 2> "experiments/solver-sims/sims-$sims$tag.log"
done
