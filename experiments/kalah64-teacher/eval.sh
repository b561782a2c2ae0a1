#!/usr/bin/env bash
# Judges the two arms of experiments/kalah64-teacher.sh on the same positions, each paired against
# the other: the 14,583 exactly labelled middle-game positions (none in the teacher's file), alone
# and with 64 simulations; the 1,200-position judge set alone (with the two 100,000-position held-out
# sets inside the database) and with 64 simulations. Needs the Python package for score.py.
#   experiments/kalah64-teacher/eval.sh [TEACHER_RUN CONTROL_RUN TAG]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=experiments/kalah64-teacher
a=${1:-checkpoints/runs/kalah64-teacher-teacher} b=${2:-checkpoints/runs/kalah64-teacher-control}
tag=${3:-teacher-vs-control}
k=${KALAHA:-./target/release/kalaha}
PY=${PYTHON:-python3}
export RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-1}
$PY experiments/midgame-labels/score.py --labels experiments/midgame-labels/labels-6x4-seed1.jsonl \
  --network "$a" --against "$b" --json > "$out/midgame-$tag.json"
$k judge --network "$a" --heldout --against "$b" --json > "$out/judge-$tag.json"
$k judge --network "$a" --simulations 64 --against "$b" --json > "$out/judge-sims64-$tag.json"
