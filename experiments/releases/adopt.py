#!/usr/bin/env python3
"""Gives each network released before release ids (checkpoints/<name>/) its release card, marked
not rebuildable, with its true history written down as the records tell it. Run once from the
repository root; refuses a network that already has a card.
    python3 experiments/releases/adopt.py
"""
import hashlib, json, os, subprocess, sys

H = {
  "kalah64": [
    "kalah64-mixed: 4x256 from random weights, 450 iterations, 2,633 s; a binary of 6b43611 plus an uncommitted change; config configs/kalah64-mixed.toml at 53bdc7a, schedule shortened by a resume at iteration 137 (experiments/archive/kalah64-mixed)",
    "kalah64-v3: continued 450 iterations with the learning recipe (set loss, move head, exact_share 1), 4,477 s (experiments/kalah64-v3)",
    "kalah64-widen: widened to 4x512 and continued 300 iterations, 6,019 s (experiments/kalah64-widen)",
    "kalah64-ema: continued 300 iterations with a moving average of the weights, 3,665 s (experiments/kalah64-ema)",
    "each stage started from checkpoints/kalah64, which each release then overwrote: the intermediate networks are not kept",
  ],
  "kalah64-pie": [
    "from the 4x256 Kalah(6,4) network of kalah64-v3 (no release id), fine-tuned by configs/kalah64-pie.toml with the learning recipe (experiments/archive/kalah64-pie-v2)",
    "widened to 4x512 and continued 300 iterations (experiments/kalah64-pie-widen)",
  ],
  "norwegian": [
    "from the 4x256 Kalah(6,4) network of kalah64-v3 (no release id), fine-tuned by configs/norwegian.toml, continued 500 iterations with the learning recipe (experiments/archive/norwegian-v4)",
    "widened to 4x512 and continued 300 iterations (experiments/norwegian-widen)",
  ],
  "children": [
    "from the 4x256 Kalah(6,4) network of kalah64-v3 (no release id), fine-tuned by configs/children.toml, continued 100 iterations with the learning recipe (experiments/archive/children-v2)",
    "continued 300 iterations with a 24-seed endgame database (experiments/children-v5)",
  ],
  "swedish": [
    "from the 4x256 Kalah(6,4) network of kalah64-v3 (no release id), fine-tuned by configs/swedish.toml, continued 400 iterations with the learning recipe (experiments/archive/swedish-v2)",
    "widened to 4x512 and continued 250 iterations (experiments/swedish-widen)",
  ],
  "danish": [
    "from the 4x256 Kalah(6,4) network of kalah64-v3 (no release id), fine-tuned by configs/danish.toml, continued 360 iterations (experiments/archive/danish), then 400 with the learning recipe (experiments/archive/danish-v2)",
    "widened to 4x512 and continued 250 iterations (experiments/danish-widen)",
  ],
}

# Training seconds of the whole chain where the records give every stage's.
LINEAGE = {"kalah64": 2633 + 4477 + 6019 + 3665}

def main():
    for name, history in H.items():
        d = os.path.join("checkpoints", name)
        side = os.path.join(d, "meta.json")
        meta = json.load(open(side))
        if meta.get("release"):
            print(f"{name}: already has a card ({meta['release']['id']})"); continue
        model = os.path.join(d, meta["files"]["model"])
        sha = hashlib.sha256(open(model, "rb").read()).hexdigest()
        date = subprocess.run(["git", "log", "-1", "--format=%cs", "--", model],
                              capture_output=True, text=True, check=True).stdout.strip()
        commit = subprocess.run(["git", "log", "-1", "--format=%h", "--", model],
                                capture_output=True, text=True, check=True).stdout.strip()
        last = meta["evaluations"][-1] if meta.get("evaluations") else None
        judged = None
        if last:
            judged = {"iteration": last["iteration"]}
            if last.get("solver"):
                judged.update(judge_optimal=last["solver"]["optimal_rate"],
                              judge_stderr=last["solver"]["std_err"],
                              judge_positions=last["solver"]["positions"])
            if last.get("heldout"):
                judged["heldout"] = [[h["set"], h["optimal_rate"]] for h in last["heldout"]]
        meta["release"] = {
            "id": f"{name}-{date.replace('-', '')}-{sha[:8]}",
            "name": name, "date": date, "weights_sha256": sha, "rebuildable": False,
            "training_seconds": meta["seconds"], "lineage_seconds": LINEAGE.get(name, meta["seconds"]),
            "commit": f"unknown (released at {commit})",
            **({"judged": judged} if judged else {}),
            "history": ["not rebuildable: released before recipes; its true history, oldest first:"] + history,
        }
        tmp = side + ".tmp"
        with open(tmp, "w") as f:
            json.dump(meta, f, indent=2)
        os.replace(tmp, side)
        print(f"{name}: {meta['release']['id']}")

if __name__ == "__main__":
    sys.exit(main())
