#!/usr/bin/env bash
# experiments/archive/kalah64-v5: the committed Kalah(6,4) network continued 200 iterations with the
# learning recipe and a 24-seed endgame database (exact targets, solved leaves and labelled
# positions up to 24 seeds instead of 18), the lever that lifted the children's network outside
# the 18-seed database (children-v5). The database (1.25 GB,
# ~/.cache/kalaha/endgame-v1-m6-standard-owner-immediate-b24.kdb) is built first, on every core.
#   experiments/archive/kalah64-v5/run.sh [--resume]
set -euo pipefail
cd "$(dirname "$0")/../../.."
./target/release/kalaha solve --db-seeds 24 --time-limit 1 --json > /dev/null
exec experiments/tools/continue-with-recipe.sh configs/kalah64.toml kalah64-v5 checkpoints/kalah64 200 \
  --set optim.lr=0.001 --set optim.warmup_steps=100 --set run.seed=717 --set eval.every=50 \
  --set selfplay.endgame_db_seeds=24 "$@"
