"""The committed Kalah(6,4) network scored on the exactly labelled positions outside the endgame
database (label.py's file): alone, and searching as the ``hard`` level does, with standard errors,
by source and by seeds on the board. A yardstick outside the database several times the judge
set's 552 positions there. Beside the optimal-move rate, ``result_kept`` is the share of moves that
keep the position's game-theoretic result (win, draw or loss for the player to move): the rate
that decides the ``hard`` level's games against ``solver``. On games.py's perfect-play lines
(source ``solver-games``) ``game_sides_kept`` is the share of (game, side) pairs in which every
move keeps the result: what the ``hard`` level would reach against ``solver`` from those
openings if its first result-changing move is what decides a game. ``search_result_changes``
counts the search's result-changing moves by (perfect play's value, the played move's value).

    python experiments/midgame-labels/score.py [--labels FILE ...] [--network PATH] [--simulations N]
        [--split all|heldout|train] [--holdout K] [--against PATH] [--margin-weight W] [--json]

``--split heldout`` scores only the lines a training run with ``selfplay.label_file_holdout = K``
never saw (index a multiple of K, default 5), ``--split train`` the others. ``--against`` scores
a second network on the same positions and reports the paired comparison (positions only one of
the two gets right, two-sided sign test).
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

# The bands of seeds on the board that every report here splits by (outside the 18-seed database).
BANDS = ((19, 24), (25, 30), (31, 36), (37, 48))

HERE = Path(__file__).resolve().parent
# The exact middle-game labels: the committed file, then label.py's file in the solver cache.
LABELS = [HERE.parents[1] / "checkpoints" / "labels" / "labels-6x4-seed1.jsonl",
          Path(os.environ.get("KALAHA_CACHE") or Path.home() / ".cache" / "kalaha")
          / "midgame-labels-6x4-seed1.jsonl"]


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


def rate(hits: np.ndarray, key: str = "optimal_rate") -> dict:
    n = len(hits)
    p = float(hits.mean()) if n else 0.0
    return {key: round(p, 4), "std_err": round(math.sqrt(p * (1 - p) / max(n, 1)), 4),
            "positions": n}


def sign_test(a: int, b: int) -> float:
    """Two-sided exact sign test of a positions only one network gets right against b."""
    n, k = a + b, min(a, b)
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def perfect_play(rows: list[dict]) -> bool:
    """Whether every row comes from games.py's perfect-play lines, where game sides are defined."""
    return all(r["source"] == "solver-games" for r in rows)


def sides_kept(rows: list[dict], kept: np.ndarray) -> dict[tuple[int, str], bool]:
    """Whether every move of each (game, side to move) pair of games.py's lines (``i`` = game *
    1000 + ply) keeps the result."""
    sides: dict[tuple[int, str], bool] = {}
    for r, k in zip(rows, kept):
        key = (r["i"] // 1000, r["position"].split()[-1])
        sides[key] = sides.get(key, True) and bool(k)
    return sides


def game_sides(rows: list[dict], kept: np.ndarray) -> dict:
    """Share of games.py's (game, side to move) pairs whose every move keeps the result."""
    sides = sides_kept(rows, kept)
    return {"rate": round(sum(sides.values()) / len(sides), 4), "game_sides": len(sides)}


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def judged(moves, rows: list[dict]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(optimal, result kept, the move's value) of each played move (pit numbers, from 1)."""
    values = [r["moves"][str(int(x))] for x, r in zip(moves, rows)]
    return (np.array([v == r["value"] for v, r in zip(values, rows)]),
            np.array([sign(v) == sign(r["value"]) for v, r in zip(values, rows)]),
            np.array(values))


def score(net, positions, rows, simulations, **search):
    """(optimal, result kept, value of the move played) of the network alone and of its search,
    one per position."""
    mask = np.stack([p.action_mask() for p in positions])
    # Actions are pit numbers minus one for the player to move (no swap under these rules).
    # Positions, not observations: a lookahead network reads what every move does.
    alone = pick(net(list(positions), mask), mask) + 1
    searched = kalaha.search(positions, net, simulations=simulations, temperature=0.0,
                             endgame_db=True, **search)["action"] + 1
    return judged(alone, rows), judged(searched, rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--labels", type=Path, nargs="*", default=LABELS)
    ap.add_argument("--network", default="auto")
    ap.add_argument("--simulations", type=int, default=64)
    ap.add_argument("--split", choices=["all", "heldout", "train"], default="all")
    ap.add_argument("--holdout", type=int, default=5)
    ap.add_argument("--against", default=None)
    ap.add_argument("--margin-weight", type=float, default=None,
                    help="the search's margin weight (default: the checkpoint's)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.holdout < 1:
        ap.error("--holdout must be 1 or more")
    rows = load(a.labels)
    if a.split != "all":
        rows = [r for r in rows if (r["i"] % a.holdout == 0) == (a.split == "heldout")]
    if not rows:
        ap.error("no labelled positions to score")
    net = kalaha.Network.load(a.network)
    positions = [kalaha.Position(r["position"]) for r in rows]
    search = {} if a.margin_weight is None else {"margin_weight": a.margin_weight}
    (hit_alone, kept_alone, _), (hit_search, kept_search, played) = score(
        net, positions, rows, a.simulations, **search)
    report = {"network": a.network, "positions": len(rows), "simulations": a.simulations,
              "margin_weight": a.margin_weight, "split": a.split, "holdout": a.holdout,
              "alone": rate(hit_alone), "search": rate(hit_search),
              "alone_result_kept": rate(kept_alone, "rate"),
              "search_result_kept": rate(kept_search, "rate"),
              "by_source": {}, "by_seeds": {}}
    if a.against:
        (other_alone, other_kept_alone, _), (other_search, other_kept_search, _) = score(
            kalaha.Network.load(a.against), positions, rows, a.simulations, **search)
        report["against"] = {"network": a.against, "alone": rate(other_alone),
                             "search": rate(other_search),
                             "alone_result_kept": rate(other_kept_alone, "rate"),
                             "search_result_kept": rate(other_kept_search, "rate")}
        for name, mine, theirs in [("alone", hit_alone, other_alone),
                                   ("search", hit_search, other_search),
                                   ("alone_result_kept", kept_alone, other_kept_alone),
                                   ("search_result_kept", kept_search, other_kept_search)]:
            only_new, only_old = int((mine & ~theirs).sum()), int((~mine & theirs).sum())
            report["against"][f"paired_{name}"] = {"only_new": only_new, "only_old": only_old,
                                                   "p": sign_test(only_new, only_old)}
    changes: dict[tuple[int, int], int] = {}
    for r, v, k in zip(rows, played, kept_search):
        if not k:
            changes[(r["value"], int(v))] = changes.get((r["value"], int(v)), 0) + 1
    report["search_result_changes"] = [
        {"value": v, "move": m, "positions": n}
        for (v, m), n in sorted(changes.items(), key=lambda x: (-x[1], x[0]))]
    if perfect_play(rows):
        report["game_sides_kept"] = {"alone": game_sides(rows, kept_alone),
                                     "search": game_sides(rows, kept_search)}
        if a.against:
            report["against"]["game_sides_kept"] = {"alone": game_sides(rows, other_kept_alone),
                                                    "search": game_sides(rows, other_kept_search)}
    for src in sorted({r["source"] for r in rows}):
        idx = np.array([r["source"] == src for r in rows])
        report["by_source"][src] = {"alone": rate(hit_alone[idx]), "search": rate(hit_search[idx])}
    for lo, hi in BANDS:
        idx = np.array([lo <= r["board_seeds"] <= hi for r in rows])
        report["by_seeds"][f"{lo}-{hi}"] = {"alone": rate(hit_alone[idx]),
                                            "search": rate(hit_search[idx]),
                                            "search_result_kept": rate(kept_search[idx], "rate")}
    if a.json:
        print(json.dumps(report, indent=1))
        return
    al, se = report["alone"], report["search"]
    print(f"{len(rows)} exactly labelled positions outside the database ({a.split})")
    print(f"  alone: {100 * al['optimal_rate']:.1f}% ± {100 * al['std_err']:.1f}")
    print(f"  {a.simulations} simulations: {100 * se['optimal_rate']:.1f}% ± {100 * se['std_err']:.1f}")
    for name in ["alone", "search"]:
        k = report[f"{name}_result_kept"]
        print(f"  result kept ({name}): {100 * k['rate']:.2f}% ± {100 * k['std_err']:.2f}")
    if "game_sides_kept" in report:
        g = report["game_sides_kept"]
        print(f"  games (a side of a line) with every move keeping the result: alone "
              f"{100 * g['alone']['rate']:.1f}%, searching {100 * g['search']['rate']:.1f}% of "
              f"{g['search']['game_sides']}")
    for name, part in [*report["by_source"].items(), *report["by_seeds"].items()]:
        print(f"  {name}: alone {100 * part['alone']['optimal_rate']:.1f}%, searching "
              f"{100 * part['search']['optimal_rate']:.1f}% of {part['alone']['positions']}")
    if a.against:
        o = report["against"]
        print(f"  against {a.against}: alone {100 * o['alone']['optimal_rate']:.1f}%, "
              f"searching {100 * o['search']['optimal_rate']:.1f}%")
        for name in ["alone", "search", "alone_result_kept", "search_result_kept"]:
            pr = o[f"paired_{name}"]
            print(f"  paired ({name}): only this network right {pr['only_new']}, only the other "
                  f"{pr['only_old']} (sign test p = {pr['p']:.3g})")


if __name__ == "__main__":
    main()
