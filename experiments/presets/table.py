#!/usr/bin/env python3
"""The top README's rule-set table from each rule set's evaluation report (eval.sh), read from
experiments/RUN/eval/: RUN is the run named in the network's sidecar (checkpoints/NAME/meta.json) when
that run has an eval/ folder, or else the run whose eval/ holds the rule set's latest report (EVALUATED).

usage: experiments/presets/table.py [NAME...]   (Markdown on stdout)
"""
import json
import os
import sys

NAMES = sys.argv[1:] or ["kalah64", "kalah64-pie", "norwegian", "children", "swedish", "danish"]
TITLE = {
    "kalah64": "International, Kalah(6,4)",
    "kalah64-pie": "International with the pie rule",
    "norwegian": "Norwegian, Kalah(6,4) ending on turn",
    "children": "Children's, Kalah(6,3) without captures",
    "swedish": "Swedish, Kalah(6,6)",
    "danish": "Danish, Kalah(6,6) leftover to the emptier",
}

# Where a rule set's latest report lives when the committed network's own run has none: the
# international report judged kalah64-mixed's network, committed as checkpoints/kalah64 before
# kalah64-v3 continued it.
EVALUATED = {"kalah64": "archive/kalah64-mixed"}


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def pct(x):
    return f"{100 * x:.1f}%"


print("| rule set | network alone, solver-optimal (judged) | with 64 sims "
      "| 64 sims vs minimax:8 (Elo of minimax:8, 95% CI) "
      "| 512 sims vs minimax:8 | perfect play vs minimax:8, same openings | 64 sims vs solver: result reached | record |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for name in NAMES:
    meta = load(f"checkpoints/{name}/meta.json") or {}
    run = meta.get("config", {}).get("run", {}).get("name", name)
    if not os.path.isdir(f"experiments/{run}/eval"):
        run = EVALUATED.get(name, name)
    d = f"experiments/{run}/eval"
    j = load(f"{d}/judge.json")
    j64 = load(f"{d}/judge-64.json")
    g = load(f"{d}/gauntlet/report.json")
    s = load(f"{d}/solver/report.json")
    c = load(f"{d}/solver-vs-minimax8/report.json")
    deep = load(f"{d}/minimax8-512sims/report.json")
    alone = "-"
    if j:
        alone = f"{pct(j['optimal_rate'])} ± {100 * j['std_err']:.1f} ({j['positions']})"
        if j.get("pie"):
            p = j["pie"]
            alone += f"; pie openings {pct(p['openings']['optimal_rate'])}, swaps {pct(p['swaps']['optimal_rate'])}"
    searched = f"{pct(j64['optimal_rate'])} ± {100 * j64['std_err']:.1f}" if j64 else "-"
    mm8 = "-"
    if g:
        for p in g["pairings"]:
            if p["b"] == "minimax:8":
                score = (p["a_wins"] + p["draws"] / 2) / p["games"]
                r = next(r for r in g["ratings"] if r["player"] == "minimax:8")
                mm8 = f"{pct(score)} of {p['games']} ({r['elo']:+.0f}, {r['lower']:+.0f} .. {r['upper']:+.0f})"
    more = "-"
    if deep:
        p = deep["pairings"][0]
        more = f"{pct((p['a_wins'] + p['draws'] / 2) / p['games'])} of {p['games']}"
    ceiling = "-"
    if c:
        p = c["pairings"][0]
        ceiling = pct((p["a_wins"] + p["draws"] / 2) / p["games"])
    reached = "-"
    if s and s.get("judge"):
        vs = s["judge"].get("vs_solver", [])
        if vs:
            reached = f"{sum(x['reached'] for x in vs)} of {len(vs)}"
        sw = s["judge"].get("swap_answers", {})
        if sw.get("answers"):
            reached += f"; swap answers agree {sw['agree']} of {sw['answers']}"
    link = f"[{run}](experiments/{run}/README.md), [{run}/eval](experiments/{run}/eval/)"
    if not os.path.exists(f"experiments/{run}/README.md"):
        link = name
    print(f"| {TITLE.get(name, name)} | {alone} | {searched} | {mm8} | {more} | {ceiling} | {reached} | {link} |")
