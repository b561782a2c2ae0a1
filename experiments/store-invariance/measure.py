"""Does the network's own move depend on how the seeds already stored are split between the two
stores? Under every rule set of the guides the margin-optimal moves do not (a store is never sown
from, and the margin from here on is what the pits make), so a network that learned the game would
pick the same move whatever the split. This scores the network alone on the exact middle-game
labels with the stores as they are and re-split K times (uniformly over every split of the same
stored total), counts the positions whose move changes, and scores the policy averaged over the
stores as they are and every split.

    python experiments/store-invariance/measure.py [--network PATH] [--splits K] [--seed S]
        [--positions N] [--labels FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import random
from pathlib import Path

import numpy as np

import kalaha
from kalaha.research import pick

HERE = Path(__file__).resolve().parent
LABELS = HERE.parents[1] / "checkpoints" / "labels" / "labels-6x4-seed1.jsonl"


def resplit(notation: str, mine: int) -> str:
    """The position with the player to move's store set to `mine` and the other store holding
    the rest of both stores' seeds."""
    board, side = notation.split(" ", 1)
    south, north = (list(map(int, half.split(","))) for half in board.split("/"))
    total = south[-1] + north[-1]
    me, other = (south, north) if side.strip().startswith("s") else (north, south)
    me[-1], other[-1] = mine, total - mine
    return f"{','.join(map(str, south))}/{','.join(map(str, north))} {side}"


def stored(notation: str) -> tuple[int, int]:
    """(the player to move's store, both stores' total)."""
    board, side = notation.split(" ", 1)
    south, north = (list(map(int, half.split(","))) for half in board.split("/"))
    mine = south[-1] if side.strip().startswith("s") else north[-1]
    return mine, south[-1] + north[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--labels", type=Path, default=LABELS)
    ap.add_argument("--network", default="checkpoints/kalah64")
    ap.add_argument("--splits", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--positions", type=int, default=0, help="the first N labels (0: all)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = [json.loads(line) for line in a.labels.open() if line.strip()]
    if a.positions:
        rows = rows[: a.positions]
    rng = random.Random(a.seed)
    net = kalaha.Network.load(a.network)
    optimal = [{int(k) for k, v in r["moves"].items() if v == r["value"]} for r in rows]

    def hits(notations: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        positions = [kalaha.Position(n) for n in notations]
        mask = np.stack([p.action_mask() for p in positions])
        logits = np.where(mask, net(positions, mask).astype(np.float64), -np.inf)
        moves = pick(logits, mask) + 1
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        return moves, np.array([int(x) in o for x, o in zip(moves, optimal)]), probs

    base_moves, base_hits, mean_policy = hits([r["position"] for r in rows])
    changed = np.zeros(len(rows), dtype=bool)
    split_rates, any_hit, all_hit = [], base_hits.copy(), base_hits.copy()
    for _ in range(a.splits):
        notes = []
        for r in rows:
            _, total = stored(r["position"])
            notes.append(resplit(r["position"], rng.randint(0, total)))
        moves, h, probs = hits(notes)
        mean_policy = mean_policy + probs
        changed |= moves != base_moves
        split_rates.append(float(h.mean()))
        any_hit |= h
        all_hit &= h
    averaged = pick(np.log(np.maximum(mean_policy, 1e-30)), mean_policy > 0) + 1
    averaged_hits = np.array([int(x) in o for x, o in zip(averaged, optimal)])
    n = len(rows)
    se = lambda p: math.sqrt(p * (1 - p) / n)  # noqa: E731
    report = {
        "network": a.network, "positions": n, "splits": a.splits, "seed": a.seed,
        "as_stored": round(float(base_hits.mean()), 4), "as_stored_std_err": round(se(base_hits.mean()), 4),
        "resplit_mean": round(float(np.mean(split_rates)), 4),
        "resplit_rates": [round(x, 4) for x in split_rates],
        "policy_averaged_over_splits": round(float(averaged_hits.mean()), 4),
        "move_changes": round(float(changed.mean()), 4),
        "right_under_every_split": round(float(all_hit.mean()), 4),
        "right_under_some_split": round(float(any_hit.mean()), 4),
    }
    if a.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{n} exact middle-game labels, network {a.network}, {a.splits} re-splits each")
    print(f"  stores as they are: {100 * report['as_stored']:.2f}% optimal")
    print(f"  stores re-split: {100 * report['resplit_mean']:.2f}% (each split: "
          + ", ".join(f"{100 * x:.2f}" for x in split_rates) + ")")
    print(f"  the policy averaged over the stores as they are and every split: "
          f"{100 * report['policy_averaged_over_splits']:.2f}%")
    print(f"  positions whose move changes under some split: {100 * report['move_changes']:.2f}%")
    print(f"  right under every split: {100 * report['right_under_every_split']:.2f}%, "
          f"under some: {100 * report['right_under_some_split']:.2f}%")


if __name__ == "__main__":
    main()
