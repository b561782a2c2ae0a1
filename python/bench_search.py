"""Self-play throughput of ``kalaha.search`` from Python, beside the Rust self-play's own, in one
run. Prints JSON.

    python python/bench_search.py [--games 1024] [--simulations 64] [--threads 1] [--rounds 3]
        [--steps 6] [--kalaha target/release/kalaha]

Each figure is positions a second of self-play with the committed Kalah(6,4) network (4x256):
``--games`` games in a ``VecEnv``, every move searched with ``--simulations`` simulations
(temperature 1), no endgame database (so every move is searched and every leaf evaluated), the
move played, ``--steps`` moves a round, median of ``--rounds`` rounds, the kinds interleaved:

- ``torch``: ``kalaha.search(env, evaluator)`` with the network exported to PyTorch
  (``kalaha.torch.TorchNetwork``) as a Python evaluator, ``torch.set_num_threads(--threads)``;
- ``numpy``: the same with ``Network.forward`` (burn, through Python) as the evaluator: the
  callback's own cost;
- ``native``: ``kalaha.search(env, network)``: the Rust evaluator, Python only between moves;
- ``rust_selfplay``: ``kalaha train`` itself (``configs/kalah64.toml`` from the committed network,
  database and labelled positions off, ``RAYON_NUM_THREADS=--threads``), the ``pos/s`` of its
  progress lines after the first iteration (median), when ``--kalaha`` names the binary.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import tempfile
import time

import numpy as np

import kalaha


def selfplay_rate(env: kalaha.VecEnv, evaluator, steps: int, seed: int, **cfg) -> float:
    """Positions a second of ``steps`` searched moves in every game of ``env``."""
    t = time.perf_counter()
    for s in range(steps):
        out = kalaha.search(env, evaluator, temperature=1.0, seed=seed * 1000 + s, **cfg)
        env.step(out["action"])
    return steps * env.num_envs / (time.perf_counter() - t)


def rust_selfplay(binary: str, threads: int, games: int, sims: int, iterations: int = 4) -> list[float]:
    """``pos/s`` of the progress lines of a short ``kalaha train`` run (first iteration left out)."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [
            binary, "train", "--config", "configs/kalah64.toml", "--stage", "ema",
            "--set", "run.name=bench", "--set", f"run.iterations={iterations}",
            "--set", f"run.checkpoint_dir=\"{tmp}\"", "--set", f"run.experiment_dir=\"{tmp}\"",
            "--set", "run.init=\"checkpoints/kalah64\"", "--set", "run.checkpoint_every=1000",
            "--set", f"selfplay.games={games}", "--set", f"search.simulations={sims}",
            "--set", "selfplay.endgame_db_seeds=0", "--set", "selfplay.exact_share=0.0",
            "--set", "eval.every=0", "--set", "eval.games=0", "--set", "eval.opponents=[]",
            "--set", "eval.solver_positions=0", "--set", "eval.heldout_positions=0",
        ]
        env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    rates = [float(x) for x in re.findall(r"iteration \d+/\d+: pos/s (\d+)", out.stdout + out.stderr)]
    return rates[1:]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=1024)
    ap.add_argument("--simulations", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--kalaha", default=None, help="the kalaha binary, for the Rust self-play figure")
    a = ap.parse_args()

    import torch

    from kalaha.torch import TorchNetwork

    torch.set_num_threads(a.threads)
    net = kalaha.Network.load("auto")
    module = TorchNetwork.from_network(net)
    search = net.card["config"]["search"]
    cfg = dict(simulations=a.simulations, c_scale=search["c_scale"], c_visit=search["c_visit"], margin_weight=search["margin_weight"])

    @torch.inference_mode()
    def torch_eval(obs):
        logits, value, margin = module(torch.from_numpy(obs))
        return logits.numpy(), value.numpy(), margin.numpy()

    def numpy_eval(obs):
        d = net.forward(obs)
        return d["logits"], d["value"], d["margin"]

    kinds = {"torch": torch_eval, "numpy": numpy_eval, "native": net}
    rates: dict[str, list[float]] = {k: [] for k in kinds}
    env = kalaha.VecEnv(a.games, seed=1, threads=a.threads)
    env.reset(seed=1)
    for r in range(a.rounds):
        for name, ev in kinds.items():
            rates[name].append(selfplay_rate(env, ev, a.steps, r, **cfg))
    result = {
        "games": a.games,
        "simulations": a.simulations,
        "threads": a.threads,
        "network": repr(net),
        "torch_version": torch.__version__,
        "positions_per_sec": {k: statistics.median(v) for k, v in rates.items()},
        "runs": rates,
    }
    if a.kalaha:
        rust = rust_selfplay(a.kalaha, a.threads, a.games, a.simulations)
        result["runs"]["rust_selfplay"] = rust
        result["positions_per_sec"]["rust_selfplay"] = statistics.median(rust)
        result["torch_share_of_rust_selfplay"] = result["positions_per_sec"]["torch"] / statistics.median(rust)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
