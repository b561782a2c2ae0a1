#!/usr/bin/env python3
"""Writes experiments/<name>/README.md for the first run of a rule set's network (the rule-set
networks fine-tuned from the Kalah(6,4) one) from its config, train.log, checkpoint sidecar and
its evaluation report, experiments/<name>/eval/ (see eval.sh).

usage: experiments/presets/record.py NAME BASELINE_JUDGE_JSON [NOTE]
  BASELINE_JUDGE_JSON: `kalaha judge --json` of the Kalah(6,4) network on this rule set's judge set
"""
import json
import subprocess
import sys

name, base_path = sys.argv[1], sys.argv[2]
note = sys.argv[3] if len(sys.argv) > 3 else ""
cfg = open(f"configs/{name}.toml", encoding="utf-8").read()
title = cfg.splitlines()[0].removeprefix("# The learned agent for ").rstrip(".")
meta = json.load(open(f"checkpoints/{name}/meta.json"))
ev = f"experiments/{name}/eval"
judge = json.load(open(f"{ev}/judge.json"))
base = json.load(open(base_path))
gaunt = json.load(open(f"{ev}/gauntlet/report.json"))
curve = subprocess.run(["python3", "experiments/presets/curve.py", f"experiments/{name}/train.log"],
                       capture_output=True, text=True, check=True).stdout


def load(p):
    try:
        return json.load(open(p))
    except OSError:
        return None


def pct(x):
    return f"{100 * x:.1f}%"


def alone(j):
    s = (f"{pct(j['optimal_rate'])} ± {100 * j['std_err']:.1f} on {j['positions']} positions "
         f"(outside the database {pct(j['outside_db']['optimal_rate'])}, inside "
         f"{pct(j['inside_db']['optimal_rate'])}; {j['mean_loss']:.2f} seeds lost a move")
    if j.get("unsolved"):
        s += f"; {j['unsolved']} drawn positions unproved and left out"
    s += ")"
    if j.get("pie"):
        p = j["pie"]
        s += (f"; pie rule: opening moves {pct(p['openings']['optimal_rate'])} optimal of "
              f"{p['openings']['positions']}, swap answers agree {pct(p['swaps']['optimal_rate'])} "
              f"of {p['swaps']['positions']}")
    return s


rows = []
mm8 = None
for p in gaunt["pairings"]:
    score = (p["a_wins"] + p["draws"] / 2) / p["games"]
    r = next(r for r in gaunt["ratings"] if r["player"] == p["b"])
    rows.append(f"| `{p['b']}` | {p['games']} | {p['a_wins']}-{p['draws']}-{p['b_wins']} | {pct(score)} | "
                f"{p['a_mean_margin']:+.2f} | {r['elo']:+.0f} ({r['lower']:+.0f} .. {r['upper']:+.0f}) |")
    if p["b"] == "minimax:8":
        mm8 = score
solver = load(f"{ev}/solver/report.json")
ceiling = load(f"{ev}/solver-vs-minimax8/report.json")

out = [f"# {name}: the network for {title}", ""]
out += [f"`configs/{name}.toml`: the kalah64 pipeline (Gumbel self-play with 64 simulations, the 18-seed "
        "endgame database of these rules as exact targets and solved leaves, labelled endgames mixed in at "
        "`exact_share = 0.5`) started from the committed Kalah(6,4) network (`run.init = "
        "\"checkpoints/kalah64\"`) at half its peak learning rate (0.001, 64 warm-up steps, cosine to "
        f"0.0001), {meta['iteration']} iterations.", ""]
if note:
    out += [note, ""]
out += ["## Command", "",
        "Binary: `cargo build --release` at 98bdb80's tree (copied to /tmp/kalaha-d); repository root; "
        "one run after another by `experiments/presets/train-all.sh`, on this 2-core machine shared with "
        "the other runs' judge-set solving, evaluations and builds:", "",
        f"    kalaha train --config configs/{name}.toml     # add --resume after a stop", "",
        f"**{meta['seconds']:.0f} s ({meta['seconds'] / 60:.0f} min) of training**, {meta['iteration']} "
        f"iterations, {meta['positions']:,} positions, {meta['games']:,} games, {meta['step']:,} gradient steps.",
        "", "## Evaluation over time (network alone, best move by policy; 50 games per opponent and seat)",
        "", curve.rstrip(), "",
        "## Figures", "",
        f"Commands: `experiments/presets/eval.sh {name}` (below, `{ev}/`).", "",
        f"- **Alone on the judge set** (`kalaha judge --network checkpoints/{name}`, `judge.txt`): "
        f"**{alone(judge)}**.",
        f"- The Kalah(6,4) network it started from, on the same set: {alone(base)}.",
        "- With 64 simulations, 200 games per opponent from 100 openings of 6 random moves, both seats "
        "(`gauntlet/report.md`; Elo of each opponent relative to the network, 95% interval):", "",
        "| opponent | games | W-D-L | score | mean margin | Elo (95% CI) |",
        "| --- | ---: | --- | ---: | ---: | --- |"] + rows + [""]
if ceiling:
    p = ceiling["pairings"][0]
    cs = (p["a_wins"] + p["draws"] / 2) / p["games"]
    out += [f"- Perfect play (`solver`) against minimax:8 on the same openings (`solver-vs-minimax8/report.md`): "
            f"{p['a_wins']}-{p['draws']}-{p['b_wins']}, **{pct(cs)}**: the most a player that never "
            "misplays can be expected to score there, since a share of these openings are lost "
            "for one seat. The network reaches " + (f"{100 * mm8 / cs:.0f}% of it." if mm8 else "-")]
if solver and solver.get("judge"):
    j = solver["judge"]
    vs = j.get("vs_solver", [])
    line = (f"- With 64 simulations against `solver`, {solver['games_played']} games from "
            f"{solver['games_played'] // 2} openings of {solver['opening_moves']} random moves, both seats "
            f"(`solver/report.md`): reaches the game-theoretic result in **{sum(x['reached'] for x in vs)} of "
            f"{len(vs)}** games; {pct(j['all']['optimal_rate'])} of its {j['all']['moves']} moves optimal "
            f"(opening {pct(j['opening']['optimal_rate'])}, middle {pct(j['middle']['optimal_rate'])}, "
            f"endgame {pct(j['endgame']['optimal_rate'])}).")
    sw = j.get("swap_answers", {})
    if sw.get("answers"):
        line += (f" Its answers where `swap` was open: {sw['answers']} ({sw['swapped']} swaps), "
                 f"**{sw['agree']} agree** with the solver's.")
    out += [line]
met = lambda ok: "met" if ok else "**not met**"
out += ["", f"The rule-set networks' floors ([presets](../presets/README.md)): 85% against minimax:8 with 64 simulations: {met(mm8 is not None and mm8 >= 0.85)} "
        f"({pct(mm8) if mm8 is not None else '-'}); 90% solver-optimal alone: {met(judge['optimal_rate'] >= 0.90)} "
        f"({pct(judge['optimal_rate'])} of {judge['positions']} judged)."]
if judge.get("pie") and solver and solver.get("judge"):
    vs = solver["judge"].get("vs_solver", [])
    sw = solver["judge"].get("swap_answers", {})
    r = sum(x["reached"] for x in vs) / max(1, len(vs))
    a = sw.get("agree", 0) / max(1, sw.get("answers", 0))
    out[-1] += (f" Pie: the result reached against `solver` in 90% of games: {met(r >= 0.9)} ({pct(r)}); "
                f"swap answers agreeing in 95%: {met(a >= 0.95)} ({pct(a)}).")
out += [""]
open(f"experiments/{name}/README.md", "w", encoding="utf-8").write("\n".join(out))
print(f"experiments/{name}/README.md")
