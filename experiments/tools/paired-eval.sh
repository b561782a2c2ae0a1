#!/usr/bin/env bash
# Two networks judged on the same positions, the first paired against the second: the exactly
# labelled middle-game positions of experiments/midgame-labels (alone and with 64 simulations), the
# 1,200-position judge set alone (with the two 100,000-position held-out sets inside the database)
# and with 64 simulations. Writes OUT/midgame-TAG.json, OUT/judge-TAG.json and
# OUT/judge-sims64-TAG.json. Needs the Python package for score.py; KALAHA names the binary,
# PYTHON the interpreter. One thread unless RAYON_NUM_THREADS says.
#   experiments/tools/paired-eval.sh OUT NETWORK AGAINST TAG
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$1 a=$2 b=$3 tag=$4
k=${KALAHA:-./target/release/kalaha}
PY=${PYTHON:-python3}
export RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-1}
$PY experiments/midgame-labels/score.py --labels checkpoints/labels/labels-6x4-seed1.jsonl \
  --network "$a" --against "$b" --json > "$out/midgame-$tag.json"
$k judge --network "$a" --heldout --against "$b" --json > "$out/judge-$tag.json"
$k judge --network "$a" --simulations 64 --against "$b" --json > "$out/judge-sims64-$tag.json"
