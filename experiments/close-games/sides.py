"""Search settings paired on the perfect-play lines: for each setting, the share of game sides
(a game of games.py's 562 perfect-play lines and a seat: 1,124) whose every move keeps the
result, the share of moves keeping it and the optimal-move rate; each paired with the first
setting (the ``hard`` level's search) by an exact sign test over the sides (and moves) only one
of the two keeps.

    python experiments/close-games/sides.py [--network PATH] [--simulations N]
        [--setting NAME:KEY=VALUE,... ...] [--json]

A setting is a name and the keywords of ``kalaha.search`` it changes, e.g.
``mm0.5:minimax_weight=0.5``, or a name and a whole bot, ``NAME:bot=SPEC`` (e.g.
``ab2000:bot=policy:checkpoints/kalah64:alphabeta=2000``: the bot's move at each position,
``--threads`` bots at once); ``hard`` (no keyword) is always first.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

import kalaha

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "midgame-labels"))
from score import judged, load, sides_kept, sign_test  # noqa: E402

LINES = HERE.parent / "midgame-labels" / "labels-6x4-games-seed1.jsonl"


def setting(text: str) -> tuple[str, dict]:
    name, _, rest = text.partition(":")
    if rest.startswith("bot="):
        return name, {"bot": rest[len("bot="):]}
    kw = {}
    for item in filter(None, rest.split(",")):
        k, _, v = item.partition("=")
        kw[k] = {"true": True, "false": False}.get(v.lower(), None)
        if kw[k] is None:
            kw[k] = float(v) if "." in v or "e" in v else int(v)
    return name, kw


def bot_actions(spec: str, positions: list, threads: int) -> np.ndarray:
    """Each position's action by the bot ``spec`` (one bot a thread, positions in order)."""
    chunks = [list(range(i, len(positions), threads)) for i in range(threads)]
    acts = np.zeros(len(positions), dtype=np.int64)

    def run(chunk: list) -> None:
        bot = kalaha.Bot(spec, seed=0)
        for i in chunk:
            acts[i] = bot.act_action(positions[i])

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(run, chunks))
    return acts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--network", default="auto")
    ap.add_argument("--simulations", type=int, default=64)
    ap.add_argument("--setting", nargs="*", default=[])
    ap.add_argument("--threads", type=int, default=2, help="bots at once for bot= settings")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = [r for r in load([LINES]) if r["source"] == "solver-games"]
    positions = [kalaha.Position(r["position"]) for r in rows]
    net = kalaha.Network.load(a.network)
    settings = [("hard", {})] + [setting(s) for s in a.setting]
    out = {"network": a.network, "network_id": getattr(net, "id", None),
           "simulations": a.simulations, "positions": len(rows), "settings": []}
    base = None
    for name, kw in settings:
        t = time.time()
        if "bot" in kw:
            acts = bot_actions(kw["bot"], positions, a.threads) + 1
        else:
            acts = kalaha.search(positions, net, simulations=a.simulations, temperature=0.0,
                                 endgame_db=True, **kw)["action"] + 1
        seconds = time.time() - t
        optimal, kept, _ = judged(acts, rows)
        sides = sides_kept(rows, kept)
        keys = sorted(sides)
        sv = np.array([sides[k] for k in keys])
        entry = {"name": name, "keywords": kw, "seconds": round(seconds, 1),
                 "game_sides": len(keys), "sides_kept": int(sv.sum()),
                 "sides_rate": round(float(sv.mean()), 4),
                 "moves_kept": round(float(kept.mean()), 5),
                 "optimal": round(float(optimal.mean()), 4)}
        if base is None:
            base = (sv, kept)
        else:
            bs, bk = base
            entry["paired_sides"] = {"only_this": int((sv & ~bs).sum()),
                                     "only_hard": int((~sv & bs).sum())}
            entry["paired_sides"]["p"] = sign_test(*entry["paired_sides"].values())
            entry["paired_moves"] = {"only_this": int((kept & ~bk).sum()),
                                     "only_hard": int((~kept & bk).sum())}
            entry["paired_moves"]["p"] = sign_test(*entry["paired_moves"].values())
        out["settings"].append(entry)
        if not a.json:
            extra = ""
            if "paired_sides" in entry:
                p = entry["paired_sides"]
                extra = f"  sides only this / only hard {p['only_this']} / {p['only_hard']} (p = {p['p']:.3f})"
            print(f"{name:12s} sides kept {entry['sides_kept']}/{entry['game_sides']} "
                  f"({100 * entry['sides_rate']:.1f}%)  moves kept {100 * entry['moves_kept']:.2f}%  "
                  f"optimal {100 * entry['optimal']:.1f}%  {seconds:.0f} s{extra}", flush=True)
    if a.json:
        print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
