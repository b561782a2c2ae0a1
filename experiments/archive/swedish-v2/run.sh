#!/usr/bin/env bash
# experiments/archive/swedish-v2: the Swedish Kalaha network (Kalah(6,6), 84.0% alone on its 600-position
# judge set, trained by the old pipeline) continued 400 iterations by its config with the learning
# recipe (set-valued policy loss, the move head, labelled positions drawn where the judge looks,
# the 100,000-position held-out sets at each evaluation).
#   experiments/archive/swedish-v2/run.sh [--resume]
exec "$(dirname "$0")/../../tools/continue-with-recipe.sh" configs/swedish.toml swedish-v2 checkpoints/swedish 400 \
  --set run.seed=722 --set eval.every=50 "$@"
