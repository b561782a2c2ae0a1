"""Networks' value and margin heads against the exact final margins of the middle-game labels
(label.py's file): how far the margin head is from perfect play's margin, in seeds, and how often
the value head and the rounded margin give perfect play's result (win, draw or loss). The search
at the leaves reads these heads; score.py measures only the moves.

    python experiments/midgame-labels/values.py --networks A B ... [--labels FILE ...] [--json]

With two networks or more, each after the first is paired with the first: the mean difference of
absolute margin errors with its standard error, on the same positions.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

import kalaha
from score import BANDS, LABELS, load  # this folder's labels files, their reader, the seed bands


def heads(net, positions, total: int, chunk: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """(value in [-1, 1], margin in seeds) of every position, from one forward pass each."""
    values, margins = [], []
    for k in range(0, len(positions), chunk):
        out = net.forward(positions[k:k + chunk])
        values.append(np.asarray(out["value"], dtype=np.float64))
        margins.append(np.asarray(out["margin"], dtype=np.float64) * total)
    return np.concatenate(values), np.concatenate(margins)


def figures(value: np.ndarray, margin: np.ndarray, exact: np.ndarray) -> dict:
    """Margin error and result agreement of one network on one set of positions."""
    result = np.sign(exact)
    # The value head's result: a draw when it is nearer 0 than ±1 (a third of the way).
    said = np.where(np.abs(value) < 1 / 3, 0, np.sign(value))
    err = np.abs(margin - exact)
    return {"positions": int(len(exact)),
            "margin_mae": round(float(err.mean()), 4),
            "margin_result": round(float((np.sign(np.round(margin)) == result).mean()), 4),
            "value_result": round(float((said == result).mean()), 4),
            "value_mse": round(float(((value - result) ** 2).mean()), 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--networks", nargs="+", required=True)
    ap.add_argument("--labels", type=Path, nargs="*", default=LABELS)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = load(a.labels)
    if not rows:
        ap.error("no labelled positions")
    positions = [kalaha.Position(r["position"]) for r in rows]
    total = positions[0].rules.total_seeds
    exact = np.array([r["value"] for r in rows], dtype=np.float64)
    seeds = np.array([r["board_seeds"] for r in rows])
    report, first_err = [], None
    for path in a.networks:
        try:
            net = kalaha.Network.load(path)
        except ValueError as e:
            ap.error(f"network {path}: {e}")
        value, margin = heads(net, positions, total)
        entry = {"network": path, **figures(value, margin, exact), "by_seeds": {}}
        for lo, hi in BANDS:
            idx = (seeds >= lo) & (seeds <= hi)
            entry["by_seeds"][f"{lo}-{hi}"] = figures(value[idx], margin[idx], exact[idx])
        err = np.abs(margin - exact)
        if first_err is None:
            first_err = err
        else:
            d = err - first_err
            entry["against_first"] = {"network": a.networks[0],
                                      "margin_mae_difference": round(float(d.mean()), 4),
                                      "std_err": round(float(d.std(ddof=1) / math.sqrt(len(d))), 4)}
        report.append(entry)
    if a.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{len(rows)} exactly labelled positions outside the database")
    for e in report:
        line = (f"  {e['network']}: margin off by {e['margin_mae']:.2f} seeds, result right "
                f"{100 * e['value_result']:.1f}% (value head), {100 * e['margin_result']:.1f}% "
                f"(margin head)")
        if "against_first" in e:
            f = e["against_first"]
            line += f"; {f['margin_mae_difference']:+.3f} ± {f['std_err']:.3f} seeds against the first"
        print(line)


if __name__ == "__main__":
    main()
