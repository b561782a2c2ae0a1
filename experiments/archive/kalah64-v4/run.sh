#!/usr/bin/env bash
# experiments/archive/kalah64-v4: the committed Kalah(6,4) network (kalah64-v3) continued 450 more
# iterations with the learning recipe and twice the gradient steps an iteration (128 of 1,024:
# each sample reused ~5.4 times instead of ~2.7), the learning recipe's "more gradient steps" item.
#   experiments/archive/kalah64-v4/run.sh [--resume]
exec "$(dirname "$0")/../../tools/continue-with-recipe.sh" configs/kalah64.toml kalah64-v4 checkpoints/kalah64 450 \
  --set optim.lr=0.001 --set optim.warmup_steps=100 --set optim.steps_per_iteration=128 \
  --set eval.every=50 "$@"
