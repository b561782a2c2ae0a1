"""Baselines of well-known algorithms on Kalah(6,4), judged against perfect play.

    python experiments/python-baselines/baselines.py --minutes 5 --out experiments/python-baselines

Each algorithm trains for ``--minutes`` of wall time on ``kalaha/Kalah-v0`` against ``random``
(the examples in ``examples/python``, used as they are), then is judged the same way:
``kalaha.judge`` (solver-optimal share of its moves on the 1,200-position judge set, ± standard
error, inside / outside the 18-seed endgame database) and ``kalaha.evaluate`` (``--games`` games
against ``random``, ``greedy`` and ``minimax:4`` from both seats, no judging). Writes
``OUT/results.json`` and prints the Markdown table of the record. Ctrl-C stops the algorithm
being trained and judges what it learnt.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

import numpy as np

import kalaha

ROOT = Path(__file__).resolve().parents[2]
BOTS = ["random", "greedy", "minimax:4"]


def example(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / "python" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def rightmost(obs, mask):
    """The rightmost legal pit (the one nearest the store): a rule of thumb, no training."""
    return np.array([np.flatnonzero(row[:-1]).max() for row in mask])


def moves(agent) -> np.ndarray:
    """The agent's moves on the judge set (as ``kalaha.judge`` plays them)."""
    js = kalaha.JudgeSet.load()
    if isinstance(agent, kalaha.Bot):
        return np.array([agent.act_action(p) for p in js.positions()])
    out = np.asarray(kalaha.research.as_agent(agent)(js.obs(), js.mask()))
    return kalaha.research.pick(out, js.mask()) if out.ndim == 2 else out


def judged(agent, games: int, seed: int) -> dict:
    report = kalaha.judge(agent)
    bots = [b for b in BOTS if not (isinstance(agent, kalaha.Bot) and agent.spec == b)]
    play = kalaha.evaluate(agent, bots, games=games, seed=seed, judge=False, name="agent")
    js = kalaha.JudgeSet.load()
    same = float((moves(agent) == rightmost(js.obs(), js.mask())).mean())
    return {
        "same_as_rightmost": same,
        "optimal_rate": report["optimal_rate"],
        "std_err": report["std_err"],
        "inside_db": report["inside_db"]["optimal_rate"],
        "outside_db": report["outside_db"]["optimal_rate"],
        "mean_loss": report["mean_loss"],
        "games": {p["b"]: [p["a_wins"], p["draws"], p["b_wins"]] for p in play["pairings"]},
    }


def maskable_ppo(minutes: float, seed: int):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    ex = example("sb3_maskable_ppo")
    env = make_vec_env("kalaha/Kalah-v0", n_envs=8, seed=seed, env_kwargs={"opponent": "random"})
    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=256, policy_kwargs={"net_arch": [128, 128]}, seed=seed)
    try:
        model.learn(total_timesteps=10**9, callback=ex.Deadline(60 * minutes))
    except KeyboardInterrupt:
        pass
    return model, int(model.num_timesteps)


def cleanrl_ppo(minutes: float, seed: int):
    ex = example("cleanrl_masked_ppo")
    args = argparse.Namespace(
        total_steps=10**9, minutes=minutes, envs=8, rollout=128, epochs=4, minibatch=256, lr=2.5e-4,
        gamma=0.99, lam=0.95, clip=0.2, vf_coef=0.5, ent_coef=0.01, opponent="random", judge_every=0, seed=seed,
    )
    out = ex.train(args)
    return out["agent"].judge_agent, out["agent_steps"]


def reference(name: str):
    """Rows that need no training: the rule of thumb, two bots, the shipped network alone."""
    agents = {
        "rightmost legal pit (rule of thumb)": rightmost,
        "greedy (bot)": kalaha.Bot("greedy", seed=0),
        "minimax:4 (bot)": kalaha.Bot("minimax:4", seed=0),
        "kalaha train: the shipped network alone (kalah64)": kalaha.Network.load("auto"),
    }
    return agents[name]


ALGORITHMS = {
    "MaskablePPO (sb3-contrib 2.9, MLP 128x128)": maskable_ppo,
    "masked PPO, one file of PyTorch (CleanRL style, MLP 128x128)": cleanrl_ppo,
}


def table(rows: list) -> str:
    lines = [
        "| algorithm | minutes | agent steps | judge set optimal | inside / outside db | seeds lost a move | same move as rightmost pit | vs random (W-D-L) | vs greedy | vs minimax:4 |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        j = r["judge"]
        g = j["games"]
        wdl = lambda b: "-".join(str(x) for x in g[b]) if b in g else "(itself)"  # noqa: E731
        lines.append(
            f"| {r['algorithm']} | {r['minutes']:g} | {r['agent_steps']:,} | {100 * j['optimal_rate']:.1f}% ± {100 * j['std_err']:.1f} "
            f"| {100 * j['inside_db']:.1f}% / {100 * j['outside_db']:.1f}% | {j['mean_loss']:.2f} | {100 * j['same_as_rightmost']:.1f}% "
            f"| {wdl('random')} | {wdl('greedy')} | {wdl('minimax:4')} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=5.0)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default=None, help="run the algorithms whose name holds this text")
    ap.add_argument("--references", action="store_true", help="also the rows that need no training")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    rows = []
    if args.references:
        for name in ("rightmost legal pit (rule of thumb)", "greedy (bot)", "minimax:4 (bot)",
                     "kalaha train: the shipped network alone (kalah64)"):
            row = {"algorithm": name, "minutes": 0, "seconds": 0, "agent_steps": 0,
                   "judge": judged(reference(name), args.games, args.seed)}
            rows.append(row)
            print(json.dumps(row), flush=True)
    for name, run in ALGORITHMS.items():
        if args.only and args.only.lower() not in name.lower():
            continue
        started = time.monotonic()
        agent, steps = run(args.minutes, args.seed)
        trained = time.monotonic() - started
        row = {"algorithm": name, "minutes": args.minutes, "seconds": round(trained, 1), "agent_steps": steps,
               "judge": judged(agent, args.games, args.seed)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    print(table(rows))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"results-{args.minutes:g}min.json").write_text(json.dumps(rows, indent=1) + "\n")
        (args.out / f"table-{args.minutes:g}min.md").write_text(table(rows) + "\n")


if __name__ == "__main__":
    main()
