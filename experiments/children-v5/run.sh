#!/usr/bin/env bash
# experiments/children-v5: the committed children's-game network continued 300 iterations with the
# learning recipe and a 24-seed endgame database (exact targets, solved leaves and labelled
# positions up to 24 seeds on the board instead of 18), because children-v4 found every miss but
# two outside the 18-seed database and self-play alone not moving them. The database (1.25 GB,
# ~/.cache/kalaha/endgame-v1-m6-off-owner-immediate-b24.kdb) is built on first use (4.5 min on 2 cores).
#   experiments/children-v5/run.sh [--resume]
exec "$(dirname "$0")/../tools/continue-with-recipe.sh" configs/children.toml children-v5 checkpoints/children 300 \
  --set run.seed=715 --set eval.every=50 --set selfplay.endgame_db_seeds=24 "$@"
