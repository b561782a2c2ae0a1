#!/usr/bin/env bash
# Judges the two arms of experiments/kalah64-teacher/run.sh on the same positions, each paired against
# the other: the 14,583 exactly labelled middle-game positions (none in the teacher's file), alone
# and with 64 simulations; the 1,200-position judge set alone (with the two 100,000-position held-out
# sets inside the database) and with 64 simulations (experiments/tools/paired-eval.sh). Needs the Python
# package for score.py.
#   experiments/kalah64-teacher/eval.sh [TEACHER_RUN CONTROL_RUN TAG]
set -euo pipefail
cd "$(dirname "$0")/../.."
exec experiments/tools/paired-eval.sh experiments/kalah64-teacher \
  "${1:-checkpoints/runs/kalah64-teacher-teacher}" "${2:-checkpoints/runs/kalah64-teacher-control}" \
  "${3:-teacher-vs-control}"
