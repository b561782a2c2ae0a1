#!/usr/bin/env bash
# experiments/archive/kalah64-midgame: does mixing exactly solved middle-game positions (outside the
# endgame database: experiments/midgame-labels) into self-play lift the network there? The
# committed Kalah(6,4) network continued 400 iterations with the learning recipe, in two arms that
# differ only in the labels file: `file` draws 10% of positions_per_iteration more from it (a fifth
# of its lines held out; judge-set positions left out), `control` does not.
#   experiments/archive/kalah64-midgame/run.sh file|control [--resume]
set -euo pipefail
arm=${1:?"file or control"}
shift
case $arm in
  file) extra=(--set selfplay.label_file='"checkpoints/labels/labels-6x4-seed1.jsonl"'
               --set selfplay.label_file_share=0.1) ;;
  control) extra=() ;;
  *) echo "kalah64-midgame.sh: the arm is file or control, not '$arm'" >&2; exit 2 ;;
esac
exec "$(dirname "$0")/../../tools/continue-with-recipe.sh" configs/kalah64.toml "kalah64-midgame-$arm" \
  checkpoints/kalah64 400 --set optim.lr=0.0005 --set optim.warmup_steps=100 --set eval.every=100 \
  "${extra[@]}" "$@"
