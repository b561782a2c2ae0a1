"""Whether the `hard` level's search errs by noise in its network or by a bias every network shares:
the search run with the mean of several networks' outputs (policy logits, value and margin) as its
evaluator, paired position by position with the first network's own search, on an exact labels
file (default: games.py's perfect-play lines).

    python experiments/midgame-labels/ensemble.py --networks A B ... [--labels FILE ...]
        [--simulations S] [--json]

Both searches use the first network's checkpoint settings and the database at the leaves. Reported
for each: the optimal-move rate, the share of moves keeping the game-theoretic result and, on
games.py's lines, the share of game sides whose every move keeps it (score.py's measures).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

import kalaha
from score import HERE, game_sides, judged, load, perfect_play, sign_test


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--networks", nargs="+", required=True)
    ap.add_argument("--labels", type=Path, nargs="*",
                    default=[HERE / "labels-6x4-games-seed1.jsonl"])
    ap.add_argument("--simulations", type=int, default=64)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if len(a.networks) < 2:
        ap.error("an ensemble needs two networks at least")
    rows = load(a.labels)
    if not rows:
        ap.error("no labelled positions")
    try:
        nets = [kalaha.Network.load(n) for n in a.networks]
    except (OSError, ValueError) as e:
        ap.error(f"a network did not load: {e}")
    positions = [kalaha.Position(r["position"]) for r in rows]
    cfg = nets[0].card["config"]["search"]
    settings = {k: cfg[k] for k in ("c_visit", "c_scale", "margin_weight", "considered_actions")
                if k in cfg}

    def mean(obs):
        outs = [n.forward(obs) for n in nets]
        return tuple(np.mean([o[k] for o in outs], axis=0).astype(np.float32)
                     for k in ("logits", "value", "margin"))

    def hits(evaluator) -> tuple[np.ndarray, np.ndarray]:
        act = kalaha.search(positions, evaluator, simulations=a.simulations, temperature=0.0,
                            endgame_db=True, **settings)["action"] + 1
        return judged(act, rows)[:2]

    first, ens = hits(nets[0]), hits(mean)
    games = perfect_play(rows)
    report = {"networks": a.networks, "simulations": a.simulations, "positions": len(rows),
              "settings": settings}
    for name, (opt, kept) in [("first", first), ("ensemble", ens)]:
        report[name] = {"optimal": round(float(opt.mean()), 4),
                        "result_kept": round(float(kept.mean()), 4)}
        if games:
            report[name]["game_sides_kept"] = game_sides(rows, kept)
    for i, name in enumerate(["optimal", "result_kept"]):
        x, y = int((ens[i] & ~first[i]).sum()), int((~ens[i] & first[i]).sum())
        report[f"paired_{name}"] = {"only_ensemble": x, "only_first": y, "p": sign_test(x, y)}
    if a.json:
        print(json.dumps(report, indent=1))
        return
    for name in ["first", "ensemble"]:
        r = report[name]
        extra = (f", game sides kept {100 * r['game_sides_kept']['rate']:.1f}%"
                 if games else "")
        print(f"{name}: optimal {100 * r['optimal']:.2f}%, result kept "
              f"{100 * r['result_kept']:.2f}%{extra}")
    for name in ["optimal", "result_kept"]:
        p = report[f"paired_{name}"]
        print(f"paired ({name}): only the ensemble {p['only_ensemble']}, only the first "
              f"{p['only_first']} (p = {p['p']:.3g})")


if __name__ == "__main__":
    main()
