#!/usr/bin/env bash
# The scaling curve of experiments/kalah64-supervised/README.md: the supervised recipe
# (configs/kalah64-supervised.toml) at several widths, depths and training lengths, one thread
# each, each then judged on the two 100,000-position held-out sets. A point is WIDTHxITERATIONS
# (four hidden layers) or WIDTHxITERATIONSxLAYERS. Resumable: a finished run is skipped, a stopped
# one continued (its log appended to); runs left for later are listed last. KALAHA names another binary.
#   experiments/kalah64-supervised/scale.sh [WIDTHxITERATIONS[xLAYERS] ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
k=${KALAHA:-./target/release/kalaha}
out=experiments/kalah64-supervised
export RAYON_NUM_THREADS=1
points=("$@")
# Whether run $1 has reached its last iteration $2 (a run stopped with Ctrl-C exits cleanly, short of it).
finished() { [ -f "checkpoints/runs/$1/meta.json" ] && grep -q "\"iteration\": $2," "checkpoints/runs/$1/meta.json"; }
[ ${#points[@]} -gt 0 ] || points=(128x150 512x150 256x450 512x450 1024x150)
for p in "${points[@]}"; do
  IFS=x read -r w it layers <<< "$p"
  layers=${layers:-4}
  run="sup-w$w-$it"
  if [ "$w" = 256 ] && [ "$it" = 150 ]; then run="sup-recipe-150"; fi
  if [ "$layers" != 4 ]; then run="sup-w$w-$it-l$layers"; fi
  if finished "$run" "$it"; then
    echo "$run: done"
  else
    resume=""; append=""
    if [ -f "checkpoints/runs/$run/meta.json" ]; then resume="--resume"; append="-a"; fi
    $k train --config configs/kalah64-supervised.toml --set "run.name=\"$run\"" \
      --set run.iterations="$it" --set network.hidden="$w" --set network.layers="$layers" \
      --set run.experiment_dir='"experiments/kalah64-supervised/tb"' $resume 2>&1 | tee $append "$out/$run.log"
  fi
  # Judge only a finished run; after a stop, leave it and the points after it for later.
  if ! finished "$run" "$it"; then
    echo "$run: stopped before iteration $it; run this script again to continue it" >&2; exit 0
  fi
  $k judge --network "checkpoints/runs/$run" --heldout --against checkpoints/runs/sup-recipe-150 --json \
    > "$out/judge-$run.json"
done
