#!/usr/bin/env bash
# experiments/archive/kalah64-sims256: a stronger self-play teacher outside the endgame database. Search
# outside the database gains 1-1.5 points of solver-optimal moves per doubling of simulations
# (experiments/midgame-labels: 91.3% at 64, 94.1% at 256), so self-play at 256 simulations gives
# better policy targets there at a quarter of the positions per second. The committed network
# continued 150 iterations with the learning recipe, as the control arm of kalah64-midgame but at
# 256 simulations; two threads.
#   experiments/archive/kalah64-sims256/run.sh [--resume]
RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-2} exec "$(dirname "$0")/../../tools/continue-with-recipe.sh" \
  configs/kalah64.toml kalah64-sims256 checkpoints/kalah64 150 --set search.simulations=256 \
  --set optim.lr=0.0005 --set optim.warmup_steps=100 --set eval.every=50 "$@"
