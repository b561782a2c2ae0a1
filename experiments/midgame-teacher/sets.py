"""How good a set-valued teacher would be: the teacher's search run on the exactly labelled
middle-game positions, and the set of moves it would call optimal at each tolerance checked
against perfect play. The question is whether widening a teacher line from its one searched move
to every move within a seed or two of it (the training loss is already set-valued) gives targets
as clean as the single move.

    python experiments/midgame-teacher/sets.py [--labels FILE ...] [--network PATH]
        [--simulations S] [--within D ...] [--json]

``searched`` is the searched move alone (what a teach.py line marks optimal). For each tolerance D
(in seeds) the set is the searched move and every legal move whose Q is at
least the searched move's Q minus D; ``clip1`` is the set a teach.py line gives when every move
valued at least ``value - 1`` counts as optimal (teach.py writes each other move's rounded Q, at
most ``value - 1``, so a move tied with the searched one cannot be told from one a seed worse).
Reported: the mean set size, the share of positions whose set holds only optimal moves, holds an
optimal move at all, and the share of the sets' moves that are optimal.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

import kalaha

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "midgame-labels"))
from score import LABELS, load  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--labels", type=Path, nargs="*", default=LABELS)
    ap.add_argument("--network", default="experiments/kalah64-v3/network",
                    help="the teacher (default: kalah64-teacher-scale's)")
    ap.add_argument("--simulations", type=int, default=512)
    ap.add_argument("--within", nargs="*", default=["searched", "0", "0.5", "1", "clip1", "2", "3"])
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    for d in a.within:
        if d not in ("clip1", "searched"):
            try:
                if float(d) < 0:
                    raise ValueError
            except ValueError:
                ap.error(f"--within takes seeds (0 or more), searched or clip1, not '{d}'")
    rows = load(a.labels)
    if not rows:
        ap.error("no labelled positions")
    net = kalaha.Network.load(a.network)
    positions = [kalaha.Position(r["position"]) for r in rows]
    optimal = [{int(k) - 1 for k, v in r["moves"].items() if v == r["value"]} for r in rows]
    r = kalaha.search(positions, net, simulations=a.simulations, temperature=0.0, seed=0,
                      endgame_db=True)
    total = positions[0].rules.total_seeds
    report = {"network": a.network, "simulations": a.simulations, "positions": len(rows),
              "exact_mean_optimal_moves": round(float(np.mean([len(o) for o in optimal])), 4),
              "sets": {}}
    for d in a.within:
        size = only = some = good = 0
        for p, act, q, opt in zip(positions, r["action"], r["q"], optimal):
            legal = np.flatnonzero(p.action_mask())
            # An unvisited move has no Q (NaN): it is never in a set but the searched move's.
            seeds = {int(b): float(q[b]) * total for b in legal if np.isfinite(q[b])}
            best = seeds[int(act)]
            if d == "searched":
                s = {int(act)}
            elif d == "clip1":
                v = round(best)
                s = {b for b in seeds if b == act or round(seeds[b]) >= v - 1}
            else:
                s = {b for b in seeds if b == act or seeds[b] >= best - float(d)}
            size += len(s)
            only += s <= opt
            some += bool(s & opt)
            good += len(s & opt)
        n = len(rows)
        report["sets"][d] = {"mean_size": round(size / n, 4), "only_optimal": round(only / n, 4),
                             "some_optimal": round(some / n, 4),
                             "moves_optimal": round(good / size, 4)}
    if a.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{len(rows)} exactly labelled positions, {a.network} at {a.simulations} simulations; "
          f"perfect play has {report['exact_mean_optimal_moves']} optimal moves on average")
    for d, s in report["sets"].items():
        print(f"  within {d}: {s['mean_size']:.2f} moves, "
              f"only optimal {100 * s['only_optimal']:.1f}%, "
              f"an optimal one {100 * s['some_optimal']:.1f}%, "
              f"moves optimal {100 * s['moves_optimal']:.1f}%")


if __name__ == "__main__":
    main()
