"""What the network's own move gives away on the exact middle-game labels, by ply: how often it is
optimal, the mean final margin it loses a position, and its misses split by cost in final margin
(2: one seed changes sides, as the 48 seeds are all counted; 4; 6-8; 10 or more) and by whether
they change the game-theoretic result (a won position no longer won, a drawn one lost). Says
whether the gap at plies 8-15 is near-ties or blunders.

    python experiments/midgame-labels/misses.py [--network PATH] [--labels FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

import kalaha
from kalaha.research import pick

HERE = Path(__file__).resolve().parent
PLIES = [(0, 7), (8, 11), (12, 15), (16, 23), (24, 999)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--labels", type=Path, default=HERE.parents[1] / "checkpoints" / "labels" / "labels-6x4-seed1.jsonl")
    ap.add_argument("--network", default="checkpoints/kalah64")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = [json.loads(line) for line in a.labels.open() if line.strip()]
    net = kalaha.Network.load(a.network)
    positions = [kalaha.Position(r["position"]) for r in rows]
    mask = np.stack([p.action_mask() for p in positions])
    moves = pick(net(positions, mask), mask) + 1
    sign = lambda v: (v > 0) - (v < 0)  # noqa: E731
    lost = np.array([r["value"] - r["moves"][str(int(m))] for r, m in zip(rows, moves)])
    changed = np.array([sign(r["moves"][str(int(m))]) != sign(r["value"]) for r, m in zip(rows, moves)])
    ply = np.array([r["ply"] for r in rows])
    report = []
    for lo, hi in [(0, 999), *PLIES]:
        idx = (ply >= lo) & (ply <= hi)
        n, miss = int(idx.sum()), idx & (lost > 0)
        m = int(miss.sum())
        cost = lambda a_, b_: round(int((miss & (lost >= a_) & (lost <= b_)).sum()) / max(m, 1), 4)  # noqa: E731
        report.append({
            "ply": "all" if hi == 999 and lo == 0 else (f"{lo}-{hi}" if hi < 999 else f"{lo}+"),
            "positions": n, "optimal_rate": round(1 - m / max(n, 1), 4),
            "mean_margin_lost": round(float(lost[idx].mean()), 3),
            "misses": m, "misses_by_margin_lost": {"2": cost(1, 2), "4": cost(3, 4), "6-8": cost(5, 8),
                                                  "10+": cost(9, 999)},
            "result_changing_rate": round(int((idx & changed).sum()) / max(n, 1), 4),
        })
    if a.json:
        print(json.dumps({"network": a.network, "positions": len(rows), "by_ply": report}, indent=1))
        return
    print(f"{len(rows)} exact middle-game labels, network {a.network} alone")
    print("| ply | positions | optimal | margin lost a position | misses losing 2 / 4 / 6-8 / 10+ | result changed |")
    print("| --- | ---: | ---: | ---: | --- | ---: |")
    for r in report:
        c = r["misses_by_margin_lost"]
        print(f"| {r['ply']} | {r['positions']:,} | {100 * r['optimal_rate']:.1f}% | {r['mean_margin_lost']:.2f} | "
              f"{100 * c['2']:.0f}% / {100 * c['4']:.0f}% / {100 * c['6-8']:.0f}% / {100 * c['10+']:.0f}% | "
              f"{100 * r['result_changing_rate']:.1f}% |")


if __name__ == "__main__":
    main()
