#!/usr/bin/env bash
# experiments/archive/children-v3: the committed children's-game network (children-v2) continued 300 more
# iterations with the learning recipe, its in-training curve having still risen at 100.
#   experiments/archive/children-v3/run.sh [--resume]
exec "$(dirname "$0")/../../tools/continue-with-recipe.sh" configs/children.toml children-v3 checkpoints/children 300 --set run.checkpoint_dir="\"checkpoints/runs\"" \
  --set run.seed=713 --set eval.every=50 "$@"
