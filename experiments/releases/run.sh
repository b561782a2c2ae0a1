#!/usr/bin/env bash
# experiments/releases: rebuild a shipped network from its recipe and compare it with the network
# it would replace (paired sign tests on the judge set and both held-out sets).
#   experiments/releases/run.sh [kalah64|swedish] [--resume]    (default kalah64; KALAHA names
#                                 another binary: a copy keeps a long run apart from rebuilds)
# Writes progress[-NAME].md (every evaluation so far) and rebuilt-vs-shipped[-NAME].json.
set -euo pipefail
cd "$(dirname "$0")/../.."
kalaha=${KALAHA:-target/release/kalaha}
name=kalah64
if [[ $# -gt 0 && $1 != -* ]]; then name=$1; shift; fi
case $name in
    kalah64) final=checkpoints/runs/kalah64/ema suffix="" ;;   # the recipe's last stage
    swedish) final=checkpoints/runs/swedish suffix="-swedish" ;;   # one stage: the run itself
    *) echo "run.sh: unknown recipe '$name' (kalah64 or swedish)" >&2; exit 2 ;;
esac
RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-2} "$kalaha" train --config "configs/$name.toml" "$@" \
  2>&1 | tee -a "checkpoints/runs/$name.log"
python3 experiments/releases/progress.py "$name" > "experiments/releases/progress$suffix.md"
out=experiments/releases/rebuilt-vs-shipped$suffix.json
"$kalaha" judge --network "$final" --heldout --against "checkpoints/$name" --json > "$out.tmp"
mv "$out.tmp" "$out"
