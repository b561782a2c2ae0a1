#!/usr/bin/env bash
# experiments/archive/children-v2: the committed children's-game network continued 100 iterations with
# the learning recipe.
#   experiments/archive/children-v2/run.sh [--resume]
exec "$(dirname "$0")/../../tools/continue-with-recipe.sh" configs/children.toml children-v2 checkpoints/children 100 "$@"
