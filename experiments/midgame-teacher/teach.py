"""Kalah(6,4) middle-game positions labelled by a deep search of a network: a teacher outside the
endgame database that is cheap enough to give hundreds of thousands of positions, where the exact
solver gives a few thousand an hour (experiments/midgame-labels). Resumable; appends JSON lines.

    python experiments/midgame-teacher/teach.py [--positions N] [--simulations S] [--network PATH]
        [--seed K] [--out FILE] [--chunk C]

Positions are drawn exactly as ``midgame-labels/label.py`` draws them (the judge set's mixed and
``minimax:4`` sources, outside the 18-seed database, two legal moves at least), from ``--seed``
(default 2, so none is drawn from the exact labels' seed 1; a position that also occurs in the
exact labels file is left out, so that file stays a held-out test). Each is searched greedily
(temperature 0, the database at the leaves, the checkpoint's search settings) with
``--simulations`` simulations. A line has the labels file's format (``selfplay.label_file`` reads
it): ``value`` is the searched move's rounded Q in seeds, and every other legal move's value is its
own rounded Q, at most ``value - 1`` so that the searched move is the one optimal move. The
default file is in the solver cache (``$KALAHA_CACHE`` or ``~/.cache/kalaha``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

import kalaha

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "midgame-labels"))
from label import board_seeds, draw, whole_lines  # noqa: E402
from score import LABELS, load  # noqa: E402


def labels(positions, net, simulations: int, seed: int) -> list[tuple[int, dict[str, int]]]:
    """(value, {pit: value}) of each position from one batched search."""
    r = kalaha.search(positions, net, simulations=simulations, temperature=0.0, seed=seed,
                      endgame_db=True)
    total = positions[0].rules.total_seeds
    out = []
    for p, action, q in zip(positions, r["action"], r["q"]):
        mask = p.action_mask()
        value = int(round(float(q[action]) * total))
        moves = {}
        for a in np.flatnonzero(mask):
            v = value if a == action else min(int(round(float(q[a]) * total)), value - 1)
            moves[str(int(a) + 1)] = v
        out.append((value, moves))
    return out


def main() -> None:
    cache = Path(os.environ.get("KALAHA_CACHE") or Path.home() / ".cache" / "kalaha")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--positions", type=int, default=200_000)
    ap.add_argument("--simulations", type=int, default=512)
    ap.add_argument("--network", default="checkpoints/kalah64")
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=4096)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--exclude", type=Path, nargs="*", default=LABELS)
    a = ap.parse_args()
    if a.seed == 1:
        ap.error("seed 1 draws the exact labels' positions: use another seed")
    if a.out is None:
        a.out = cache / f"midgame-teacher-6x4-seed{a.seed}-s{a.simulations}.jsonl"
    held = {r["position"] for r in load(a.exclude)}
    rules = kalaha.Rules()
    net = kalaha.Network.load(a.network)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    good = whole_lines(a.out)
    done, next_i = len(good), (good[-1]["i"] + 1 if good else 0)
    start, i, left_out = time.time(), next_i, 0
    with a.out.open("a") as f:
        while done < a.positions:
            batch = []
            while len(batch) < min(a.chunk, a.positions - done):
                d = draw(i, a.seed, rules, ["mixed", "minimax"], None)
                if d is not None:
                    if str(d[0]) in held:
                        left_out += 1
                    else:
                        batch.append((i, *d))
                i += 1
            positions = [b[1] for b in batch]
            for (j, pos, source, ply), (value, moves) in zip(
                    batch, labels(positions, net, a.simulations, a.seed)):
                f.write(json.dumps({"i": j, "position": str(pos), "source": source, "ply": ply,
                                    "board_seeds": board_seeds(pos), "value": value,
                                    "moves": moves}) + "\n")
            f.flush()
            done += len(batch)
            print(f"{done}/{a.positions} positions, {time.time() - start:.0f} s", file=sys.stderr,
                  flush=True)
    print(json.dumps({"file": str(a.out), "positions": done, "next_index": i,
                      "left_out_as_exact": left_out, "seconds": round(time.time() - start, 1)}))


if __name__ == "__main__":
    main()
