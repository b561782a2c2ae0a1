"""The judged evaluation from Python beside the command line's, on the same games.

    python experiments/python-baselines/judge_speed.py --kalaha target/release/kalaha --games 4 --seed 1

Runs ``kalaha eval --player P --opponents O --games N --seed S --judge P --json`` and
``kalaha.evaluate(P, [O], games=N, seed=S, judge=True)`` one after the other (the same arena,
openings and bots: the same games, checked by the positions judged), and prints one JSON line
each: positions judged, judging seconds (the report's), positions judged a second, and the
whole call's wall time.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time

import kalaha


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kalaha", default="target/release/kalaha", help="the command line binary")
    ap.add_argument("--player", default="greedy")
    ap.add_argument("--opponent", default="random")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    runs = []
    t = time.monotonic()
    out = subprocess.run(
        [args.kalaha, "eval", "--player", args.player, "--opponents", args.opponent, "--games", str(args.games),
         "--seed", str(args.seed), "--judge", args.player, "--json"],
        capture_output=True, text=True, check=True,
    )
    runs.append(("command line", json.loads(out.stdout), time.monotonic() - t))
    t = time.monotonic()
    report = kalaha.evaluate(args.player, [args.opponent], games=args.games, seed=args.seed, judge=True)
    runs.append(("python", report, time.monotonic() - t))
    for name, r, wall in runs:
        j = r["judge"]
        print(json.dumps({
            "run": name, "games": r["games_played"], "positions": j["positions"],
            "judge_seconds": round(j["seconds"], 2), "positions_per_second": round(j["positions"] / j["seconds"], 3),
            "optimal_rate": j["all"].get("optimal_rate", j["all"]), "wall_seconds": round(wall, 2),
        }))


if __name__ == "__main__":
    main()
