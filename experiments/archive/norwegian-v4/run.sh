#!/usr/bin/env bash
# experiments/archive/norwegian-v4: the committed Norwegian network continued 500 iterations with the
# learning recipe: norwegian-v3's 450 (89.4% alone; its output was lost before it could be
# released) made a little longer, inside the 90 minutes a fine-tune may take.
#   experiments/archive/norwegian-v4/run.sh [--resume]
exec "$(dirname "$0")/../../tools/continue-with-recipe.sh" configs/norwegian.toml norwegian-v4 checkpoints/norwegian 500 \
  --set run.seed=711 --set eval.every=100 "$@"
