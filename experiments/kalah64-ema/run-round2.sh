#!/usr/bin/env bash
# experiments/kalah64-ema (second round): checkpoints/kalah64 as kalah64-ema released it,
# continued 150 more iterations by the same recipe and settings (peak learning rate 0.0005, the
# moving average at decay 0.999), seed 746: does the continuation curve still rise?
#   experiments/kalah64-ema/run-round2.sh [--resume]        (KALAHA names another binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
exec experiments/tools/continue-with-recipe.sh configs/kalah64.toml kalah64-ema2 checkpoints/kalah64 150 \
  --set network.hidden=512 --set run.seed=746 --set optim.lr=0.0005 --set optim.lr_min=0.00003 \
  --set optim.ema_decay=0.999 --set eval.every=25 "$@"
