#!/usr/bin/env bash
# The kalah64 self-play pipeline continued from the committed network with the supervised recipe's
# parts (experiments/kalah64-supervised): set-valued policy loss, a move head on exact labels,
# labelled positions drawn where the judge looks, as many labelled positions as self-play ones;
# judged on the 100,000-position held-out sets every 50 iterations. One thread; resumable.
#   experiments/kalah64-v3.sh [--resume]
set -euo pipefail
cd "$(dirname "$0")/.."
RAYON_NUM_THREADS=1 exec ./target/release/kalaha train --config configs/kalah64.toml \
  --set run.name=kalah64-v3 --set run.init='"checkpoints/kalah64"' --set run.iterations=450 \
  --set network.moves=true --set optim.policy_loss='"set"' --set optim.moves_weight=1.0 \
  --set selfplay.exact_share=1.0 --set selfplay.label_draw='"judge"' \
  --set optim.lr=0.001 --set optim.warmup_steps=100 \
  --set eval.every=50 --set eval.heldout_positions=100000 "$@"
