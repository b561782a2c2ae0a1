#!/usr/bin/env bash
# experiments/kalah64-teacher: does a deep-search teacher outside the endgame database lift the
# network there? The committed Kalah(6,4) network continued 200 iterations with the learning recipe,
# in two arms that differ only in one training source: `teacher` draws as many positions again as
# self-play makes from experiments/midgame-teacher's file (300,000 judge-like middle-game positions
# labelled by the committed network's 512-simulation search, teach.py), `control` does not.
#   experiments/kalah64-teacher/run.sh teacher|control [--resume]
set -euo pipefail
arm=${1:?"teacher or control"}
shift
cache=${KALAHA_CACHE:-$HOME/.cache/kalaha}
case $arm in
  teacher) extra=(--set selfplay.label_file="\"$cache/midgame-teacher-6x4-seed2-s512.jsonl\""
                  --set selfplay.label_file_share=1.0 --set selfplay.label_file_holdout=0) ;;
  control) extra=() ;;
  *) echo "kalah64-teacher.sh: the arm is teacher or control, not '$arm'" >&2; exit 2 ;;
esac
exec "$(dirname "$0")/../tools/continue-with-recipe.sh" configs/kalah64.toml "kalah64-teacher-$arm" \
  checkpoints/kalah64 200 --set optim.lr=0.0005 --set optim.warmup_steps=100 --set eval.every=50 \
  --set run.experiment_dir='"experiments/kalah64-teacher"' "${extra[@]}" "$@"
