"""The Python research API's figures beside the command line's, in one run. Prints JSON.

    python experiments/python-research/floors.py [--kalaha target/release/kalaha] [--network checkpoints/kalah64]

- ``judge``: ``kalaha.judge(kalaha.Network.load(NETWORK))`` against ``kalaha judge --network
  NETWORK --json``: the same report, key for key.
- ``search``: the network exported to PyTorch (``kalaha.torch.TorchNetwork``) as the Python
  evaluator of ``kalaha.search`` on the judge set's positions (64 simulations, no noise, the
  checkpoint's search settings, the judge's seed), scored by the judge set, against ``kalaha
  judge --network NETWORK --simulations 64 --json``: the difference in standard errors.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time

import numpy as np
import torch

import kalaha
from kalaha.torch import TorchNetwork

JUDGE_SEED = 2026


def cli(binary: str, *args: str) -> dict:
    out = subprocess.run([binary, "judge", *args, "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kalaha", default="target/release/kalaha")
    ap.add_argument("--network", default="checkpoints/kalah64")
    ap.add_argument("--simulations", type=int, default=64)
    a = ap.parse_args()
    net = kalaha.Network.load(a.network)

    t = time.perf_counter()
    py = kalaha.judge(net)
    py_seconds = time.perf_counter() - t
    rust = cli(a.kalaha, "--network", a.network)

    module = TorchNetwork.from_network(net)

    @torch.inference_mode()
    def evaluator(obs):
        logits, value, margin = module(torch.from_numpy(obs))
        return logits.numpy(), value.numpy(), margin.numpy()

    js = kalaha.JudgeSet.load(net.rules)
    s = net.card["config"]["search"]
    t = time.perf_counter()
    out = kalaha.search(
        js.positions(), evaluator, simulations=a.simulations, temperature=0.0, seed=JUDGE_SEED,
        c_scale=s["c_scale"], c_visit=s["c_visit"], margin_weight=s["margin_weight"],
    )
    search_seconds = time.perf_counter() - t
    searched = json.loads(js.score(out["action"].astype(np.int64)))
    rust_searched = cli(a.kalaha, "--network", a.network, "--simulations", str(a.simulations))
    diff = searched["optimal_rate"] - rust_searched["optimal_rate"]
    print(json.dumps({
        "network": a.network,
        "judge": {
            "python": py["optimal_rate"],
            "command": rust["optimal_rate"],
            "identical_reports": py == rust,
            "python_seconds": py_seconds,
        },
        "search": {
            "simulations": a.simulations,
            "python_torch": searched["optimal_rate"],
            "command": rust_searched["optimal_rate"],
            "std_err": rust_searched["std_err"],
            "difference_in_std_errs": diff / rust_searched["std_err"],
            "python_seconds": search_seconds,
        },
    }, indent=2))


if __name__ == "__main__":
    main()
