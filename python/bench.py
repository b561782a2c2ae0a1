"""Throughput of the Python package, beside the Rust environment's own rate and OpenSpiel's
Python API, measured in one run. Prints JSON.

    python python/bench.py [--games 4096] [--threads 2] [--runs 5] [--seconds 1.0]

Figures (medians of ``--runs`` timed runs of about ``--seconds`` each, game steps per second):

- ``numpy_actions``: ``VecEnv.step(actions)`` from Python with a uniformly random legal action
  per game drawn in numpy: each game's legal actions as bits (``VecEnv.legal_bits()``) index a
  table of the legal actions repeated to ``lcm(1..m+1)`` entries, and a column is drawn uniformly
  (exact, no Python loop); the step's outputs are copied out every step.
- ``numpy_from_mask``: the same, the bits computed in numpy from the returned bool masks.
- ``numpy_argmax``: the same with the plainer ``argmax(uniform + mask, axis=1)`` draw (numpy's
  row-wise argmax over 7 columns costs more than the step itself).
- ``step_random``: ``VecEnv.step_random()`` from Python (actions drawn in native code), outputs
  copied out every step as with ``step``.
- ``rust_env``: the library's own benchmark (``kalaha bench env``: no Python in the loop).
- ``open_spiel``: OpenSpiel's Python API on its Kalah(6,4) (``pyspiel.load_game("mancala")``),
  one game at a time, a random legal action per move (``random.choice(state.legal_actions())``),
  when ``open_spiel`` is installed.
- ``gym_same_step``, ``gym_next_step``, ``gym_disabled``: the Gymnasium vector env
  (``kalaha.gym.KalahVectorEnv``) in each autoreset mode, random legal actions drawn in numpy from
  ``infos["action_mask"]`` (DISABLED: the games that ended restarted by
  ``reset(options={"reset_mask": ...})`` after each step, as a trainer would), when ``gymnasium``
  is installed.

``--figures a,b``: only those figures (``rust_env`` is always measured).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time

import numpy as np

import kalaha
from kalaha._kalaha import bench_env


def timed_runs(step_batch, steps_per_call: int, runs: int, seconds: float) -> list[float]:
    """Steps per second of ``step_batch`` over ``runs`` runs of about ``seconds`` each, after a
    calibration that sizes a run."""
    calls = 1
    while True:
        t = time.perf_counter()
        for _ in range(calls):
            step_batch()
        dt = time.perf_counter() - t
        if dt > 0.05:
            calls = max(1, int(calls * seconds / dt))
            break
        calls *= 4
    rates = []
    for _ in range(runs):
        t = time.perf_counter()
        for _ in range(calls):
            step_batch()
        rates.append(calls * steps_per_call / (time.perf_counter() - t))
    return rates


class LegalSampler:
    """Uniformly random legal actions for a batch of masks, in numpy: row ``b`` of a table holds
    the legal actions of mask bits ``b`` repeated to ``lcm(1..A)`` entries, so a uniform column
    is a uniform legal action."""

    def __init__(self, actions: int, rng: np.random.Generator):
        self.width = int(np.lcm.reduce(np.arange(1, actions + 1)))
        self.table = np.zeros((1 << actions, self.width), dtype=np.uint8)
        for bits in range(1, 1 << actions):
            legal = [a for a in range(actions) if bits >> a & 1]
            self.table[bits] = np.resize(legal, self.width)
        self.weights = (1 << np.arange(actions)).astype(np.uint8 if actions <= 8 else np.uint16)
        self.rng = rng

    def from_bits(self, bits: np.ndarray) -> np.ndarray:
        """Actions for legal-action bits (``VecEnv.legal_bits()``)."""
        return self.table[bits, self.rng.integers(0, self.width, len(bits), dtype=np.int32)]

    def from_mask(self, mask: np.ndarray) -> np.ndarray:
        """Actions for bool masks ``[G, A]``."""
        return self.from_bits(mask.view(np.uint8) @ self.weights)


def bench_numpy_actions(games: int, threads: int, runs: int, seconds: float) -> list[float]:
    env = kalaha.VecEnv(games, "international", seed=1, threads=threads)
    sample = LegalSampler(env.action_count, np.random.default_rng(1))
    env.reset(1)

    def one():
        env.step(sample.from_bits(env.legal_bits()))

    return timed_runs(one, games, runs, seconds)


def bench_numpy_from_mask(games: int, threads: int, runs: int, seconds: float) -> list[float]:
    env = kalaha.VecEnv(games, "international", seed=1, threads=threads)
    sample = LegalSampler(env.action_count, np.random.default_rng(1))
    state = {"mask": env.reset(1)[1]}

    def one():
        state["mask"] = env.step(sample.from_mask(state["mask"]))[1]

    return timed_runs(one, games, runs, seconds)


def bench_numpy_argmax(games: int, threads: int, runs: int, seconds: float) -> list[float]:
    env = kalaha.VecEnv(games, "international", seed=1, threads=threads)
    rng = np.random.default_rng(1)
    state = {"mask": env.reset(1)[1]}

    def one():
        u = rng.random(state["mask"].shape, dtype=np.float32)
        state["mask"] = env.step(np.argmax(u + state["mask"], axis=1))[1]

    return timed_runs(one, games, runs, seconds)


def bench_step_random(games: int, threads: int, runs: int, seconds: float) -> list[float]:
    env = kalaha.VecEnv(games, "international", seed=1, threads=threads)
    return timed_runs(env.step_random, games, runs, seconds)


def bench_gym(mode: str, games: int, threads: int, runs: int, seconds: float) -> list[float]:
    from gymnasium.vector import AutoresetMode

    from kalaha.gym import KalahVectorEnv

    mode = AutoresetMode[mode]
    env = KalahVectorEnv(games, threads=threads, seed=1, autoreset_mode=mode)
    sample = LegalSampler(env.single_action_space.n, np.random.default_rng(1))
    state = {"mask": env.reset(seed=1)[1]["action_mask"]}

    def one():
        _, _, done, _, info = env.step(sample.from_mask(state["mask"]))
        if mode == AutoresetMode.DISABLED and done.any():
            info = env.reset(options={"reset_mask": done})[1]
        state["mask"] = info["action_mask"]

    return timed_runs(one, games, runs, seconds)


GYM = {"gym_same_step": "SAME_STEP", "gym_next_step": "NEXT_STEP", "gym_disabled": "DISABLED"}


def bench_open_spiel(runs: int, seconds: float) -> dict | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("mancala")
    rnd = random.Random(1)
    counter = {"moves": 0}

    def one_game():
        state = game.new_initial_state()
        moves = 0
        while not state.is_terminal():
            state.apply_action(rnd.choice(state.legal_actions()))
            moves += 1
        counter["moves"] += moves

    # Steps per call vary by game: time whole games and count their moves.
    rates = []
    one_game()
    for _ in range(runs):
        counter["moves"] = 0
        t = time.perf_counter()
        while time.perf_counter() - t < seconds:
            one_game()
        rates.append(counter["moves"] / (time.perf_counter() - t))
    return {"game": str(game), "steps_per_sec": statistics.median(rates), "runs": rates}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=4096)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--figures", default=None, help="comma-separated figures to measure (default: all)")
    args = ap.parse_args()
    g, th, runs, sec = args.games, args.threads, args.runs, args.seconds
    python_figures = {
        "numpy_actions": lambda: bench_numpy_actions(g, th, 1, sec),
        "numpy_from_mask": lambda: bench_numpy_from_mask(g, th, 1, sec),
        "numpy_argmax": lambda: bench_numpy_argmax(g, th, 1, sec),
        "step_random": lambda: bench_step_random(g, th, 1, sec),
    }
    try:
        import gymnasium  # noqa: F401

        for key, mode in GYM.items():
            python_figures[key] = lambda mode=mode: bench_gym(mode, g, th, 1, sec)
    except ImportError:
        pass
    known = [*python_figures, "open_spiel"]
    wanted = known if args.figures is None else args.figures.split(",")
    unknown = sorted(set(wanted) - set(known) - {"rust_env"})
    if unknown:
        ap.error(f"unknown figures {unknown} (known: rust_env, {', '.join(known)})")

    # The measurements take turns, one run of each per round, so that whatever else the machine
    # is doing weighs on all of them alike; medians over the rounds are reported.
    rates: dict[str, list[float]] = {"rust_env": [], "open_spiel": [], **{k: [] for k in python_figures}}
    spiel_game = None
    rules = None
    for _ in range(runs):
        rust = bench_env(games=g, threads=th, runs=1, seconds=sec)
        rules = rust["rules"]
        rates["rust_env"] += rust["runs"]
        for key, run in python_figures.items():
            if key in wanted:
                rates[key] += run()
        spiel = bench_open_spiel(1, sec) if "open_spiel" in wanted else None
        if spiel is not None:
            spiel_game = spiel["game"]
            rates["open_spiel"] += spiel["runs"]

    def fig(key: str) -> dict:
        return {"steps_per_sec": statistics.median(rates[key]), "runs": rates[key]}

    out: dict = {
        "machine": {
            "cpus": os.cpu_count(),
            "load_average_1m_at_end": os.getloadavg()[0],
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "kalaha": kalaha.__version__,
        "rules": rules,
        "games": g,
        "threads": th,
        "runs": runs,
        "seconds_per_run": sec,
        "rust_env": fig("rust_env"),
        "open_spiel": None,
    }
    for key in python_figures:
        if rates[key]:
            out[key] = fig(key)
    if rates["step_random"]:
        out["step_random_vs_rust_env"] = statistics.median(rates["step_random"]) / statistics.median(rates["rust_env"])
    if rates.get("gym_same_step") and rates.get("gym_next_step"):
        out["gym_next_step_vs_same_step"] = (
            statistics.median(rates["gym_next_step"]) / statistics.median(rates["gym_same_step"])
        )
    if rates["open_spiel"]:
        spiel_rate = statistics.median(rates["open_spiel"])
        out["open_spiel"] = {"game": spiel_game, **fig("open_spiel")}
        for key in ("numpy_actions", "numpy_from_mask", "numpy_argmax", "step_random"):
            if key in out:
                out[f"{key}_vs_open_spiel"] = out[key]["steps_per_sec"] / spiel_rate
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
