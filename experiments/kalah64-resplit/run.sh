#!/usr/bin/env bash
# experiments/kalah64-resplit: does splitting the stored seeds afresh between the two stores
# (optim.store_resplit; the margin-optimal moves do not depend on the split) help the network
# generalise? The committed Kalah(6,4) network continued 200 iterations with the learning recipe,
# in two arms that differ only in that switch: `resplit` re-splits half of each batch's positions,
# `control` none.
#   experiments/kalah64-resplit/run.sh resplit|control [--resume]
set -euo pipefail
arm=${1:?"resplit or control"}
shift
case $arm in
  resplit) extra=(--set optim.store_resplit=0.5) ;;
  control) extra=() ;;
  *) echo "kalah64-resplit.sh: the arm is resplit or control, not '$arm'" >&2; exit 2 ;;
esac
exec "$(dirname "$0")/../tools/continue-with-recipe.sh" configs/kalah64.toml "kalah64-resplit-$arm" \
  checkpoints/kalah64 200 --set network.hidden=512 --set optim.lr=0.0005 --set optim.warmup_steps=100 --set eval.every=50 \
  --set run.experiment_dir='"experiments/kalah64-resplit"' "${extra[@]}" "$@"
