#!/usr/bin/env bash
# AlphaZero in PyTorch (examples/python/alphazero_torch.py) beside `kalaha train` at the same
# wall-clock budget, one thread each, one after the other; both judged on the 1,200-position
# judge set as they train (network alone). Needs the package and torch in the active Python.
#   experiments/python-research/alphazero.sh [MINUTES] [both|python|rust]
set -euo pipefail
cd "$(dirname "$0")/../.."
minutes=${1:-10} which=${2:-both}
out=experiments/python-research
if [ "$which" != rust ]; then
  python examples/python/alphazero_torch.py --minutes "$minutes" --threads 1 --judge-every 60 \
    --out "$out/alphazero" > "$out/alphazero.log" 2>&1
fi
[ "$which" = python ] && exit 0
# The project's pipeline: configs/kalah64.toml from scratch, judged every 10 iterations, stopped
# (Ctrl-C: it checkpoints) when the budget is spent.
# The run's judge set is read from <checkpoint_dir>/judge: the committed one, not solved again.
rm -rf /tmp/kalaha-az-compare && mkdir -p /tmp/kalaha-az-compare && cp -r checkpoints/judge /tmp/kalaha-az-compare/
RAYON_NUM_THREADS=1 timeout -s INT "$((minutes * 60))" ./target/release/kalaha train \
  --config configs/kalah64.toml --set run.name=compare --set run.iterations=100000 \
  --set run.checkpoint_dir='"/tmp/kalaha-az-compare"' --set run.experiment_dir='"/tmp/kalaha-az-compare"' \
  --set eval.every=10 --set eval.games=0 --set eval.opponents=[] --set eval.heldout_positions=0 \
  > "$out/kalaha-train.log" 2>&1 || true
python - "$out" <<'PY'
import json, sys
out = sys.argv[1]
meta = json.load(open("/tmp/kalaha-az-compare/compare/meta.json"))
curve = [{"seconds": round(e["seconds"], 1), "iteration": e["iteration"],
          "optimal_rate": e["solver"]["optimal_rate"], "inside_db": e["solver"]["inside_db"]["optimal_rate"],
          "outside_db": e["solver"]["outside_db"]["optimal_rate"]} for e in meta["evaluations"] if e.get("solver")]
json.dump(curve, open(f"{out}/kalaha-train-curve.json", "w"), indent=2)
print(json.dumps(curve[-1]))
PY
