#!/usr/bin/env bash
# experiments/kalah64-opening: does self-play that also starts from the lopsided middle games of
# random/greedy play (as the judge's mixed source draws them) lift the committed Kalah(6,4) network
# outside the endgame database? experiments/midgame-labels found the network alone at 85.3% on its
# own games' middle-game positions against 81.9% on the judge's. Two arms from
# checkpoints/kalah64, the same seed (732) and 150 iterations of the recipe at a peak learning rate
# of 0.0003, one thread each: ARM = greedy (games open with 0-24 moves, half of them greedy's:
# selfplay.opening_random_moves = 24, opening_greedy = 0.5) | control (0-8 random moves, as the
# config has it). KALAHA names another binary.
#   experiments/kalah64-opening/run.sh greedy|control [--resume]
set -euo pipefail
arm=${1:-}; shift || true
case $arm in
  greedy) opening=(--set selfplay.opening_random_moves=24 --set selfplay.opening_greedy=0.5) ;;
  control) opening=() ;;
  *) echo "usage: $0 greedy|control [--resume]" >&2; exit 2 ;;
esac
exec "$(dirname "$0")/../tools/continue-with-recipe.sh" configs/kalah64.toml "kalah64-opening-$arm" \
  checkpoints/kalah64 150 --set run.seed=732 --set optim.lr=0.0003 --set optim.lr_min=0.00003 \
  --set eval.every=50 "${opening[@]}" "$@"
