"""How good a teacher's lines would be: a network's search labelled as teach.py labels, scored
against the exact values of midgame-labels' positions. The searched move's rate of optimal and
result-keeping moves, and the line's value (the searched move's Q in seeds, what the network is
trained to predict) against perfect play's: its mean absolute error and how often its sign is the
result's. Compares teachers before any line is written: the 4x256 network at 512 simulations made
today's file; a stronger one costs more a line.

    python experiments/midgame-teacher/quality.py --network PATH [--simulations S] \
        [--labels FILE ...] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "midgame-labels"))

import kalaha  # noqa: E402
from score import LABELS, game_sides, judged, load, perfect_play, rate  # noqa: E402
from teach import labels  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--network", required=True)
    ap.add_argument("--simulations", type=int, default=512)
    ap.add_argument("--labels", type=Path, nargs="*", default=LABELS)
    ap.add_argument("--seed", type=int, default=4, help="the search's seed (teach.py's --seed)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.simulations < 1:
        ap.error("--simulations must be 1 or more")
    rows = load(a.labels)
    if not rows:
        ap.error("no labelled positions in " + ", ".join(map(str, a.labels)))
    try:
        net = kalaha.Network.load(a.network)
    except ValueError as e:
        ap.exit(2, f"quality.py: {e}\n")
    positions = [kalaha.Position(r["position"]) for r in rows]
    lines = labels(positions, net, a.simulations, a.seed)
    # The teacher's move: the one its line values highest (teach.py writes the searched move's
    # value and every other move below it).
    moves = [max(m, key=m.get) for _, m in lines]
    optimal, kept, _ = judged(moves, rows)
    said = np.array([v for v, _ in lines])
    exact = np.array([r["value"] for r in rows])
    errors = np.abs(said - exact)
    report = {
        "network": a.network, "simulations": a.simulations, "positions": len(rows),
        "move": rate(optimal), "move_result_kept": rate(kept, "rate"),
        "value_mae": round(float(errors.mean()), 3),
        "value_mae_std_err": round(float(errors.std(ddof=1) / math.sqrt(len(rows))), 3),
        "value_result": round(float(np.mean(np.sign(said) == np.sign(exact))), 4),
    }
    if perfect_play(rows):
        report["game_sides_kept"] = game_sides(rows, kept)
    if a.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{a.network} at {a.simulations} simulations on {len(rows)} positions: move optimal "
          f"{100 * report['move']['optimal_rate']:.2f}%, keeps the result "
          f"{100 * report['move_result_kept']['rate']:.2f}%; line value {report['value_mae']:.2f} "
          f"± {report['value_mae_std_err']:.2f} seeds from perfect play's, its sign the result's in "
          f"{100 * report['value_result']:.1f}%")


if __name__ == "__main__":
    main()
