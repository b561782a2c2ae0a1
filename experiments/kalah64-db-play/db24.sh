#!/usr/bin/env bash
# experiments/kalah64-db-play, the 24-seed row: the committed Kalah(6,4) network with 64
# simulations and the 24-seed endgame database at play (`:db=24`, 1.25 GB in ~/.cache/kalaha, built
# once in about 5 minutes), against `solver` from the same 50 openings as the rows before it, every
# move judged. One thread.
#   experiments/kalah64-db-play/db24.sh [KALAHA]
set -euo pipefail
cd "$(dirname "$0")/../.."
kalaha=${1:-target/release/kalaha}
spec=policy:checkpoints/kalah64:64:db=24
RAYON_NUM_THREADS=1 "$kalaha" eval --player "$spec" --opponents solver --judge "$spec" --games 100 \
  --opening-moves 6 --seed 1 --experiments experiments/kalah64-db-play --name kalah64-db24-eval --json \
  > experiments/kalah64-db-play/kalah64-db24-eval.json
