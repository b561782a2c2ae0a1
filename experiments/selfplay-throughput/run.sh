#!/usr/bin/env bash
# Self-play throughput of the old binary (990710f, its own trainer) and the new one (VecEnv
# self-play), side by side, alternating, ROUNDS rounds of 8 iterations each (evaluation off but
# for one game a seat at the end, no judge set). Usage: run.sh OLD_BIN OLD_CONFIG NEW_BIN OUT_DIR
set -euo pipefail
OLD=$1 OLDCFG=$2 NEW=$3 OUT=$4 ROUNDS=${ROUNDS:-2}
mkdir -p "$OUT"
common=(--set run.iterations=8 --set eval.every=0 --set eval.games=1 --set eval.solver_positions=0)
for r in $(seq 1 "$ROUNDS"); do
  tmp=$(mktemp -d)
  "$OLD" train --config "$OLDCFG" "${common[@]}" --set run.name=old \
    --set run.checkpoint_dir="$tmp" --set run.experiment_dir="$tmp" > "$OUT/old-$r.log" 2>&1
  "$NEW" train --config configs/kalah64.toml "${common[@]}" --set run.name=same \
    --set run.checkpoint_dir="$tmp" --set run.experiment_dir="$tmp" \
    --set network.input=counts --set selfplay.endgame_db_seeds=0 --set selfplay.targets=result \
    --set selfplay.temperature_end=0.1 --set replay.capacity=1000000 > "$OUT/same-$r.log" 2>&1
  "$NEW" train --config configs/kalah64.toml "${common[@]}" --set run.name=v2 \
    --set run.checkpoint_dir="$tmp" --set run.experiment_dir="$tmp" > "$OUT/v2-$r.log" 2>&1
  rm -rf "$tmp"
done
python3 - "$OUT" <<'PY'
import glob, json, re, statistics, sys
out = sys.argv[1]
res = {}
for kind in ["old", "same", "v2"]:
    pos, ev = [], []
    for f in sorted(glob.glob(f"{out}/{kind}-*.log")):
        for line in open(f):
            m = re.match(r"iteration (\d+)/\d+: pos/s (\d+)\s+evals/s (\d+)", line)
            if m and int(m.group(1)) >= 3:
                pos.append(int(m.group(2))); ev.append(int(m.group(3)))
    res[kind] = {"positions_per_sec": statistics.median(pos), "evals_per_sec": statistics.median(ev),
                 "iterations": len(pos)}
json.dump(res, open(f"{out}/summary.json", "w"), indent=1)
print(json.dumps(res))
PY
