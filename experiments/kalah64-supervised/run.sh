#!/usr/bin/env bash
# The supervised endgame ablations of experiments/kalah64-supervised/README.md: one run of the
# recipe (configs/kalah64-supervised.toml) and three with its parts switched back one by one, each
# on one thread, then each judged on the judge set and both 100,000-position held-out sets, paired
# against the recipe. Resumable: a finished run is skipped, a stopped one continued.
#   experiments/kalah64-supervised/run.sh [ITERATIONS]
set -euo pipefail
cd "$(dirname "$0")/../.."
it=${1:-150}
k=./target/release/kalaha
out=experiments/kalah64-supervised
export RAYON_NUM_THREADS=1
declare -A runs=(
  [recipe]=""
  [base]="--set optim.policy_loss=\"cross_entropy\" --set selfplay.label_draw=\"games\" --set selfplay.label_skip_forced=false --set network.moves=false --set optim.moves_weight=0"
  [setloss]="--set selfplay.label_draw=\"games\" --set network.moves=false --set optim.moves_weight=0"
  [judgedraw]="--set network.moves=false --set optim.moves_weight=0"
  [wide]="--set network.input=\"onehot_wide\""
)
for name in recipe base setloss judgedraw wide; do
  run="sup-$name-$it"
  if [ -f "checkpoints/runs/$run/meta.json" ] && grep -q "\"iteration\": $it," "checkpoints/runs/$run/meta.json"; then
    echo "$run: done"
  else
    resume=""; [ -f "checkpoints/runs/$run/meta.json" ] && resume="--resume"
    # shellcheck disable=SC2086
    eval $k train --config configs/kalah64-supervised.toml --set run.name=\"$run\" \
      --set run.iterations=$it ${runs[$name]} $resume 2>&1 | tee "$out/$run.log"
  fi
done
for name in recipe base setloss judgedraw wide; do
  $k judge --network "checkpoints/runs/sup-$name-$it" --heldout --against "checkpoints/runs/sup-base-$it" \
    --json > "$out/judge-$name-$it.json"
done
for mix in 0 0.5 2 8; do
  $k judge --network "checkpoints/runs/sup-recipe-$it" --heldout --moves-mix "$mix" \
    --against "checkpoints/runs/sup-judgedraw-$it" --json > "$out/judge-recipe-$it-mix$mix.json"
done
