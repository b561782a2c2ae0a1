"""How often networks alone play the teacher's move on teacher-labelled positions (teach.py's
files): the fit on positions a run trained on, and on positions drawn from another seed. With
``--trained``, each file's positions are also split into those that occur in the trained-on files
(the judge-like draw repeats positions: a quarter of a fresh 20,000 occur among 300,000) and
those that do not, the network's generalisation proper.

    python experiments/midgame-teacher/agree.py --networks A B ... --files F ... [--positions N]
        [--trained T ...] [--json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

import kalaha
from kalaha.research import pick


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--networks", nargs="+", required=True)
    ap.add_argument("--files", type=Path, nargs="+", required=True)
    ap.add_argument("--positions", type=int, default=20_000, help="the first N lines of each file")
    ap.add_argument("--trained", type=Path, nargs="*", default=[],
                    help="labels files the networks trained on (every line)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    nets = {n: kalaha.Network.load(n) for n in a.networks}
    trained = set()
    for t in a.trained:
        with t.open() as fh:
            trained.update(json.loads(line)["position"] for line in fh if line.strip())
    report = []
    for f in a.files:
        rows = []
        with f.open() as fh:
            for line in fh:
                rows.append(json.loads(line))
                if len(rows) >= a.positions:
                    break
        if not rows:
            ap.error(f"{f} holds no labelled position")
        ps = [kalaha.Position(r["position"]) for r in rows]
        mask = np.stack([p.action_mask() for p in ps])
        for name, net in nets.items():
            # Positions, not observations: a lookahead network reads what every move does.
            acts = pick(net(ps, mask), mask) + 1
            hit = np.array([r["moves"][str(int(x))] == r["value"] for x, r in zip(acts, rows)])
            r = {"file": f.name, "network": name, "positions": len(rows),
                 "agreement": round(float(hit.mean()), 4)}
            if a.trained:
                seen = np.array([row["position"] in trained for row in rows])
                for key, part in (("seen", seen), ("unseen", ~seen)):
                    r[key] = {"positions": int(part.sum()),
                              "agreement": round(float(hit[part].mean()), 4) if part.any() else None}
            report.append(r)
    if a.json:
        print(json.dumps(report, indent=1))
        return
    for r in report:
        split = "".join(
            f"; {key} {100 * r[key]['agreement']:.1f}% of {r[key]['positions']}"
            for key in ("seen", "unseen") if key in r and r[key]["agreement"] is not None)
        print(f"{r['file']}  {r['network']}: the teacher's move in {100 * r['agreement']:.1f}% "
              f"of {r['positions']}{split}")


if __name__ == "__main__":
    main()
