#!/usr/bin/env bash
# experiments/archive/children-v4: the committed children's-game network (children-v2) continued 400
# iterations with the learning recipe: children-v3's 300 (98.1% alone, still rising; its output
# was lost before it could be released) made longer, inside the 90 minutes a fine-tune may take.
#   experiments/archive/children-v4/run.sh [--resume]
exec "$(dirname "$0")/../../tools/continue-with-recipe.sh" configs/children.toml children-v4 checkpoints/children 400 \
  --set run.seed=713 --set eval.every=50 "$@"
