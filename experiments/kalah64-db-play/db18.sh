#!/usr/bin/env bash
# experiments/kalah64-db-play, the baseline of the 24-seed row: the committed Kalah(6,4) network with
# 64 simulations and its own (18-seed) database, on db24.sh's openings (drawn by today's random
# streams, so not those of the rows above). One thread.
#   experiments/kalah64-db-play/db18.sh [KALAHA]
set -euo pipefail
cd "$(dirname "$0")/../.."
kalaha=${1:-target/release/kalaha}
spec=policy:checkpoints/kalah64:64
RAYON_NUM_THREADS=1 "$kalaha" eval --player "$spec" --opponents solver --judge "$spec" --games 100 \
  --opening-moves 6 --seed 1 --experiments experiments/kalah64-db-play --name kalah64-db18-eval --json \
  > experiments/kalah64-db-play/kalah64-db18-eval.json
