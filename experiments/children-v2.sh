#!/usr/bin/env bash
# The committed children's-game network (checkpoints/children) continued with the learning recipe
# of experiments/kalah64-supervised: set-valued policy loss, a move head, labelled positions drawn
# where the judge looks, as many as the self-play ones; the held-out sets every 25 iterations.
# One thread; resumable with --resume.
#   experiments/children-v2.sh [--resume]
set -euo pipefail
cd "$(dirname "$0")/.."
RAYON_NUM_THREADS=1 exec ./target/release/kalaha train --config configs/children.toml \
  --set run.name=children-v2 --set run.init='"checkpoints/children"' --set run.iterations=100 \
  --set network.moves=true --set optim.policy_loss='"set"' --set optim.moves_weight=1.0 \
  --set selfplay.exact_share=1.0 --set selfplay.label_draw='"judge"' \
  --set eval.heldout_positions=100000 "$@"
