#!/usr/bin/env bash
# Judges the two arms of experiments/kalah64-resplit.sh on the same positions, each paired against
# the other: the 18,687 exactly labelled middle-game positions, alone and with 64 simulations; the
# 1,200-position judge set alone (with the two 100,000-position held-out sets inside the database)
# and with 64 simulations; and how often each arm's move changes when the stores are split afresh
# (experiments/store-invariance/measure.py). Needs the Python package.
#   experiments/kalah64-resplit/eval.sh [RESPLIT_RUN CONTROL_RUN TAG]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=experiments/kalah64-resplit
a=${1:-checkpoints/runs/kalah64-resplit-resplit} b=${2:-checkpoints/runs/kalah64-resplit-control}
tag=${3:-resplit-vs-control}
k=${KALAHA:-./target/release/kalaha}
PY=${PYTHON:-python3}
export RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-1}
$PY experiments/midgame-labels/score.py --labels experiments/midgame-labels/labels-6x4-seed1.jsonl \
  --network "$a" --against "$b" --json > "$out/midgame-$tag.json"
for n in "$a" "$b"; do
  $PY experiments/store-invariance/measure.py --network "$n" --json > "$out/invariance-$(basename "$n").json"
done
$k judge --network "$a" --heldout --against "$b" --json > "$out/judge-$tag.json"
$k judge --network "$a" --simulations 64 --against "$b" --json > "$out/judge-sims64-$tag.json"
