"""The table of experiments/solver-sims: for each sims-N.json, games reaching the start's result
(all, from won starts, from drawn starts; a lost start is reached whatever is played), games
losing no seed, W-D-L, optimal moves by phase and result changes, paired against the first
(64 simulations). sims-N-prove.json are the series whose search proves subtrees (`:prove=on`),
each after the plain search of its budget.
    python3 experiments/solver-sims/table.py [--json]"""
import json, math, sys
from pathlib import Path

here = Path(__file__).parent


def sign_test(k, n):
    """Two-sided exact sign test of k successes in n."""
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(0, min(k, n - k) + 1)) / 2**n
    return min(1.0, 2 * tail)


rows = []
runs = sorted(here.glob("sims-*.json"), key=lambda p: (int(p.stem.split("-")[1]), p.stem.endswith("-prove")))
base = None
for path in runs:
    text = path.read_text()
    if not text.strip():
        continue
    d = json.loads(text)
    j = d["judge"]
    games = json.loads((here / path.stem / "report.json").read_text())["judge"]["vs_solver"]
    reached = [g["reached"] for g in games]
    exact = [g["margin"] == g["value"] for g in games]
    wdl = [sum(1 for g in games if (g["margin"] > 0) == w and (g["margin"] < 0) == l) for w, l in ((True, False), (False, False), (False, True))]
    def held(kind):
        pick = [g for g in games if (g["value"] > 0, g["value"] == 0) == kind]
        return [sum(g["reached"] for g in pick), len(pick)]

    row = {
        "sims": int(path.stem.split("-")[1]),
        "prove": path.stem.endswith("-prove"),
        "won_starts_won": held((True, False)),
        "drawn_starts_held": held((False, True)),
        "reached": sum(reached),
        "games": len(games),
        "lost_no_seed": sum(exact),
        "wdl": wdl,
        "optimal_rate": j["all"]["optimal_rate"],
        "opening": j["opening"]["optimal_rate"],
        "middle": j["middle"]["optimal_rate"],
        "endgame": j["endgame"]["optimal_rate"],
        "result_changes": j["all"]["result_changes"],
        "opening_changes": j["opening"]["result_changes"],
        "seconds": d["seconds"],
    }
    if base is None:
        base = reached
    else:
        only_new = sum(1 for a, b in zip(reached, base) if a and not b)
        only_base = sum(1 for a, b in zip(reached, base) if b and not a)
        row["vs_first"] = {"only_this": only_new, "only_first": only_base, "p_value": sign_test(only_new, only_new + only_base)}
    rows.append(row)

if "--json" in sys.argv:
    print(json.dumps(rows, indent=1))
else:
    print("| simulations | reached the result | won starts won | drawn starts held | lost no seed | W-D-L | optimal moves | opening / middle / endgame | result changes (opening) | paired with the first |")
    print("| ---: | ---: | ---: | ---: | ---: | --- | ---: | --- | ---: | --- |")
    for r in rows:
        v = r.get("vs_first")
        paired = f"{v['only_this']} / {v['only_first']}, p = {v['p_value']:.2g}" if v else ""
        won, drawn = r["won_starts_won"], r["drawn_starts_held"]
        sims = f"{r['sims']}{' proving' if r['prove'] else ''}"
        print(f"| {sims} | {r['reached']}/{r['games']} | {won[0]}/{won[1]} | {drawn[0]}/{drawn[1]} | {r['lost_no_seed']} | {'-'.join(map(str, r['wdl']))} | {100*r['optimal_rate']:.1f}% "
              f"| {100*r['opening']:.1f}% / {100*r['middle']:.1f}% / {100*r['endgame']:.1f}% | {r['result_changes']} ({r['opening_changes']}) | {paired} |")
