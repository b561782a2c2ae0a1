#!/usr/bin/env bash
# experiments/archive/danish-v2: the Danish Kalaha network (Kalah(6,6), the seeds left go to the player who
# emptied their row; 83.2% alone on its 600-position judge set, trained by the old pipeline)
# continued 400 iterations by its config with the learning recipe (set-valued policy loss, the move
# head, labelled positions drawn where the judge looks, the 100,000-position held-out sets at each
# evaluation).
#   experiments/archive/danish-v2/run.sh [--resume]
exec "$(dirname "$0")/../../tools/continue-with-recipe.sh" configs/danish.toml danish-v2 checkpoints/danish 400 \
  --set run.seed=723 --set eval.every=50 "$@"
