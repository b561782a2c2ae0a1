#!/usr/bin/env bash
# experiments/archive/norwegian-v3: the committed Norwegian network continued 450 iterations with the
# learning recipe (norwegian-v2's 100 moved the inside of the database only; the kalah64
# continuation that moved the outside took 450).
#   experiments/archive/norwegian-v3/run.sh [--resume]
exec "$(dirname "$0")/../../tools/continue-with-recipe.sh" configs/norwegian.toml norwegian-v3 checkpoints/norwegian 450 --set run.checkpoint_dir="\"checkpoints/runs\"" \
  --set run.seed=711 --set eval.every=75 "$@"
