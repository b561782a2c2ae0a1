"""Two players' games against `solver` on the same openings, paired game by game: the games each
reaches the opening's result in, the close starts each holds, and an exact sign test over the
games only one of them reaches.

    python experiments/close-games/pair.py A B [--json]
    python experiments/close-games/pair.py --collect NAME A.json[,A2.json...]

A player is a name in `games.csv` (this record's games, a row each) or one or more `kalaha eval
--judge ... --json` outputs (comma-separated, one per opening seed), in the same order for both
players. `--collect` puts a series' games into `games.csv` under NAME (replacing NAME's rows), so
that the record keeps a compact table instead of the raw outputs.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
from math import comb


def sign_test(a: int, b: int) -> float:
    """Two-sided exact sign test of a against b discordant pairs."""
    n = a + b
    if n == 0:
        return 1.0
    k = min(a, b)
    return min(1.0, 2 * sum(comb(n, i) for i in range(k + 1)) / 2**n)


TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "games.csv")
FIELDS = ["name", "player", "file", "game", "start", "value", "margin", "reached", "series_seconds"]


def table() -> list[dict]:
    if not os.path.exists(TABLE):
        return []
    with open(TABLE, newline="") as f:
        return list(csv.DictReader(f))


def collect(name: str, paths: str) -> None:
    player, gs, seconds = games(paths)
    rows = [r for r in table() if r["name"] != name]
    for g in gs:
        rows.append({"name": name, "player": player, "file": g["key"][0], "game": g["key"][1],
                     "start": g["start"], "value": g["value"], "margin": g["margin"],
                     "reached": int(g["reached"]), "series_seconds": round(seconds, 1)})
    tmp = TABLE + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, TABLE)
    print(f"{name}: {len(gs)} games of {player} in {TABLE}")


def games(paths: str) -> tuple[str, list[dict], float]:
    if ".json" not in paths:
        rows = [r for r in table() if r["name"] == paths]
        if not rows:
            raise SystemExit(f"pair.py: no games named {paths!r} in {TABLE}")
        gs = [{"key": (int(r["file"]), int(r["game"])), "start": r["start"],
               "value": int(r["value"]), "margin": int(r["margin"]),
               "reached": r["reached"] == "1"} for r in rows]
        return rows[0]["player"], gs, float(rows[0]["series_seconds"])
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
    ap.add_argument("--collect", action="store_true", help="put the series B into games.csv as A")
    args = ap.parse_args()
    if args.collect:
        collect(args.a, args.b)
        return
    pa, ga, sa = games(args.a)
    pb, gb, sb = games(args.b)
    by = {g["key"]: g for g in gb}
    # Paired on the games both played (the same opening seeds, in the same order).
    ga = [g for g in ga if g["key"] in by]
    assert ga, "no games in common"
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
