#!/usr/bin/env bash
# experiments/kalah64-ema: does a moving average of the weights (optim.ema_decay, Polyak
# averaging) play better than the trained weights it averages? The released 4x512
# checkpoints/kalah64 continued by the recipe as kalah64-widen was (peak learning rate 0.0005,
# 0.00003 at the end), the average kept with decay 0.999 (about the last 1,000 gradient steps,
# 16 iterations). Every evaluation scores both on the judge set and the held-out sets (a paired
# ablation: `trained` in meta.json's evaluations). Checkpoints in checkpoints/runs/kalah64-ema.
#   experiments/kalah64-ema/run.sh [--resume]        (KALAHA names another binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
exec experiments/tools/continue-with-recipe.sh configs/kalah64.toml kalah64-ema checkpoints/kalah64 300 \
  --set network.hidden=512 --set run.seed=745 --set optim.lr=0.0005 --set optim.lr_min=0.00003 \
  --set optim.ema_decay=0.999 --set eval.every=25 "$@"
