"""Exactly labelled Kalah(6,4) middle-game positions where the `hard` level's games against
`solver` go: perfect play on both sides after an opening of random moves, every position of the
line outside the endgame database solved, every move. The other labels files draw random/greedy
and ``minimax:4`` games; this one draws the lines a strong game follows. Resumable; appends one
JSON line a position.

    python experiments/midgame-labels/games.py [--games N] [--opening-moves K] [--seed S] [--out FILE]

Game ``g`` plays ``--opening-moves`` random moves (default 6, as ``kalaha eval --opening-moves 6``
against ``solver``), then each side plays a move chosen at random among the optimal ones, both
drawn from ``seed * 1e9 + g``. Every position of the line with more than 18 seeds on the board and
two legal moves at least is written in label.py's format (``source`` "solver-games", ``i`` =
``g * 1000 + ply``). The solver keeps its table between positions of a line, so the positions
after a line's first come cheaply. The default file is in the solver cache.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

import kalaha
from label import DB_SEEDS, board_seeds, whole_lines


def line(g: int, seed: int, opening: int, rules: kalaha.Rules) -> list[dict]:
    """The labelled positions of game ``g``."""
    rng = random.Random(seed * 1_000_000_000 + g)
    pos, ply, out = kalaha.Position.start(rules), 0, []
    while not pos.is_over:
        if ply < opening:
            move = rng.choice(pos.legal_moves())
        else:
            t = time.time()
            value, moves = kalaha.solve(pos)
            if board_seeds(pos) > DB_SEEDS and len(moves) >= 2:
                out.append({"i": g * 1000 + ply, "position": str(pos), "source": "solver-games",
                            "ply": ply, "board_seeds": board_seeds(pos), "value": value,
                            "moves": {str(k): v for k, v in moves.items()},
                            "seconds": round(time.time() - t, 3)})
            move = rng.choice(sorted(k for k, v in moves.items() if v == value))
        pos = pos.play(move)
        ply += 1
    return out


def main() -> None:
    cache = Path(os.environ.get("KALAHA_CACHE") or Path.home() / ".cache" / "kalaha")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--opening-moves", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    if a.games < 1 or a.opening_moves < 0:
        ap.error("--games must be 1 or more and --opening-moves 0 or more")
    if a.out is None:
        a.out = cache / f"midgame-games-6x4-open{a.opening_moves}-seed{a.seed}.jsonl"
    rules = kalaha.Rules()
    a.out.parent.mkdir(parents=True, exist_ok=True)
    good = whole_lines(a.out)
    # A stop may have cut the last game's write short: play that game again (the same lines, the
    # game being drawn from its own seed) after taking its lines out through a temporary file.
    start_game = good[-1]["i"] // 1000 if good else 0
    if good:
        good = [r for r in good if r["i"] // 1000 < start_game]
        tmp = a.out.with_name(a.out.name + ".tmp")
        tmp.write_text("".join(json.dumps(r) + "\n" for r in good))
        tmp.replace(a.out)
    positions, start = len(good), time.time()
    with a.out.open("a") as f:
        for g in range(start_game, a.games):
            rows = line(g, a.seed, a.opening_moves, rules)
            f.write("".join(json.dumps(r) + "\n" for r in rows))
            f.flush()
            positions += len(rows)
            print(f"game {g + 1}/{a.games}: {positions} positions, {time.time() - start:.0f} s",
                  file=sys.stderr, flush=True)
    print(json.dumps({"file": str(a.out), "games": a.games, "positions": positions,
                      "seconds": round(time.time() - start, 1)}))


if __name__ == "__main__":
    main()
