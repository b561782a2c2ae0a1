"""Plain and proving search (`kalaha.search(..., prove=True)`) of checkpoints/kalah64 on the same
exactly labelled middle-game positions (experiments/midgame-labels), paired: solver-optimal moves,
positions only one of the two gets right (two-sided sign test), positions evaluated, and both by
the ply of the position (the network alone beside them).
    python experiments/solver-sims/midgame.py [--simulations N ...] [--positions K] [--json]"""
import argparse, json, sys, time
from pathlib import Path

import numpy as np
import kalaha
import kalaha.research

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent / "midgame-labels"))
from score import load, rate, sign_test  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--simulations", type=int, nargs="+", default=[256, 1024, 4096])
ap.add_argument("--positions", type=int, default=3000, help="the first K labels of the file")
ap.add_argument("--json", action="store_true")
a = ap.parse_args()
rows = load([here.parents[1] / "checkpoints" / "labels" / "labels-6x4-seed1.jsonl"])[: a.positions]
net = kalaha.Network.load(str(here.parent.parent / "checkpoints" / "kalah64"))
positions = [kalaha.Position(r["position"], net.rules) for r in rows]
# Actions are pit numbers minus one for the player to move (no swap under these rules).
optimal = [{int(k) - 1 for k, v in r["moves"].items() if v == r["value"]} for r in rows]
PLIES = [(0, 7), (8, 11), (12, 15), (16, 23), (24, 999)]
ply = np.array([r["ply"] for r in rows])


def by_ply(hits):
    return {f"{lo}-{hi}" if hi < 999 else f"{lo}+": round(float(hits[(ply >= lo) & (ply <= hi)].mean()), 4) for lo, hi in PLIES}


mask = np.stack([p.action_mask() for p in positions])
alone = np.array([int(x) in o for x, o in zip(kalaha.research.pick(net(positions, mask), mask), optimal)])
out = []
for sims in a.simulations:
    row = {"simulations": sims, "positions": len(rows), "alone": {**rate(alone), "by_ply": by_ply(alone)}}
    hits = {}
    for prove in (False, True):
        t = time.time()
        s = kalaha.search(positions, net, simulations=sims, temperature=0.0, endgame_db=True, prove=prove)
        hits[prove] = np.array([int(x) in o for x, o in zip(s["action"], optimal)])
        row["proving" if prove else "plain"] = {**rate(hits[prove]), "evaluations": int(s["evaluations"]) / len(rows),
                                                "roots_proved": int(s["proved"].sum()), "seconds": round(time.time() - t, 1),
                                                "by_ply": by_ply(hits[prove])}
    only_prove, only_plain = int((hits[True] & ~hits[False]).sum()), int((hits[False] & ~hits[True]).sum())
    row["paired"] = {"only_proving": only_prove, "only_plain": only_plain, "p": sign_test(only_prove, only_plain)}
    out.append(row)
    print(json.dumps(row), file=sys.stderr, flush=True)
if a.json:
    print(json.dumps(out, indent=1))
else:
    print("| simulations | plain | proving | only proving / only plain (p) | evaluations a position: plain / proving | roots proved |")
    print("| ---: | ---: | ---: | --- | --- | ---: |")
    for r in out:
        pl, pr, pa = r["plain"], r["proving"], r["paired"]
        print(f"| {r['simulations']} | {100 * pl['optimal_rate']:.2f}% | {100 * pr['optimal_rate']:.2f}% | {pa['only_proving']} / {pa['only_plain']} ({pa['p']:.2g}) "
              f"| {pl['evaluations']:.0f} / {pr['evaluations']:.0f} | {pr['roots_proved']} |")
    print()
    print("| by ply of the position | " + " | ".join(out[0]["alone"]["by_ply"]) + " |")
    print("| --- |" + " ---: |" * len(PLIES))
    print("| positions | " + " | ".join(str(int(((ply >= lo) & (ply <= hi)).sum())) for lo, hi in PLIES) + " |")
    print("| alone | " + " | ".join(f"{100 * v:.1f}%" for v in out[0]["alone"]["by_ply"].values()) + " |")
    for r in out:
        for k in ("plain", "proving"):
            print(f"| {r['simulations']} {k} | " + " | ".join(f"{100 * v:.1f}%" for v in r[k]["by_ply"].values()) + " |")
