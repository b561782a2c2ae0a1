"""Two players' games against `solver` on the same openings, paired game by game: the games each
reaches the opening's result in, the close starts each holds, and an exact sign test over the
games only one of them reaches.

    python experiments/close-games/pair.py A.json[,A2.json...] B.json[,B2.json...] [--json]

Each argument is one or more `kalaha eval --judge ... --json` outputs (comma-separated, e.g. one
per opening seed), in the same order for both players.
"""

from __future__ import annotations

import argparse
import json
from math import comb


def sign_test(a: int, b: int) -> float:
    """Two-sided exact sign test of a against b discordant pairs."""
    n = a + b
    if n == 0:
        return 1.0
    k = min(a, b)
    return min(1.0, 2 * sum(comb(n, i) for i in range(k + 1)) / 2**n)


def games(paths: str) -> tuple[str, list[dict], float]:
    out, seconds, player = [], 0.0, None
    for i, path in enumerate(paths.split(",")):
        d = json.load(open(path))
        j = d["judge"]
        player = j["player"]
        seconds += d["seconds"]
        out += [dict(g, key=(i, g["game"])) for g in j["vs_solver"]]
    return player, out, seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    pa, ga, sa = games(args.a)
    pb, gb, sb = games(args.b)
    by = {g["key"]: g for g in gb}
    assert len(ga) == len(gb) and all(g["key"] in by for g in ga), "not the same games"
    for g in ga:
        assert g["start"] == by[g["key"]]["start"], f"game {g['key']}: other openings"
    close = [g for g in ga if 0 <= g["value"] <= 4]
    row = {
        "a": pa, "b": pb, "games": len(ga),
        "a_reached": sum(g["reached"] for g in ga),
        "b_reached": sum(by[g["key"]]["reached"] for g in ga),
        "close": len(close),
        "a_close_held": sum(g["reached"] for g in close),
        "b_close_held": sum(by[g["key"]]["reached"] for g in close),
        "only_a": sum(g["reached"] and not by[g["key"]]["reached"] for g in ga),
        "only_b": sum(by[g["key"]]["reached"] and not g["reached"] for g in ga),
        "a_series_seconds": round(sa, 1),
        "b_series_seconds": round(sb, 1),
    }
    row["p"] = round(sign_test(row["only_a"], row["only_b"]), 4)
    if args.json:
        print(json.dumps(row, indent=1))
    else:
        print(f"{pa}: {row['a_reached']} of {row['games']} games reach the opening's result, "
              f"close {row['a_close_held']} of {row['close']}")
        print(f"{pb}: {row['b_reached']} of {row['games']}, close {row['b_close_held']} of "
              f"{row['close']}")
        print(f"only the first {row['only_a']}, only the second {row['only_b']}, p = {row['p']}")


if __name__ == "__main__":
    main()
