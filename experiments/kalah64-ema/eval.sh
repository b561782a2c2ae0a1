#!/usr/bin/env bash
# experiments/kalah64-ema: the run's averaged network (checkpoints/runs/kalah64-ema, its model
# file) judged against the released network and against the trained weights it averages
# (checkpoints/runs/kalah64-ema-trained: the run's train-N.bpk under a sidecar naming it), paired on
# the same positions: the 1,200-position judge set and the two 100,000-position held-out sets,
# alone and with 64 simulations, and the 10,128 exact middle-game labels.
#   experiments/kalah64-ema/eval.sh [KALAHA]          (Python: the kalaha package installed)
set -euo pipefail
cd "$(dirname "$0")/../.."
kalaha=${1:-target/release/kalaha}
run=checkpoints/runs/kalah64-ema
out=experiments/kalah64-ema
py=${PYTHON:-python3}
# The trained weights as a network folder of their own.
trained=checkpoints/runs/kalah64-ema-trained
mkdir -p "$trained"
"$py" - "$run" "$trained" <<'PY'
import json, shutil, sys
from pathlib import Path
run, out = Path(sys.argv[1]), Path(sys.argv[2])
meta = json.loads((run / "meta.json").read_text())
name = meta["files"]["training"]
shutil.copy(run / name, out / name)
meta["files"] = {"model": name}
(out / "meta.json").write_text(json.dumps(meta, indent=2))
PY
RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-2}
export RAYON_NUM_THREADS
"$kalaha" judge --network $run --heldout --against checkpoints/kalah64 --json > $out/judge-paired.json
"$kalaha" judge --network $run --heldout --against $trained --json > $out/judge-vs-trained.json
"$kalaha" judge --network $run --simulations 64 --against checkpoints/kalah64 --json > $out/judge-sims64-paired.json
"$py" experiments/midgame-labels/score.py --network $run --against checkpoints/kalah64 --json > $out/midgame.json
"$py" experiments/midgame-labels/score.py --network $run --against $trained --json > $out/midgame-vs-trained.json
