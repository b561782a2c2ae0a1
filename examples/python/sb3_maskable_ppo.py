"""sb3-contrib's MaskablePPO on ``kalaha/Kalah-v0``, unwrapped, judged against perfect play.

    python examples/python/sb3_maskable_ppo.py --minutes 10 --opponent random --out OUT

Needs ``pip install ./python stable-baselines3 sb3-contrib``. The environment is used exactly as
Gymnasium makes it: ``MaskablePPO`` reads the legal actions from ``action_masks()``, and
``kalaha.judge(model)`` and ``kalaha.evaluate(model, ...)`` take the trained model as it is (its
``Discrete(6)`` actions, no padding). Trains for ``--minutes`` (or ``--steps`` agent steps,
whichever comes first; Ctrl-C stops early), then writes ``OUT/result.json``: agent steps,
seconds, the judge report (solver-optimal share ± standard error, inside/outside the endgame
database) and the results against ``random``, ``greedy`` and ``minimax:4``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env

import kalaha


class Deadline(BaseCallback):
    """Stops training at a wall-clock deadline."""

    def __init__(self, seconds: float):
        super().__init__()
        self.deadline = time.monotonic() + seconds

    def _on_step(self) -> bool:
        return time.monotonic() < self.deadline


def results_against(model, opponents, games: int, seed: int) -> dict:
    """Wins, draws and losses of ``model`` against each bot, from both seats (no judging)."""
    report = kalaha.evaluate(model, opponents, games=games, seed=seed, judge=False, name="maskableppo")
    return {
        p["b"]: {"games": p["games"], "wins": p["a_wins"], "draws": p["draws"], "losses": p["b_wins"]}
        for p in report["pairings"]
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--steps", type=int, default=10**9, help="agent steps at most")
    ap.add_argument("--opponent", default="random", help="the bot the agent trains against")
    ap.add_argument("--envs", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--games", type=int, default=100, help="games against each bot at the end")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()

    env = make_vec_env("kalaha/Kalah-v0", n_envs=args.envs, seed=args.seed, env_kwargs={"opponent": args.opponent})
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=256, batch_size=256, policy_kwargs={"net_arch": [128, 128]},
        seed=args.seed, verbose=0,
    )
    started = time.monotonic()
    try:
        model.learn(total_timesteps=args.steps, callback=Deadline(60 * args.minutes), progress_bar=False)
    except KeyboardInterrupt:
        print("stopped by Ctrl-C: judging what was learnt")
    seconds = time.monotonic() - started
    report = kalaha.judge(model)
    games = results_against(model, ["random", "greedy", "minimax:4"], args.games, args.seed)
    result = {
        "algorithm": "MaskablePPO (sb3-contrib), MlpPolicy 128x128",
        "opponent": args.opponent,
        "agent_steps": int(model.num_timesteps),
        "seconds": round(seconds, 1),
        "judge": {k: report[k] for k in ("optimal_rate", "std_err", "positions", "mean_loss", "inside_db", "outside_db")},
        "games": games,
    }
    print(kalaha.research.summary(report))
    print(json.dumps({k: v for k, v in result.items() if k != "games"}, indent=1))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "result.json").write_text(json.dumps(result, indent=1) + "\n")
        model.save(args.out / "model.zip")


if __name__ == "__main__":
    main()
