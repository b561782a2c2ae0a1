"""Exact labels for Kalah(6,4) positions outside the endgame database: the start of the learning
recipe's "better targets outside the database". Resumable; appends one JSON line a position.

    python -m kalaha.labels [--out FILE] [--minutes M] [--time-limit S] [--seed K]
        [--source judge|selfplay] [--network PATH]

Positions are drawn as the judge set's non-endgame sources draw them: games of random and greedy
moves mixed (a greedy share drawn per game) or of ``minimax:4`` after 2-6 random moves, stopped at
a ply drawn from 4-39 once the board holds more than 18 seeds (so outside the 18-seed database),
with two legal moves at least. ``--source selfplay`` draws instead where self-play looks (the
network's own 64-simulation games after 0-8 random moves), into its own file. Each is solved
exactly, every move (``kalaha.solve``; positions not proved within ``--time-limit`` seconds are
counted and skipped). A line: ``{"i", "position", "source", "ply", "board_seeds", "value",
"moves": {pit: value}, "seconds"}``. The default file (named by the source and the seed) is in
the solver cache (``$KALAHA_CACHE`` or ``~/.cache/kalaha``) so that it outlives a checkout; a run
continues from the number of lines already there (position ``i`` is drawn from ``seed * 1e9 + i``,
so the set does not depend on where a run stopped).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path

import kalaha

DB_SEEDS = 18


def board_seeds(p: kalaha.Position) -> int:
    return sum(p.pits("s")) + sum(p.pits("n"))


def draw(i: int, seed: int, rules: kalaha.Rules, sources: list[str], network: str):
    """Position ``i``: (position, source, ply), or None when the game ended or left one move."""
    rng = random.Random(seed * 1_000_000_000 + i)
    source = rng.choice(sources)
    target = rng.randrange(4, 40)
    pos = kalaha.Position.start(rules)
    ply = 0
    if source == "selfplay":
        # Where self-play looks: 0-8 random moves (selfplay.opening_random_moves), then the
        # network's 64-simulation search (the hard level) for both seats.
        random_moves = rng.randrange(0, 9)
        bot = kalaha.Bot(f"policy:{network}:64", seed=rng.randrange(2**32))
        pick = lambda p: rng.choice(p.legal_moves()) if ply < random_moves else bot.act(p)  # noqa: E731
    elif source == "mixed":
        share = rng.random()
        greedy = kalaha.Bot("greedy", seed=rng.randrange(2**32))
        pick = lambda p: greedy.act(p) if rng.random() < share else rng.choice(p.legal_moves())  # noqa: E731
    else:
        random_moves = rng.randrange(2, 7)
        bot = kalaha.Bot("minimax:4", seed=rng.randrange(2**32))
        pick = lambda p: rng.choice(p.legal_moves()) if ply < random_moves else bot.act(p)  # noqa: E731
    while not pos.is_over and ply < target:
        pos = pos.play(pick(pos))
        ply += 1
    if pos.is_over or len(pos.legal_moves()) < 2 or board_seeds(pos) <= DB_SEEDS:
        return None
    return pos, source, ply


def whole_lines(path: Path, repair: bool = True) -> list[dict]:
    """The lines of a labels file being resumed, parsed. A line cut short by a stop (and any after
    it) is dropped from the file, through a temporary file renamed over it, to be written again
    (without ``repair`` only from what is returned: a file another process still writes is left
    alone)."""
    if not path.exists():
        return []
    with path.open() as f:
        lines = [line for line in f if line.strip()]
    good = []
    for line in lines:
        try:
            good.append(json.loads(line))
        except json.JSONDecodeError:
            break
    if repair and len(good) != len(lines):
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text("".join(json.dumps(g) + "\n" for g in good))
        tmp.replace(path)
    return good


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cache = Path(os.environ.get("KALAHA_CACHE") or Path.home() / ".cache" / "kalaha")
    ap.add_argument("--out", type=Path, default=None,
                    help="default: midgame-labels-6x4[-selfplay]-seed<K>.jsonl in the solver cache")
    ap.add_argument("--minutes", type=float, default=60.0)
    ap.add_argument("--time-limit", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--source", choices=["judge", "selfplay"], default="judge",
                    help="judge: the judge set's mixed and minimax games (the default file); "
                    "selfplay: games of --network's own search after 0-8 random moves")
    ap.add_argument("--network", default="checkpoints/kalah64",
                    help="the network whose games --source selfplay draws from")
    a = ap.parse_args()
    sources = ["mixed", "minimax"] if a.source == "judge" else ["selfplay"]
    if a.out is None:
        tag = "-selfplay" if a.source == "selfplay" else ""
        a.out = cache / f"midgame-labels-6x4{tag}-seed{a.seed}.jsonl"
    rules = kalaha.Rules()
    a.out.parent.mkdir(parents=True, exist_ok=True)
    good = whole_lines(a.out)
    done = good[-1]["i"] + 1 if good else 0
    start, labelled, unsolved = time.time(), 0, 0
    i = done
    with a.out.open("a") as f:
        while time.time() - start < 60 * a.minutes:
            d = draw(i, a.seed, rules, sources, a.network)
            if d is not None:
                pos, source, ply = d
                t = time.time()
                try:
                    value, moves = kalaha.solve(pos, memory_mb=1500, time_limit=a.time_limit)
                except TimeoutError:
                    unsolved += 1
                else:
                    f.write(json.dumps({
                        "i": i, "position": str(pos), "source": source, "ply": ply,
                        "board_seeds": board_seeds(pos), "value": value,
                        "moves": {str(k): v for k, v in moves.items()}, "seconds": round(time.time() - t, 3),
                    }) + "\n")
                    f.flush()
                    labelled += 1
            i += 1
    print(json.dumps({"file": str(a.out), "labelled_now": labelled, "unsolved_now": unsolved,
                      "next_index": i, "minutes": round((time.time() - start) / 60, 1)}))


if __name__ == "__main__":
    main()
