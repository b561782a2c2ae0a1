"""How many positions the `hard` level's search evaluates as its simulation budget grows: the
searches of checkpoints/kalah64 (greedy, as the players search) from the 100 start positions of
the solver-sims series, with the endgame database at the leaves and without it, and with the
database and a search that proves subtrees (`prove=True`).
    python experiments/solver-sims/evaluations.py [--json]      (the kalaha package installed)"""
import json, sys, time
from pathlib import Path

import numpy as np
import kalaha

here = Path(__file__).parent
net = kalaha.Network.load(str(here.parent.parent / "checkpoints" / "kalah64"))
games = json.loads((here / "sims-64" / "report.json").read_text())["judge"]["vs_solver"]
starts = [kalaha.Position(g["start"], net.rules) for g in games]
rows = []
for db, prove in ((True, False), (0, False), (True, True)):
    for sims in (64, 256, 1024, 4096, 16384):
        t = time.time()
        outs = [kalaha.search(p, net, simulations=sims, temperature=0, endgame_db=db, prove=prove) for p in starts]
        evals = [int(o["evaluations"]) for o in outs]
        rows.append({"database": bool(db), "prove": prove, "proved": sum(bool(o["proved"][0]) for o in outs),
                     "simulations": sims, "mean_evaluations": float(np.mean(evals)),
                     "median_evaluations": float(np.median(evals)), "max_evaluations": max(evals),
                     "seconds": round(time.time() - t, 2)})
if "--json" in sys.argv:
    print(json.dumps(rows, indent=1))
else:
    print("| database at the leaves | proving | simulations | positions evaluated: mean | median | most | roots proved |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {'yes' if r['database'] else 'no'} | {'yes' if r['prove'] else 'no'} | {r['simulations']} | {r['mean_evaluations']:.0f} | {r['median_evaluations']:.0f} | {r['max_evaluations']} | {r['proved']} |")
