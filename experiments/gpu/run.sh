#!/usr/bin/env bash
# The GPU check (experiments/gpu/README.md) in one command: `kalaha bench train` (the real trainer, a few
# iterations in a scratch folder) on the GPU device and on the CPU backend, for configs/kalah64.toml
# and for a network too big for small CPUs (6 layers x 1024), printing one JSON object.
#
#   experiments/gpu/run.sh [DEVICE]        DEVICE: wgpu (default) or cuda; `cpu` alone: a dry run
#
# The binary: $KALAHA_BIN, else target/gpu/kalaha, else target/gpu/kalaha.gz (unpacked into a
# scratch folder), else target/release/kalaha. experiments/gpu/prepare.sh makes the carry:
# target/gpu/kalaha.gz (a `--features wgpu` build, stripped and gzipped, about 16 MiB) and
# target/gpu/lib/libvulkan.so.1 (a Vulkan loader, used here when present). The Vulkan driver is
# the machine's: the NVIDIA driver's ICD (its JSON file, or libGLX_nvidia.so.0, from which this
# script writes one) or Mesa's. The adapter wgpu took is in the output (`wgpu_adapter`): a
# software one (llvmpipe) means the GPU was not reached.
#
# First `kalaha bench compare` (the same AdamW steps from the same weights on the CPU and the GPU:
# losses, weights and outputs within tolerances) for a 3x128 and the 6x1024 network, then the four
# throughput cases. Each runs under `timeout` (COMPARE_TIMEOUT = 45 s, CASE_TIMEOUT = 110 s): all
# of it fits in a 10-minute call (9 minutes at the very most). A case that fails or times out is
# reported with its error and the others still run. Knobs (environment): ITERS (timed iterations,
# 2), WARMUP (1), BIG_POSITIONS (self-play positions per iteration of the big network, 2048),
# BIG_STEPS (its gradient steps an iteration, 16), CASE_TIMEOUT, COMPARE_TIMEOUT, CASES (the
# throughput cases, default "kalah64 big").
set -uo pipefail
cd "$(dirname "$0")/../.."

GPU=${1:-wgpu}
ITERS=${ITERS:-2}
WARMUP=${WARMUP:-1}
BIG_POSITIONS=${BIG_POSITIONS:-2048}
BIG_STEPS=${BIG_STEPS:-16}
CASE_TIMEOUT=${CASE_TIMEOUT:-110}
COMPARE_TIMEOUT=${COMPARE_TIMEOUT:-45}
CASES=${CASES:-kalah64 big}

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
SCRIPT=run.sh
# shellcheck source=experiments/gpu/device-env.sh
. experiments/gpu/device-env.sh

# run_to NAME LIMIT ARGS...: `kalaha ARGS --json` into $WORK/NAME.json (or NAME.err).
run_to() {
    local name=$1 limit=$2
    shift 2
    local out="$WORK/$name"
    echo "run.sh: $name ..." >&2
    local t0=$SECONDS
    timeout "$limit" "$BIN" "$@" --json >"$out.json" 2>"$out.log"
    local rc=$?
    echo "$((SECONDS - t0))" >"$out.secs"
    if [ $rc -ne 0 ]; then
        [ -s "$out.json" ] || rm -f "$out.json"   # bench compare prints its figures, then fails
        if [ $rc -eq 124 ]; then
            echo "timed out after $limit s" >"$out.err"
        else
            tail -n 3 "$out.log" | tr '\n' ' ' >"$out.err"
        fi
        echo "run.sh: $name failed: $(cat "$out.err")" >&2
    fi
}

if [ "$GPU" != cpu ]; then
    run_to compare "$COMPARE_TIMEOUT" bench compare --device "$GPU"
    run_to compare-big "$COMPARE_TIMEOUT" bench compare --device "$GPU" --hidden 1024 --layers 6 \
        --batch 1024 --steps 3
fi
DEVICES="$GPU"
[ "$GPU" = cpu ] || DEVICES="$GPU cpu"
TRAIN=(bench train --iterations "$ITERS" --warmup "$WARMUP" --config configs/kalah64.toml)
for c in $CASES; do
    for dev in $DEVICES; do
        case $c in
            kalah64) run_to "kalah64-$dev" "$CASE_TIMEOUT" "${TRAIN[@]}" --device "$dev" ;;
            big) run_to "big-$dev" "$CASE_TIMEOUT" "${TRAIN[@]}" --device "$dev" \
                    --set network.hidden=1024 --set network.layers=6 \
                    --set selfplay.positions_per_iteration="$BIG_POSITIONS" \
                    --set optim.steps_per_iteration="$BIG_STEPS" ;;
            *) echo "run.sh: unknown case $c (kalah64, big)" >&2; exit 2 ;;
        esac
    done
done

GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
python3 - "$WORK" "$GPU" "$BIN" "$ICD_NOTE" "${GPU_NAME:-}" "$CASES" <<'PY'
import json, os, sys
work, gpu, binary, icd, gpu_name, cases = sys.argv[1:]
devices = [gpu] if gpu == "cpu" else [gpu, "cpu"]
out = {
    "script": "experiments/gpu/run.sh",
    "binary": binary,
    "gpu_device": gpu,
    "gpu_name": gpu_name or None,
    "cpus": os.cpu_count(),
    "vulkan_icd": icd,
    "cases": {},
}
for case in cases.split():
    entry = {}
    for dev in devices:
        base = os.path.join(work, f"{case}-{dev}")
        secs = open(base + ".secs").read().strip() if os.path.exists(base + ".secs") else None
        if os.path.exists(base + ".json"):
            r = json.load(open(base + ".json"))
            entry[dev] = {
                "samples_per_sec": r["samples_per_sec"],
                "positions_per_sec": r["positions_per_sec"],
                "evals_per_sec": r["evals_per_sec"],
                "seconds_per_iteration": r["seconds_per_iteration"],
                "wall_seconds": float(secs) if secs else None,
                "bench": r,
            }
        else:
            err = open(base + ".err").read().strip() if os.path.exists(base + ".err") else "not run"
            entry[dev] = {"error": err, "wall_seconds": float(secs) if secs else None}
    if gpu != "cpu" and "samples_per_sec" in entry.get(gpu, {}) and "samples_per_sec" in entry.get("cpu", {}):
        g, c = entry[gpu], entry["cpu"]
        entry["gpu_over_cpu"] = {
            "samples_per_sec": g["samples_per_sec"] / max(c["samples_per_sec"], 1e-9),
            "positions_per_sec": g["positions_per_sec"] / max(c["positions_per_sec"], 1e-9),
        }
    out["cases"][case] = entry
# The adapter wgpu took, as `kalaha` reports it (a software one means no GPU was used).
for log in sorted(os.listdir(work)):
    if log.endswith(".log"):
        for line in open(os.path.join(work, log), errors="replace"):
            if line.startswith("kalaha: wgpu adapter:"):
                out.setdefault("wgpu_adapter", line.split(":", 2)[2].strip())
if gpu != "cpu":
    out["agreement"] = {}
    for name in ("compare", "compare-big"):
        base = os.path.join(work, name)
        entry = json.load(open(base + ".json")) if os.path.exists(base + ".json") else {}
        if os.path.exists(base + ".err"):
            entry["error"] = open(base + ".err").read().strip()
        out["agreement"][name] = entry or {"error": "not run"}
print(json.dumps(out, indent=1))
PY
