"""Baselines of well-known algorithms on Kalah(6,4), judged against perfect play.

    nice -n 19 env RAYON_NUM_THREADS=1 OMP_NUM_THREADS=1 python experiments/python-baselines/baselines.py \
        --minutes 10,30 --references --out checkpoints/runs/python-baselines

Each algorithm trains on one thread for the wall-clock marks of ``--minutes``: MaskablePPO on
``kalaha/Kalah-v0`` against ``random`` and ``kalaha train`` in one run each, snapshotted at every
mark; the PyTorch AlphaZero example and the one-file PPO (which keep no snapshots) in one run per
mark. Each snapshot is then judged the same way: ``kalaha.judge`` (solver-optimal share of its
moves on the 1,200-position judge set, ± standard error, inside / outside the 18-seed endgame
database) and ``kalaha.evaluate`` (``--games`` games against ``random``, ``greedy`` and
``minimax:4`` from both seats, no judging). Everything goes to ``OUT``: ``results.json`` (a row
as each is judged), ``table.md``, the snapshots, and the minutes trained so far, so the same
command after a kill goes on where it stopped (MaskablePPO from its last minute, ``kalaha train``
from its last checkpoint; an AlphaZero or one-file PPO run starts again).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import signal
import subprocess
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


class Snapshots:
    """Wall-clock marks of one training run: the minutes already trained (kept in ``WORK/NAME.json``
    across restarts) and the marks at which a snapshot is due."""

    def __init__(self, work: Path, name: str, marks: list[float]):
        self.path = work / f"{name}.json"
        self.state = json.loads(self.path.read_text()) if self.path.exists() else {"seconds": 0.0, "snapshots": {}}
        self.marks = sorted(marks)
        self.before = float(self.state["seconds"])
        self.started = time.monotonic()

    def elapsed(self) -> float:
        return self.before + time.monotonic() - self.started

    def due(self) -> list[float]:
        """The marks passed and not yet snapshotted."""
        e = self.elapsed()
        return [m for m in self.marks if 60 * m <= e and f"{m:g}" not in self.state["snapshots"]]

    def save(self, mark: float | None = None, **info) -> None:
        self.state["seconds"] = round(self.elapsed(), 1)
        if mark is not None:
            self.state["snapshots"][f"{mark:g}"] = {"seconds": self.state["seconds"], **info}
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(self.state, indent=1) + "\n")
        tmp.replace(self.path)

    def finished(self) -> bool:
        return all(f"{m:g}" in self.state["snapshots"] for m in self.marks)


def maskable_ppo(marks: list[float], seed: int, work: Path, kalaha_bin: str):
    """One MaskablePPO run to the last mark, the model saved at every mark (and each minute, to
    resume from after a kill: ``WORK/maskable-ppo-last.zip``, its minutes in ``maskable-ppo.json``)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env

    clock = Snapshots(work, "maskable-ppo", marks)
    last = work / "maskable-ppo-last.zip"
    if not clock.finished():
        env = make_vec_env("kalaha/Kalah-v0", n_envs=8, seed=seed, env_kwargs={"opponent": "random"})
        if last.exists():
            model = MaskablePPO.load(last, env=env)
            print(f"MaskablePPO: resumed at {clock.before / 60:.1f} minutes, {model.num_timesteps} steps", flush=True)
        else:
            model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=256,
                                policy_kwargs={"net_arch": [128, 128]}, seed=seed)

        class Marks(BaseCallback):
            def __init__(self):
                super().__init__()
                self.next_save = time.monotonic() + 60

            def _on_step(self) -> bool:
                for m in clock.due():
                    self.model.save(work / f"maskable-ppo-{m:g}min.zip")
                    clock.save(m, steps=int(self.model.num_timesteps))
                    print(f"MaskablePPO: {m:g} minutes, {self.model.num_timesteps} steps", flush=True)
                if time.monotonic() >= self.next_save:
                    self.model.save(last)
                    clock.save()
                    self.next_save = time.monotonic() + 60
                return not clock.finished()

        model.learn(total_timesteps=10**12, callback=Marks(), reset_num_timesteps=False)
    out = {}
    for m in marks:
        snap = clock.state["snapshots"][f"{m:g}"]
        out[m] = (MaskablePPO.load(work / f"maskable-ppo-{m:g}min.zip"), snap["steps"], snap["seconds"], "agent moves")
    return out


def cleanrl_ppo(marks: list[float], seed: int, work: Path, kalaha_bin: str):
    """The one-file PPO has no snapshots: one run for every mark (a finished run's weights are kept
    in ``WORK/cleanrl-ppo-Mmin.pt``; a killed one starts again)."""
    import torch

    ex = example("cleanrl_masked_ppo")
    out = {}
    for m in marks:
        path = work / f"cleanrl-ppo-{m:g}min.pt"
        info = work / f"cleanrl-ppo-{m:g}min.json"
        agent = ex.Agent(2 * 6 + 4, 6)
        if not path.exists():
            args = argparse.Namespace(
                total_steps=10**12, minutes=m, envs=8, rollout=128, epochs=4, minibatch=256, lr=2.5e-4,
                gamma=0.99, lam=0.95, clip=0.2, vf_coef=0.5, ent_coef=0.01, opponent="random", judge_every=0, seed=seed,
            )
            r = ex.train(args)
            info.write_text(json.dumps({"steps": r["agent_steps"], "seconds": round(r["seconds"], 1)}) + "\n")
            torch.save(r["agent"].state_dict(), path)
        agent.load_state_dict(torch.load(path))
        i = json.loads(info.read_text())
        out[m] = (agent.judge_agent, i["steps"], i["seconds"], "agent moves")
    return out


def alphazero(marks: list[float], seed: int, work: Path, kalaha_bin: str):
    """``examples/python/alphazero_torch.py`` as it is, one run for every mark (one thread; judged
    by the example every minute); its ``model.pt`` is judged here. A killed run starts again."""
    import torch
    from kalaha.torch import TorchNetwork

    out = {}
    for m in marks:
        run = work / f"alphazero-{m:g}min"
        if not (run / "model.pt").exists():
            started = time.monotonic()
            subprocess.run([sys.executable, str(ROOT / "examples/python/alphazero_torch.py"), "--minutes", f"{m:g}",
                            "--threads", "1", "--judge-every", "60", "--seed", str(seed), "--out", str(run)], check=True)
            (run / "wall.json").write_text(json.dumps({"seconds": round(time.monotonic() - started, 1)}) + "\n")
        net = TorchNetwork(6, 4, "onehot", "plain", 256, 4, "relu", False)
        net.load_state_dict(torch.load(run / "model.pt"))
        net.eval()

        def agent(obs, mask, net=net):
            with torch.inference_mode():
                return net(torch.from_numpy(obs))[0].numpy()

        curve = json.loads((run / "curve.json").read_text())
        out[m] = (agent, curve[-1]["positions"], curve[-1]["seconds"], "positions")
    return out


def kalaha_train(marks: list[float], seed: int, work: Path, kalaha_bin: str):
    """``kalaha train --config configs/kalah64.toml --stage base`` from random weights, one
    thread, judged every 10 iterations: stopped by SIGINT (it writes a checkpoint) at each mark,
    the checkpoint copied to ``WORK/kalaha-train-Mmin``, then ``--resume``d to the next mark. A
    killed run resumes from its last checkpoint (every 5 iterations) with the minutes recorded."""
    clock = Snapshots(work, "kalaha-train", marks)
    runs = work / "kalaha-train-run"
    if not (runs / "judge").exists():
        runs.mkdir(parents=True, exist_ok=True)
        # The committed judge set, not solved again by the run.
        shutil.copytree(ROOT / "checkpoints" / "judge", runs / "judge")
    sets = [f"run.name=baseline", "run.iterations=100000", f"run.seed={seed}",
            f'run.checkpoint_dir="{runs}"', f'run.experiment_dir="{runs}"', "eval.every=10", "eval.games=0",
            "eval.opponents=[]", "eval.heldout_positions=0"]
    cmd = [kalaha_bin, "train", "--config", str(ROOT / "configs/kalah64.toml"), "--stage", "base"]
    for s in sets:
        cmd += ["--set", s]
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    for m in marks:
        if f"{m:g}" in clock.state["snapshots"]:
            continue
        resume = any(runs.glob("**/meta.json"))
        left = 60 * m - clock.elapsed()
        clock.started, clock.before = time.monotonic(), float(clock.state["seconds"])
        with open(work / "kalaha-train.log", "a") as log:
            p = subprocess.Popen(cmd + (["--resume"] if resume else []), stdout=log, stderr=subprocess.STDOUT, env=env)
            try:
                p.wait(timeout=max(left, 0))
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGINT)
                p.wait()
        meta_path = next(runs.glob("**/meta.json"))
        meta = json.loads(meta_path.read_text())
        snap = work / f"kalaha-train-{m:g}min"
        shutil.rmtree(snap, ignore_errors=True)
        snap.mkdir()
        shutil.copy(meta_path, snap / "meta.json")
        it = meta["iteration"]
        shutil.copy(meta_path.parent / meta["files"]["model"], snap / meta["files"]["model"])
        clock.save(m, iteration=it, positions=meta["positions"], trainer_seconds=round(meta["seconds"], 1))
        print(f"kalaha train: {m:g} minutes, iteration {it}", flush=True)
    out = {}
    for m in marks:
        snap = clock.state["snapshots"][f"{m:g}"]
        net = kalaha.Network.load(str(work / f"kalaha-train-{m:g}min"))
        out[m] = (net, snap["iteration"], snap["seconds"], "iterations")
    return out


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
    "AlphaZero in PyTorch (examples/python/alphazero_torch.py, 4x256)": alphazero,
    "kalaha train from random weights (configs/kalah64.toml, stage base, 4x256)": kalaha_train,
    "masked PPO, one file of PyTorch (CleanRL style, MLP 128x128)": cleanrl_ppo,
}


def table(rows: list) -> str:
    lines = [
        "| algorithm | minutes | trained | judge set optimal | inside / outside db | seeds lost a move | same move as rightmost pit | vs random (W-D-L) | vs greedy | vs minimax:4 |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        j = r["judge"]
        g = j["games"]
        wdl = lambda b: "-".join(str(x) for x in g[b]) if b in g else "(itself)"  # noqa: E731
        trained = f"{r['agent_steps']:,} {r.get('unit', 'agent moves')}" if r["agent_steps"] else ""
        lines.append(
            f"| {r['algorithm']} | {r['minutes']:g} | {trained} | {100 * j['optimal_rate']:.1f}% ± {100 * j['std_err']:.1f} "
            f"| {100 * j['inside_db']:.1f}% / {100 * j['outside_db']:.1f}% | {j['mean_loss']:.2f} | {100 * j['same_as_rightmost']:.1f}% "
            f"| {wdl('random')} | {wdl('greedy')} | {wdl('minimax:4')} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", default="10,30", help="wall-clock marks, comma-separated")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default=None, help="run the algorithms whose name holds this text")
    ap.add_argument("--references", action="store_true", help="also the rows that need no training")
    ap.add_argument("--kalaha", default=str(ROOT / "target/release/kalaha"), help="the binary for kalaha train")
    ap.add_argument("--out", type=Path, required=True, help="results, snapshots and resume state")
    args = ap.parse_args()
    marks = sorted(float(m) for m in args.minutes.split(","))
    torch_threads()
    args.out.mkdir(parents=True, exist_ok=True)
    results = args.out / "results.json"
    rows = json.loads(results.read_text()) if results.exists() else []
    have = {(r["algorithm"], float(r["minutes"])) for r in rows}

    def add(row: dict) -> None:
        rows.append(row)
        have.add((row["algorithm"], float(row["minutes"])))
        print(json.dumps(row), flush=True)
        tmp = results.with_name(results.name + ".tmp")
        tmp.write_text(json.dumps(rows, indent=1) + "\n")
        tmp.replace(results)
        (args.out / "table.md").write_text(table(rows) + "\n")

    if args.references:
        for name in ("rightmost legal pit (rule of thumb)", "greedy (bot)", "minimax:4 (bot)",
                     "kalaha train: the shipped network alone (kalah64)"):
            if (name, 0.0) not in have:
                add({"algorithm": name, "minutes": 0, "seconds": 0, "agent_steps": 0,
                     "judge": judged(reference(name), args.games, args.seed)})
    for name, run in ALGORITHMS.items():
        if args.only and args.only.lower() not in name.lower():
            continue
        if all((name, m) in have for m in marks):
            continue
        for m, (agent, steps, seconds, unit) in run(marks, args.seed, args.out, args.kalaha).items():
            if (name, m) not in have:
                add({"algorithm": name, "minutes": m, "seconds": seconds, "agent_steps": steps, "unit": unit,
                     "judge": judged(agent, args.games, args.seed)})
    print(table(rows))


def torch_threads() -> None:
    """One thread for torch (the runs share the machine with a training run)."""
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(1)


if __name__ == "__main__":
    main()
