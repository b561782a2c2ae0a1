"""The committed Kalah(6,4) network scored on the exactly labelled positions outside the endgame
database (label.py's file): alone, and searching as the ``hard`` level does, with standard errors,
by source and by seeds on the board. A yardstick outside the database several times the judge
set's 552 positions there.

    python experiments/midgame-labels/score.py [--labels FILE ...] [--network PATH] [--simulations N] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path

import numpy as np

import kalaha
from kalaha.research import pick

HERE = Path(__file__).resolve().parent


def load(files: list[Path]) -> list[dict]:
    """Labelled positions of every file, each index once (the first file's line wins)."""
    seen, rows = set(), []
    for f in files:
        if not f.exists():
            continue
        for line in f.open():
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if r["i"] not in seen:
                seen.add(r["i"])
                rows.append(r)
    return rows


def rate(hits: np.ndarray) -> dict:
    n = len(hits)
    p = float(hits.mean()) if n else 0.0
    return {"optimal_rate": round(p, 4), "std_err": round(math.sqrt(p * (1 - p) / max(n, 1)), 4),
            "positions": n}


def main() -> None:
    cache = Path(os.environ.get("KALAHA_CACHE") or Path.home() / ".cache" / "kalaha")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--labels", type=Path, nargs="*",
                    default=[HERE / "labels-6x4-seed1.jsonl", cache / "midgame-labels-6x4-seed1.jsonl"])
    ap.add_argument("--network", default="auto")
    ap.add_argument("--simulations", type=int, default=64)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = load(a.labels)
    net = kalaha.Network.load(a.network)
    positions = [kalaha.Position(r["position"]) for r in rows]
    optimal = [{int(k) for k, v in r["moves"].items() if v == r["value"]} for r in rows]
    obs = np.stack([p.observation() for p in positions]).astype(np.float32)
    mask = np.stack([p.action_mask() for p in positions])
    # Actions are pit numbers minus one for the player to move (no swap under these rules).
    alone = pick(net(obs, mask), mask) + 1
    searched = kalaha.search(positions, net, simulations=a.simulations, temperature=0.0,
                             endgame_db=True)["action"] + 1
    hit_alone = np.array([int(x) in o for x, o in zip(alone, optimal)])
    hit_search = np.array([int(x) in o for x, o in zip(searched, optimal)])
    report = {"network": a.network, "positions": len(rows), "simulations": a.simulations,
              "alone": rate(hit_alone), "search": rate(hit_search), "by_source": {}, "by_seeds": {}}
    for src in sorted({r["source"] for r in rows}):
        idx = np.array([r["source"] == src for r in rows])
        report["by_source"][src] = {"alone": rate(hit_alone[idx]), "search": rate(hit_search[idx])}
    for lo, hi in [(19, 24), (25, 30), (31, 36), (37, 48)]:
        idx = np.array([lo <= r["board_seeds"] <= hi for r in rows])
        report["by_seeds"][f"{lo}-{hi}"] = {"alone": rate(hit_alone[idx]), "search": rate(hit_search[idx])}
    if a.json:
        print(json.dumps(report, indent=1))
        return
    al, se = report["alone"], report["search"]
    print(f"{len(rows)} exactly labelled positions outside the database")
    print(f"  alone: {100 * al['optimal_rate']:.1f}% ± {100 * al['std_err']:.1f}")
    print(f"  {a.simulations} simulations: {100 * se['optimal_rate']:.1f}% ± {100 * se['std_err']:.1f}")
    for name, part in [*report["by_source"].items(), *report["by_seeds"].items()]:
        print(f"  {name}: alone {100 * part['alone']['optimal_rate']:.1f}%, searching "
              f"{100 * part['search']['optimal_rate']:.1f}% of {part['alone']['positions']}")


if __name__ == "__main__":
    main()
