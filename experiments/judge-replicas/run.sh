#!/usr/bin/env bash
# experiments/judge-replicas: is the committed Kalah(6,4) judge set (seed 2026) a typical sample
# of its sources? Fresh 1,200-position sets drawn the same way from other seeds (kalaha judge
# --seed, solved once into this folder, not into checkpoints/judge, whose sets training leaves
# out), and checkpoints/kalah64 judged alone on each.
#   experiments/judge-replicas/run.sh SEED...          (KALAHA names another binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${KALAHA:-target/release/kalaha}
for seed in "$@"; do
  "$bin" judge --network checkpoints/kalah64 --seed "$seed" --positions 1200 \
    --cache experiments/judge-replicas --json > "experiments/judge-replicas/kalah64-seed$seed.json"
done
"$bin" judge --network checkpoints/kalah64 --json > experiments/judge-replicas/kalah64-seed2026.json
