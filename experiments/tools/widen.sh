#!/usr/bin/env bash
# experiments/kalah64-widen, danish-widen, swedish-widen, norwegian-widen and kalah64-pie-widen: does a wider network lift a committed one once it
# has been trained? The released 4x256 network is widened to 4x512 without changing its outputs
# (run.init with network.hidden = 512, `Net::widen`) and continued by its config's pipeline with
# the learning recipe, at a peak learning rate of 0.0005 (a short continuation: no dip), one thread.
#   experiments/tools/widen.sh kalah64|danish|swedish|norwegian|kalah64-pie [--resume]
set -euo pipefail
case ${1:-} in
  kalah64) config=configs/kalah64.toml seed=740 iterations=300 ;;
  danish) config=configs/danish.toml seed=741 iterations=250 ;;
  swedish) config=configs/swedish.toml seed=742 iterations=250 ;;
  norwegian) config=configs/norwegian.toml seed=743 iterations=300 ;;
  kalah64-pie) config=configs/kalah64-pie.toml seed=744 iterations=300 ;;
  *) echo "usage: $0 kalah64|danish|swedish|norwegian|kalah64-pie [--resume]" >&2; exit 2 ;;
esac
name=$1; shift
exec "$(dirname "$0")/continue-with-recipe.sh" "$config" "$name-widen" "checkpoints/$name" $iterations \
  --set network.hidden=512 --set run.seed=$seed --set optim.lr=0.0005 --set optim.lr_min=0.00003 \
  --set eval.every=25 "$@"
