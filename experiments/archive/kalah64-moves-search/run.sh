#!/usr/bin/env bash
# experiments/archive/kalah64-moves-search: does training the move head on the search's Q gaps of
# self-play positions too (optim.moves_from_search), not only on exact labels, lift the committed
# Kalah(6,4) network outside the endgame database? Two arms from checkpoints/kalah64, the same
# seed and 150 iterations of the recipe, side by side on one thread each: ARM = search | control.
# With `lowlr` the second pair: peak learning rate 0.0003 instead of the config's 0.002, seed 731.
#   experiments/archive/kalah64-moves-search/run.sh ARM [lowlr] [--resume]
set -euo pipefail
arm=${1:-}; shift || true
case $arm in
  search) flag=true ;;
  control) flag=false ;;
  *) echo "usage: $0 search|control [lowlr] [--resume]" >&2; exit 2 ;;
esac
run="kalah64-msearch-$arm" extra=(--set run.seed=730)
if [ "${1:-}" = lowlr ]; then
  shift
  run="kalah64-msearch-lowlr-$arm" extra=(--set run.seed=731 --set optim.lr=0.0003)
fi
exec "$(dirname "$0")/../../tools/continue-with-recipe.sh" configs/kalah64.toml "$run" checkpoints/kalah64 150 \
  "${extra[@]}" --set eval.every=50 --set optim.moves_from_search=$flag "$@"
