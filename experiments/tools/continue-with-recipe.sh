#!/usr/bin/env bash
# A committed network continued by its config's self-play pipeline with the learning recipe of
# experiments/kalah64-supervised: set-valued policy loss, a (fresh) move head trained on exact
# seeds lost, labelled positions drawn where the judge looks and as many as the self-play ones,
# and the 100,000-position held-out sets at every evaluation. One thread unless RAYON_NUM_THREADS says.
# Checkpoints go to checkpoints/runs/RUN/ (the config's run.checkpoint_dir; INIT is a released
# network, e.g. checkpoints/kalah64; KALAHA names another binary); release the result with `kalaha release checkpoints/runs/RUN NAME`.
#   experiments/tools/continue-with-recipe.sh CONFIG RUN INIT ITERATIONS [--set ... | --resume]
set -euo pipefail
cd "$(dirname "$0")/../.."
config=$1 run=$2 init=$3 iterations=$4
shift 4
RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-1} exec "${KALAHA:-./target/release/kalaha}" train --config "$config" \
  --set run.name="$run" --set run.init="\"$init\"" --set run.iterations="$iterations" \
  --set network.moves=true --set optim.policy_loss='"set"' --set optim.moves_weight=1.0 \
  --set selfplay.exact_share=1.0 --set selfplay.label_draw='"judge"' \
  --set eval.heldout_positions=100000 "$@"
