#!/usr/bin/env bash
# The distributed-training figures on this machine, in one run (experiments/distributed/README.md):
#  1. throughput: `kalaha train` and `python -m kalaha.distributed` with 1 and 2 workers, the
#     kalah64 config for $ITS iterations each, one after the other: positions per wall-clock
#     second over the whole run (self-play and learning), from each checkpoint's sidecar;
#  2. learning: the same config for $QITS iterations by both paths from the same seed, judged on
#     the judge set and paired (`kalaha judge --against`).
# Evaluations during the runs are off (they would take the same cores); the judge comes after.
# Needs target/release/kalaha and the package built (`pip install ./python` or maturin develop)
# with Ray installed. Writes throughput.json, learning.json and the runs' logs here.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:-python3}
K=target/release/kalaha
OUT=experiments/distributed
ITS=${ITS:-6}
QITS=${QITS:-40}
TMP=${TMP_DIR:-/tmp/kalaha-distributed}
mkdir -p "$TMP"
common=(--set run.checkpoint_dir="$TMP/ck" --set run.experiment_dir="$TMP/ex"
        --set eval.every=0 --set eval.solver_positions=0 --set eval.heldout_positions=0
        --set eval.games=10 --set run.checkpoint_every=1000)
rate() { # positions per second of a checkpoint's whole run
  "$PY" -c 'import json,sys; m=json.load(open(sys.argv[1])); print(json.dumps({"iterations": m["iteration"], "positions": m["positions"], "seconds": round(m["seconds"],1), "positions_per_sec": round(m["positions"]/m["seconds"],1)}))' "$1/meta.json"
}
if [ "${SKIP_THROUGHPUT:-0}" != 1 ]; then
  rm -rf "$TMP/ck/tp-"* "$TMP/ex/tp-"*
  "$K" train --config configs/kalah64.toml "${common[@]}" --set run.name=tp-train \
    --set run.iterations="$ITS" 2> "$OUT/tp-train${ROUND:+-$ROUND}.log"
  for w in 1 2; do
    "$PY" -m kalaha.distributed --config configs/kalah64.toml "${common[@]}" --cpus 2 \
      --workers "$w" --set run.name="tp-w$w" --set run.iterations="$ITS" --json \
      2> "$OUT/tp-w$w${ROUND:+-$ROUND}.log"
  done
  {
    echo "{"
    echo "\"train\": $(rate "$TMP/ck/tp-train"),"
    echo "\"distributed_1\": $(rate "$TMP/ck/tp-w1"),"
    echo "\"distributed_2\": $(rate "$TMP/ck/tp-w2")"
    echo "}"
  } | "$PY" -m json.tool > "$OUT/throughput${ROUND:+-$ROUND}.json"
  cat "$OUT/throughput${ROUND:+-$ROUND}.json"
fi
if [ "${SKIP_LEARNING:-0}" != 1 ]; then
  rm -rf "$TMP/ck/q-"* "$TMP/ex/q-"*
  "$K" train --config configs/kalah64.toml "${common[@]}" --set run.name=q-train \
    --set run.iterations="$QITS" 2> "$OUT/q-train.log"
  "$PY" -m kalaha.distributed --config configs/kalah64.toml "${common[@]}" --cpus 2 \
    --workers 2 --set run.name=q-dist --set run.iterations="$QITS" --json 2> "$OUT/q-dist.log"
  "$K" judge --network "$TMP/ck/q-dist" --against "$TMP/ck/q-train" --json > "$OUT/learning.json"
  "$PY" -c 'import json; r=json.load(open("experiments/distributed/learning.json")); print(json.dumps({k: r[k] for k in ("optimal_rate","std_err")}), json.dumps(r["against"])[:600])'
fi
if [ "${KILL:-0}" = 1 ]; then
  # The cost of a killed worker: the 2-worker throughput run again, worker 1 killed with SIGKILL
  # once iteration 2 is logged; the run's seconds and positions against the run without a kill.
  rm -rf "$TMP/ck/tp-kill" "$TMP/ex/tp-kill"
  log="$OUT/tp-kill${ROUND:+-$ROUND}.log"
  "$PY" -m kalaha.distributed --config configs/kalah64.toml "${common[@]}" --cpus 2 \
    --workers 2 --set run.name=tp-kill --set run.iterations="$ITS" --json 2> "$log" \
    > "$OUT/tp-kill${ROUND:+-$ROUND}.json" &
  driver=$!
  until grep -q "^iteration 2/" "$log" 2>/dev/null; do sleep 1; done
  pid=$(sed -n 's/.*worker 1 started (pid \([0-9]*\).*/\1/p' "$log")
  echo "killing worker 1 (pid $pid) at $(date +%T)"; kill -9 "$pid"
  wait "$driver"
  echo "{\"killed\": $(rate "$TMP/ck/tp-kill")}" | "$PY" -m json.tool
fi
