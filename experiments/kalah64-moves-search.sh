#!/usr/bin/env bash
# experiments/kalah64-moves-search: does training the move head on the search's Q gaps of
# self-play positions too (optim.moves_from_search), not only on exact labels, lift the committed
# Kalah(6,4) network outside the endgame database? Two arms from checkpoints/kalah64, the same
# seed and 150 iterations of the recipe, side by side on one thread each: ARM = search | control.
#   experiments/kalah64-moves-search.sh ARM [--resume]
set -euo pipefail
arm=$1; shift
case $arm in
  search) flag=true ;;
  control) flag=false ;;
  *) echo "usage: $0 search|control [--resume]" >&2; exit 2 ;;
esac
exec "$(dirname "$0")/continue-with-recipe.sh" configs/kalah64.toml "kalah64-msearch-$arm" checkpoints/kalah64 150 \
  --set run.seed=730 --set eval.every=50 --set optim.moves_from_search=$flag "$@"
