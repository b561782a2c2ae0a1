"""Every released network's `hard`-level search on its own rule set's judge set with the search's
margin weight W (utility ``(1 - W) * value + W * margin``) against the checkpoint's own, paired:
solver-optimal moves, and moves that change the position's game-theoretic result (distinct
positions; the sets hold a few positions twice).

    python experiments/kalah64-hard-floor/presets_margin.py [--networks PATH ...] [--weight W]
        [--simulations S] [--json]
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
from score import sign, sign_test  # noqa: E402

RELEASED = ["kalah64", "kalah64-pie", "norwegian", "children", "swedish", "danish"]


def judged(js, positions, net, simulations: int, **search) -> tuple[dict, set, set]:
    """(the judge's report, the positions missed, the positions whose result the move changes);
    a position the set holds twice counts once in the sets."""
    act = kalaha.search(positions, net, simulations=simulations, temperature=0.0,
                        endgame_db=True, **search)["action"].astype(np.int64)
    report = json.loads(js.score(act))
    missed, changed = set(), set()
    for m in json.loads(js.misses(act)):
        missed.add(m["position"])
        if sign(m["chosen"][1]) != sign(m["value"]):
            changed.add(m["position"])
    return report, missed, changed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = HERE.parent.parent / "checkpoints"
    ap.add_argument("--networks", nargs="*", default=[str(root / n) for n in RELEASED])
    ap.add_argument("--weight", type=float, default=0.9)
    ap.add_argument("--simulations", type=int, default=64)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if not 0.0 <= a.weight <= 1.0:
        ap.error(f"--weight is 0 to 1, not {a.weight}")
    out = []
    for path in a.networks:
        try:
            net = kalaha.Network.load(path)
            js = kalaha.JudgeSet.load(net.rules)
        except (OSError, ValueError) as e:
            ap.error(f"{path}: {e}")
        positions = js.positions()
        base, base_missed, base_changed = judged(js, positions, net, a.simulations)
        this, missed, changed = judged(js, positions, net, a.simulations, margin_weight=a.weight)
        x, y = len(base_missed - missed), len(missed - base_missed)
        u, v = len(base_changed - changed), len(changed - base_changed)
        out.append({"network": path, "positions": len(positions),
                    "checkpoint": {"optimal_rate": base["optimal_rate"],
                                   "result_changes": len(base_changed)},
                    "weight": {"margin_weight": a.weight, "optimal_rate": this["optimal_rate"],
                               "result_changes": len(changed)},
                    "only_weight_optimal": x, "only_checkpoint_optimal": y,
                    "p_optimal": round(sign_test(x, y), 6),
                    "only_weight_keeps": u, "only_checkpoint_keeps": v,
                    "p_keeps": round(sign_test(u, v), 6)})
    if a.json:
        print(json.dumps(out, indent=1))
        return
    for r in out:
        print(f"{Path(r['network']).name}: optimal {100 * r['checkpoint']['optimal_rate']:.2f}% -> "
              f"{100 * r['weight']['optimal_rate']:.2f}% ({r['only_weight_optimal']}/"
              f"{r['only_checkpoint_optimal']}), result changes {r['checkpoint']['result_changes']}"
              f" -> {r['weight']['result_changes']} ({r['only_weight_keeps']}/"
              f"{r['only_checkpoint_keeps']}, p = {r['p_keeps']:.2g})")


if __name__ == "__main__":
    main()
