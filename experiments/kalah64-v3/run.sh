#!/usr/bin/env bash
# experiments/kalah64-v3: the committed Kalah(6,4) network continued 450 iterations with the
# learning recipe, at half kalah64's learning rate and 50 iterations between evaluations.
#   experiments/kalah64-v3/run.sh [--resume]
exec "$(dirname "$0")/../tools/continue-with-recipe.sh" configs/kalah64.toml kalah64-v3 checkpoints/kalah64 450 \
  --set optim.lr=0.001 --set optim.warmup_steps=100 --set eval.every=50 "$@"
