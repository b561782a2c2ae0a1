#!/usr/bin/env bash
# Judges the two arms of experiments/archive/kalah64-midgame/run.sh on the same positions: the labels file's
# held-out fifth (never trained on) and its trained part, the 1,200-position judge set and the two
# 100,000-position held-out sets inside the database, each arm against the other with paired tests.
# Needs the Python package (`pip install ./python`) for score.py.
#   experiments/archive/kalah64-midgame/eval.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=experiments/archive/kalah64-midgame
file=checkpoints/runs/kalah64-midgame-file control=checkpoints/runs/kalah64-midgame-control
labels=checkpoints/labels/labels-6x4-seed1.jsonl
PY=${PYTHON:-python3}
for split in heldout train; do
  $PY experiments/midgame-labels/score.py --labels "$labels" --split "$split" --network "$file" \
    --against "$control" --json > "$out/midgame-$split.json"
done
$PY experiments/midgame-labels/score.py --labels "$labels" --split heldout \
  --network "$control" --against checkpoints/kalah64 --json > "$out/midgame-heldout-control-vs-committed.json"
./target/release/kalaha judge --network "$file" --heldout --against "$control" --json > "$out/judge.json"
./target/release/kalaha judge --network "$file" --heldout --against "$control" > "$out/judge.txt"
