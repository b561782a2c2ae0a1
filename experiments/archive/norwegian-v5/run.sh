#!/usr/bin/env bash
# experiments/archive/norwegian-v5: the committed Norwegian network (norwegian-v4) continued 500 iterations
# with the learning recipe and a 24-seed endgame database, the lever that took the children's game
# past its floor (experiments/children-v5): norwegian-v4's accuracy outside the 18-seed database
# stayed flat at 81.8-83.0% after iteration 100. The database (~1.25 GB in ~/.cache/kalaha) is
# built on first use (about 5 min on 2 cores).
#   experiments/archive/norwegian-v5/run.sh [--resume]
exec "$(dirname "$0")/../../tools/continue-with-recipe.sh" configs/norwegian.toml norwegian-v5 checkpoints/norwegian 500 \
  --set run.seed=719 --set eval.every=100 --set selfplay.endgame_db_seeds=24 "$@"
