#!/usr/bin/env bash
# experiments/archive/kalah64-pie-v2: a new pie-rule network, the committed Kalah(6,4) network (90.3% alone,
# trained with the learning recipe) fine-tuned 300 iterations by the pie config with the recipe.
# The committed pie network was fine-tuned from an older Kalah(6,4) network by the old pipeline;
# after North's first answer a pie game is a Kalah(6,4) game, so the newer network's start should carry.
#   experiments/archive/kalah64-pie-v2/run.sh [--resume]
exec "$(dirname "$0")/../../tools/continue-with-recipe.sh" configs/kalah64-pie.toml kalah64-pie-v2 checkpoints/kalah64 300 \
  --set run.seed=720 --set eval.every=50 "$@"
