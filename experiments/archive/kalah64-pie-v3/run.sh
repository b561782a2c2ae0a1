#!/usr/bin/env bash
# experiments/archive/kalah64-pie-v3: the committed pie network (kalah64-pie-v2, 88.6% alone, still rising
# at its end) continued 300 more iterations by the pie config with the learning recipe, a fresh
# cosine schedule; 43 + 36 minutes of fine-tuning in all.
#   experiments/archive/kalah64-pie-v3/run.sh [--resume]
exec "$(dirname "$0")/../../tools/continue-with-recipe.sh" configs/kalah64-pie.toml kalah64-pie-v3 checkpoints/kalah64-pie 300 \
  --set run.seed=721 --set eval.every=50 "$@"
