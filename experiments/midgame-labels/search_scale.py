"""The play-time search's settings tried on the exactly labelled positions outside the endgame
database: each setting against the checkpoint's own (``hard``: 64 simulations, greedy, every legal
move considered, the database at the leaves), paired position by position, overall and by seeds
on the board.

    python experiments/midgame-labels/search_scale.py [--labels FILE ...] [--network PATH]
        [--simulations N] [--c-scale X ...] [--c-visit X ...] [--considered K ...]
        [--margin-weight W ...] [--json]

Each value given is one setting (the others left at the checkpoint's); the Q transform of the
Gumbel search is ``(c_visit + max visits) * c_scale * q``, so ``c_scale`` and ``c_visit`` both
say how much the root's Q values outweigh the network's prior; ``margin_weight`` W makes the
search's utility ``(1 - W) * value + W * margin``. Each setting is also paired on the moves that
keep the game-theoretic result (``result_kept``) and, on games.py's lines, on the game sides whose
every move keeps it (``game_sides_kept``; score.py's measures).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

import kalaha
from score import BANDS, HERE, game_sides, judged, load, perfect_play, rate, sides_kept, sign_test


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--labels", type=Path, nargs="*", default=[HERE.parents[1] / "checkpoints" / "labels" / "labels-6x4-seed1.jsonl"])
    ap.add_argument("--network", default="checkpoints/kalah64")
    ap.add_argument("--simulations", type=int, default=64)
    ap.add_argument("--c-scale", type=float, nargs="*", default=[1.0, 3.0, 4.0, 6.0])
    ap.add_argument("--c-visit", type=float, nargs="*", default=[25.0, 100.0])
    ap.add_argument("--considered", type=int, nargs="*", default=[4])
    ap.add_argument("--margin-weight", type=float, nargs="*", default=[])
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = load(a.labels)
    if not rows:
        ap.error("no labelled positions")
    net = kalaha.Network.load(a.network)
    positions = [kalaha.Position(r["position"]) for r in rows]
    seeds = np.array([r["board_seeds"] for r in rows])
    games = perfect_play(rows)

    def hits(**kw) -> tuple[np.ndarray, np.ndarray]:
        act = kalaha.search(positions, net, simulations=a.simulations, temperature=0.0,
                            endgame_db=True, **kw)["action"] + 1
        return judged(act, rows)[:2]

    base, base_kept = hits()
    settings = ([{"c_scale": x} for x in a.c_scale] + [{"c_visit": x} for x in a.c_visit]
                + [{"considered_actions": k} for k in a.considered]
                + [{"margin_weight": w} for w in a.margin_weight])
    report = {"network": a.network, "simulations": a.simulations, "positions": len(rows),
              "checkpoint": rate(base), "checkpoint_result_kept": rate(base_kept, "rate"),
              "settings": []}
    if games:
        report["checkpoint_game_sides_kept"] = game_sides(rows, base_kept)
    for kw in settings:
        h, kept = hits(**kw)
        x, y = int((kept & ~base_kept).sum()), int((~kept & base_kept).sum())
        row = {"setting": kw, **rate(h),
               "result_kept": {**rate(kept, "rate"), "only_this": x, "only_checkpoint": y,
                               "p": round(sign_test(x, y), 6)},
               "by_seeds": []}
        if games:
            mine, theirs = sides_kept(rows, kept), sides_kept(rows, base_kept)
            x = sum(mine[k] and not theirs[k] for k in mine)
            y = sum(theirs[k] and not mine[k] for k in mine)
            row["game_sides_kept"] = {**game_sides(rows, kept), "only_this": x,
                                      "only_checkpoint": y, "p": round(sign_test(x, y), 6)}
        for lo, hi in [(0, 99), *BANDS]:
            m = (seeds >= lo) & (seeds <= hi)
            x, y = int((h & ~base & m).sum()), int((~h & base & m).sum())
            entry = {"seeds": f"{lo}-{hi}" if hi < 99 else "all", "positions": int(m.sum()),
                     "checkpoint": round(float(base[m].mean()), 4),
                     "this": round(float(h[m].mean()), 4), "only_this": x, "only_checkpoint": y,
                     "p": round(sign_test(x, y), 6)}
            row["by_seeds"].append(entry)
        report["settings"].append(row)
    if a.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{len(rows)} positions, {a.network}, {a.simulations} simulations; "
          f"the checkpoint's own settings: {100 * base.mean():.2f}%")
    for row in report["settings"]:
        parts = [f"{e['seeds']}: {100 * e['this']:.2f} vs {100 * e['checkpoint']:.2f} "
                 f"({e['only_this']}/{e['only_checkpoint']}, p={e['p']:.2g})" for e in row["by_seeds"]]
        k = row["result_kept"]
        g = row.get("game_sides_kept")
        extra = (f"; game sides kept {100 * g['rate']:.1f}% "
                 f"({g['only_this']}/{g['only_checkpoint']})" if g else "")
        print(row["setting"], " | ".join(parts),
              f"| result kept {100 * k['rate']:.2f}% ({k['only_this']}/{k['only_checkpoint']}, "
              f"p={k['p']:.2g}){extra}")


if __name__ == "__main__":
    main()
