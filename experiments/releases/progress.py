#!/usr/bin/env python3
"""The rebuild's evaluations so far, one table row per evaluation of every stage, from the
stages' sidecars in checkpoints/runs/NAME/ (run output), beside the shipped network's figures.
    python3 experiments/releases/progress.py [kalah64|swedish] > experiments/releases/progress[-NAME].md
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "kalah64"
    run = ROOT / "checkpoints" / "runs" / name
    recipe = json.loads((run / "recipe.json").read_text())
    print("| stage | iteration | training s | judge set alone | held-out judge-like | held-out train-like | vs greedy | vs minimax:4 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for stage in recipe["stages"]:
        # A staged recipe keeps each stage in a folder of its own; a one-stage run is the folder.
        side = run / stage / "meta.json" if recipe.get("staged", True) else run / "meta.json"
        if not side.exists():
            continue
        meta = json.loads(side.read_text())
        for e in meta["evaluations"]:
            s = e.get("solver") or {}
            h = {x["set"]: x["optimal_rate"] for x in e.get("heldout", [])}
            g = {}
            for r in e["games"]:
                w = g.setdefault(r["opponent"], [0, 0])
                w[0] += r["wins"] + 0.5 * r["draws"]
                w[1] += r["games"]
            pct = lambda x: f"{100 * x:.2f}%" if x is not None else "-"
            score = lambda o: f"{100 * g[o][0] / g[o][1]:.0f}%" if o in g else "-"
            print(f"| {stage} | {e['iteration']} | {e['seconds']:.0f} | "
                  f"{pct(s.get('optimal_rate'))} ± {100 * s.get('std_err', 0):.1f} | "
                  f"{pct(h.get('judge'))} | {pct(h.get('train'))} | {score('greedy')} | {score('minimax:4')} |")
    shipped = json.loads((ROOT / "checkpoints" / name / "meta.json").read_text())
    j = shipped["release"]["judged"]
    h = dict(j.get("heldout", []))
    print(f"| shipped {shipped['release']['id']} | | {shipped['release']['lineage_seconds']:.0f} (whole chain) | "
          f"{100 * j['judge_optimal']:.2f}% ± {100 * j['judge_stderr']:.1f} | {100 * h['judge']:.2f}% | {100 * h['train']:.2f}% | | |")


if __name__ == "__main__":
    main()
