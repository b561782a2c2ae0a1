#!/usr/bin/env bash
# experiments/releases: rebuild the shipped Kalah(6,4) network from its recipe and compare it with
# the network it would replace (paired sign tests on the judge set and both held-out sets).
#   experiments/releases/run.sh [--resume]      (KALAHA names another binary; a copy of the
#                                                binary keeps a long run apart from rebuilds)
set -euo pipefail
cd "$(dirname "$0")/../.."
kalaha=${KALAHA:-target/release/kalaha}
RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-2} "$kalaha" train --config configs/kalah64.toml "$@" \
  2>&1 | tee -a checkpoints/runs/kalah64.log
python3 experiments/releases/progress.py > experiments/releases/progress.md
"$kalaha" judge --network checkpoints/runs/kalah64/ema --heldout --against checkpoints/kalah64 --json \
  > experiments/releases/rebuilt-vs-shipped.json
