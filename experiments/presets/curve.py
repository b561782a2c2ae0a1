#!/usr/bin/env python3
"""Prints the evaluation rows of a `kalaha train` log as a Markdown table.

usage: experiments/presets/curve.py experiments/<run>/train.log
"""
import re
import sys

ROW = re.compile(r"iteration (\d+)/\d+: .*?loss p ([\d.]+).*?vs random (\d+)%\s+vs greedy (\d+)%\s+vs minimax:4 (\d+)%(.*)")
JUDGE = re.compile(r"optimal ([\d.]+)%±([\d.]+) \(out of db ([\d.]+)%, in ([\d.]+)%\) loss ([\d.]+)")
PIE = re.compile(r"pie: openings (\d+)% swaps (\d+)%")
JUDGED = re.compile(r"on (\d+) judged \((\d+) unproved")

rows = []
for line in open(sys.argv[1], encoding="utf-8"):
    m = ROW.search(line)
    if not m:
        continue
    it, lp, r, g, mm, rest = m.groups()
    j, p, n = JUDGE.search(rest), PIE.search(rest), JUDGED.search(rest)
    cells = [it, lp, r + "%", g + "%", mm + "%"]
    cells += [f"{j[1]}%±{j[2]}", j[3] + "%", j[4] + "%", j[5]] if j else ["-"] * 4
    if p:
        cells += [p[1] + "%", p[2] + "%"]
    if n:
        cells += [f"{n[1]} (+{n[2]} unproved)"]
    rows.append(cells)
if not rows:
    sys.exit("no evaluation rows")
head = ["iteration", "policy loss", "vs random", "vs greedy", "vs minimax:4", "optimal (±s.e.)",
        "outside db", "inside db", "seeds lost"]
width = max(len(r) for r in rows)
if width > len(head):
    head += (["pie openings", "pie swaps", "judged"] if width == len(head) + 3
             else ["pie openings", "pie swaps"] if width == len(head) + 2 else ["judged"])
print("| " + " | ".join(head) + " |")
print("| " + " | ".join("---:" for _ in head) + " |")
for r in rows:
    print("| " + " | ".join(r + ["-"] * (len(head) - len(r))) + " |")
