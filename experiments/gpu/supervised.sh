#!/usr/bin/env bash
# Issue 24's supervised scaling curve past what 2 cores can train: configs/kalah64-supervised.toml
# (exact endgame-database labels drawn where the judge looks) with a bigger network, for longer, on
# a lent GPU machine, in one call. The run is stopped with Ctrl-C (SIGINT: the trainer checkpoints)
# at BUDGET_S seconds if it has not finished; then the network alone is judged on both
# 100,000-position held-out sets and the 1,200-position judge set. Everything goes to $OUT
# (default: a scratch folder): supervised.json (the judge report, with the run's settings, the
# iteration reached and the wall times; train_exit 124 means stopped at the budget), train.log, and
# the network (meta.json and its last model, as `kalaha release` keeps it) as network.tar.gz, split
# into parts of 15 MiB (network.tar.gz.00, .01, ...) so that each comes back from the device.
#
#   experiments/gpu/supervised.sh [DEVICE]     DEVICE: wgpu (default), cuda or cpu (a dry run)
#
# Knobs (environment): HIDDEN (1024), LAYERS (4), ITERS (500: the cosine schedule's length),
# BATCH (1024), STEPS (64 gradient steps an iteration), POSITIONS (16384 labelled positions an
# iteration), LR (0.002), BUDGET_S (480: training stops here), EVAL_EVERY (0: only at the end),
# NAME (sup-gpu-HIDDENxLAYERS-ITERS). Measured on an H200 (experiments/gpu/README.md): with
# BATCH=4096 POSITIONS=65536, 4x1024 trains about 1.7 s an iteration (ITERS=240 took 398 s) and
# 4x2048 about 2.3 s. The binary, Vulkan and the carried held-out sets are set up by
# device-env.sh, as for run.sh; carry `target/gpu` (and `.gl` where the machine has no Vulkan
# loader). Compare with experiments/kalah64-supervised (4x512 x 1500 on one CPU core, 7,578 s:
# 97.19% on the judge-like held-out set).
set -uo pipefail
cd "$(dirname "$0")/../.."

DEVICE=${1:-wgpu}
HIDDEN=${HIDDEN:-1024}
LAYERS=${LAYERS:-4}
ITERS=${ITERS:-500}
BATCH=${BATCH:-1024}
STEPS=${STEPS:-64}
POSITIONS=${POSITIONS:-16384}
LR=${LR:-0.002}
BUDGET_S=${BUDGET_S:-480}
EVAL_EVERY=${EVAL_EVERY:-0}
NAME=${NAME:-sup-gpu-${HIDDEN}x${LAYERS}-${ITERS}}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
SCRIPT=supervised.sh
# shellcheck source=experiments/gpu/device-env.sh
. experiments/gpu/device-env.sh
RUNS="$WORK/runs"

echo "supervised.sh: $NAME on $DEVICE for at most $BUDGET_S s (output in $OUT)" >&2
t0=$SECONDS
timeout -s INT -k 60 "$BUDGET_S" "$BIN" train --config configs/kalah64-supervised.toml \
    --set run.name="\"$NAME\"" --set run.device="\"$DEVICE\"" --set run.iterations="$ITERS" \
    --set run.checkpoint_dir="\"$RUNS\"" --set run.experiment_dir="\"$WORK/tb\"" \
    --set network.hidden="$HIDDEN" --set network.layers="$LAYERS" \
    --set optim.batch_size="$BATCH" --set optim.steps_per_iteration="$STEPS" --set optim.lr="$LR" \
    --set selfplay.positions_per_iteration="$POSITIONS" --set eval.every="$EVAL_EVERY" \
    >"$OUT/train.log" 2>&1
train_rc=$?
train_s=$((SECONDS - t0))
if [ ! -e "$RUNS/$NAME/meta.json" ]; then
    echo "supervised.sh: no checkpoint was written; see $OUT/train.log" >&2
    tail -n 5 "$OUT/train.log" >&2
    exit 1
fi
# The checkpoint's sidecar names its iteration and its weights file.
read -r reached model < <(python3 -c 'import json, sys; m = json.load(open(sys.argv[1]));
print(m["iteration"], m["files"]["model"])' "$RUNS/$NAME/meta.json")
echo "supervised.sh: training stopped after $train_s s (exit $train_rc, checkpoint of iteration $reached)" >&2

t1=$SECONDS
"$BIN" judge --network "$RUNS/$NAME" --heldout --json >"$WORK/judge.json" 2>"$OUT/judge.log"
judge_rc=$?
judge_s=$((SECONDS - t1))
# The network as `kalaha release` keeps it (meta.json and its model), not the replay buffer.
(cd "$RUNS" && tar czf "$WORK/network.tar.gz" "$NAME/meta.json" "$NAME/$model") \
    && split -b 15M -d "$WORK/network.tar.gz" "$OUT/network.tar.gz."

python3 - "$WORK/judge.json" "$OUT/supervised.json" "$DEVICE" "$NAME" "$HIDDEN" "$LAYERS" "$ITERS" \
    "$BATCH" "$STEPS" "$POSITIONS" "$LR" "$BUDGET_S" "$reached" "$train_rc" "$train_s" \
    "$judge_rc" "$judge_s" <<'PY'
import json, os, sys
(judge, out, device, name, hidden, layers, iters, batch, steps, positions, lr, budget, reached,
 train_rc, train_s, judge_rc, judge_s) = sys.argv[1:]
report = {
    "script": "experiments/gpu/supervised.sh",
    "device": device,
    "name": name,
    "hidden": int(hidden),
    "layers": int(layers),
    "iterations_planned": int(iters),
    "iterations_reached": int(reached),
    "batch_size": int(batch),
    "steps_per_iteration": int(steps),
    "positions_per_iteration": int(positions),
    "lr": float(lr),
    "budget_seconds": int(budget),
    "train_exit": int(train_rc),
    "train_seconds": int(train_s),
    "judge_exit": int(judge_rc),
    "judge_seconds": int(judge_s),
    "cpus": os.cpu_count(),
}
try:
    report["judge"] = json.load(open(judge))
except (OSError, ValueError) as e:
    report["judge_error"] = str(e)
json.dump(report, open(out, "w"), indent=1)
j = report.get("judge", {})
sets = {h["set"]: h["optimal_rate"] for h in j.get("heldout", [])}
print(json.dumps({"name": name, "iterations_reached": int(reached), "train_seconds": int(train_s),
                  "judge_set": j.get("optimal_rate"), "heldout": sets}))
PY
