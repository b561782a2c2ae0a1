#!/usr/bin/env bash
# experiments/children-v2: the committed children's-game network continued 100 iterations with
# the learning recipe.
#   experiments/children-v2.sh [--resume]
exec "$(dirname "$0")/continue-with-recipe.sh" configs/children.toml children-v2 checkpoints/children 100 "$@"
