"""A teacher file's lines made exact where the solver is cheap: every line whose board holds at
most ``--max-seeds`` seeds is solved (``kalaha.solve``, every move) and written with perfect
play's values in place of the search's. The experiment of kalah64-hard-floor's "exact labels
where they are cheap": below 37 seeds a position solves in milliseconds (the median of
``labels-6x4-seed1.jsonl``: 2 ms at 25-30 seeds, 20 ms at 31-36), on the full board in seconds.

    python experiments/midgame-teacher/exact.py FILE --out OUT [--max-seeds 36] [--min-seeds 19]
        [--shard K/N] [--minutes M] [--time-limit S] [--json]
    python experiments/midgame-teacher/exact.py FILE --merge OUT.0 OUT.1 ... --out MERGED [--json]

Solving is resumable and can be split: ``--shard K/N`` takes the lines whose index ``i`` is K
modulo N, in file order, and appends to OUT (one process per core, each its own OUT). A run goes on
from the last index OUT holds; a line cut short by a stop is dropped and solved again. A position
not proved within ``--time-limit`` seconds keeps its teacher line (counted as ``unsolved``).

``--merge`` writes FILE with every solved line in place of the teacher's (the same ``i`` and
position), to a temporary name renamed over MERGED, and reports how many lines were replaced by
seeds on the board and how often the teacher's move set held a move that perfect play does not
count optimal.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "midgame-labels"))

import kalaha  # noqa: E402
from label import whole_lines  # noqa: E402
from score import BANDS  # noqa: E402


def band(seeds: int) -> str:
    for lo, hi in BANDS:
        if lo <= seeds <= hi:
            return f"{lo}-{hi}"
    return "other"


def optimal(line: dict) -> set[str]:
    return {m for m, v in line["moves"].items() if v == line["value"]}


def solve(a: argparse.Namespace) -> dict:
    k, n = a.shard
    done = whole_lines(a.out)
    last = done[-1]["i"] if done else -1
    start, solved, unsolved, seconds = time.time(), 0, 0, 0.0
    rules = kalaha.Rules()
    with a.file.open() as src, a.out.open("a") as out:
        for number, raw in enumerate(src, 1):
            if time.time() - start >= 60 * a.minutes:
                break
            try:
                line = json.loads(raw)
            except json.JSONDecodeError:
                print(f"exact.py: {a.file} line {number} is not JSON", file=sys.stderr)
                sys.exit(2)
            i = line["i"]
            if i <= last or i % n != k or not a.min_seeds <= line["board_seeds"] <= a.max_seeds:
                continue
            t = time.time()
            try:
                value, moves = kalaha.solve(line["position"], rules, memory_mb=1500,
                                            time_limit=a.time_limit)
            except TimeoutError:
                unsolved += 1
                continue
            dt = time.time() - t
            seconds += dt
            out.write(json.dumps({
                "i": i, "position": line["position"], "source": line.get("source", ""),
                "ply": line.get("ply", 0), "board_seeds": line["board_seeds"], "value": value,
                "moves": {str(m): v for m, v in moves.items()}, "seconds": round(dt, 4),
            }) + "\n")
            out.flush()
            solved += 1
            last = i
    return {"out": str(a.out), "shard": f"{k}/{n}", "solved_now": solved, "unsolved_now": unsolved,
            "solved_in_file": len(done) + solved, "last_index": last,
            "solve_seconds": round(seconds, 1), "minutes": round((time.time() - start) / 60, 1)}


def merge(a: argparse.Namespace) -> dict:
    exact: dict[int, dict] = {}
    for path in a.merge:
        for line in whole_lines(path, repair=False):
            exact[line["i"]] = line
    replaced: dict[str, int] = {}
    wrong: dict[str, int] = {}  # by seeds: the teacher's set holds a move perfect play does not
    wider = narrower = same = 0
    tmp = a.out.with_name(a.out.name + ".tmp")
    with a.file.open() as src, tmp.open("w") as out:
        for number, raw in enumerate(src, 1):
            line = json.loads(raw)
            e = exact.get(line["i"])
            if e is None:
                out.write(raw if raw.endswith("\n") else raw + "\n")
                continue
            if e["position"] != line["position"]:
                tmp.unlink()
                print(f"exact.py: line {number}: index {line['i']} is {line['position']} in "
                      f"{a.file} but {e['position']} in the solved lines", file=sys.stderr)
                sys.exit(2)
            t, x = optimal(line), optimal(e)
            b = band(line["board_seeds"])
            replaced[b] = replaced.get(b, 0) + 1
            if t - x:
                wider += 1      # the teacher's set holds a move perfect play does not count optimal
                wrong[b] = wrong.get(b, 0) + 1
            elif t != x:
                narrower += 1   # every teacher move is optimal, but perfect play has more
            else:
                same += 1
            out.write(json.dumps({k: e[k] for k in ("i", "position", "source", "ply", "board_seeds",
                                                    "value", "moves")}) + "\n")
    os.replace(tmp, a.out)
    total = sum(replaced.values())
    return {"out": str(a.out), "replaced": total, "by_seeds": replaced,
            "teacher_set_holds_a_non_optimal_move": wider, "teacher_set_narrower": narrower,
            "teacher_set_exact": same,
            "non_optimal_share_by_seeds": {b: round(wrong.get(b, 0) / n, 4)
                                           for b, n in replaced.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file", type=Path, help="a teach.py (or widen.py) file")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--max-seeds", type=int, default=36)
    ap.add_argument("--min-seeds", type=int, default=19,
                    help="solve only lines with this many seeds on the board or more")
    ap.add_argument("--shard", default="0/1", help="K/N: the lines whose index is K modulo N")
    ap.add_argument("--minutes", type=float, default=60.0)
    ap.add_argument("--time-limit", type=float, default=5.0)
    ap.add_argument("--merge", type=Path, nargs="+", help="solved files to put in FILE's place")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if not a.file.exists():
        ap.error(f"no teacher file {a.file}")
    try:
        k, n = (int(x) for x in a.shard.split("/"))
    except ValueError:
        ap.error(f"--shard is K/N, not {a.shard!r}")
    if not 0 <= k < n:
        ap.error(f"--shard {a.shard}: K must be 0..N-1")
    if a.max_seeds < a.min_seeds or a.minutes <= 0 or a.time_limit <= 0:
        ap.error("--max-seeds must be at least --min-seeds, --minutes and --time-limit positive")
    a.shard = (k, n)
    report = merge(a) if a.merge else solve(a)
    print(json.dumps(report) if a.json else "\n".join(f"{k}: {v}" for k, v in report.items()))


if __name__ == "__main__":
    main()
