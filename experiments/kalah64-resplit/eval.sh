#!/usr/bin/env bash
# Judges the two arms of experiments/kalah64-resplit/run.sh on the same positions, each paired against
# the other (experiments/tools/paired-eval.sh: the exactly labelled middle-game positions, 18,687 when
# this record was made, alone and with 64 simulations; the 1,200-position judge set alone, with
# the two 100,000-position held-out sets inside the database, and with 64 simulations), and how
# often each arm's move changes when the stores are split afresh
# (experiments/store-invariance/measure.py). Needs the Python package.
#   experiments/kalah64-resplit/eval.sh [RESPLIT_RUN CONTROL_RUN TAG]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=experiments/kalah64-resplit
a=${1:-checkpoints/runs/kalah64-resplit-resplit} b=${2:-checkpoints/runs/kalah64-resplit-control}
experiments/tools/paired-eval.sh "$out" "$a" "$b" "${3:-resplit-vs-control}"
for n in "$a" "$b"; do
  RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-1} ${PYTHON:-python3} experiments/store-invariance/measure.py \
    --network "$n" --json > "$out/invariance-$(basename "$n").json"
done
