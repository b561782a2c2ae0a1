#!/usr/bin/env bash
# experiments/kalah64-widen: the widened network's `hard` level (64 simulations with its 18-seed
# database) against `solver`, on the openings of experiments/kalah64-db-play/db18.sh (the
# committed network's baseline there: 82 of 100 games reach the opening's result). One thread.
#   experiments/kalah64-widen/hard.sh [KALAHA]
set -euo pipefail
cd "$(dirname "$0")/../.."
kalaha=${1:-target/release/kalaha}
spec=policy:experiments/kalah64-widen/network:64
RAYON_NUM_THREADS=1 "$kalaha" eval --player "$spec" --opponents solver --judge "$spec" --games 100 \
  --opening-moves 6 --seed 1 --experiments experiments/kalah64-widen --name hard-vs-solver --json \
  > experiments/kalah64-widen/hard-vs-solver.json
