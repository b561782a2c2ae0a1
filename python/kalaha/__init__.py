"""kalaha: Kalah(m,n) for reinforcement learning, from Python.

The native part (``kalaha._kalaha``, Rust through PyO3) holds the rules, the vectorised
environment, the exact solver and the bots:

- ``Rules``: rule presets and options.
- ``Position``: a position in the project's notation; legal moves, play, the observation.
- ``VecEnv``: thousands of games stepped together in native code, numpy arrays out.
- ``solve(position, rules=None)``: the exact value of a position and of each of its moves.
- ``Bot(spec)``: ``random``, ``greedy``, ``minimax:D``, ``mcts:N``, ``solver``,
  ``policy:PATH[:SIMS]`` (``policy:auto:64`` is the network shipped for the rules, searching).
- ``Network.load(path)``: a trained network's logits, value and margin for numpy batches.
- ``search(roots, evaluator)``: the batched Gumbel search with a ``Network`` or a Python evaluator.
- ``judge(agent)``: any batched agent scored against perfect play on the solver-labelled sets
  (``JudgeSet``, ``HeldoutSet``); ``evaluate(agent, opponents)``: the arena's gauntlet with Elo
  and the solver's judgement of every move.

The ecosystem classes are plain Python over these, imported on first use so that ``import
kalaha`` needs only numpy:

- ``kalaha.KalahEnv`` (one game against a bot, ``kalaha/Kalah-v0``), ``kalaha.KalahSelfPlayEnv`` and
  ``kalaha.KalahVectorEnv`` (self-play, one game or many, ``kalaha/KalahSelfPlay-v0``), in
  ``kalaha.gym`` (needs gymnasium; the ids are registered on ``import kalaha``);
- ``kalaha.kalah_v0`` (a PettingZoo AEC environment, needs pettingzoo; ``kalaha/kalah-v0`` in
  PettingZoo's registry);
- ``kalaha.multiagent.KalahMultiAgent`` (a turn-based dict API for multi-agent trainers such as
  RLlib, no dependency);
- ``kalaha.torch.TorchNetwork`` (a trained network as a PyTorch module, needs torch).
"""

from __future__ import annotations

import importlib

from ._kalaha import (
    Bot,
    HeldoutSet,
    JudgeReport,
    JudgeSet,
    Network,
    Position,
    Rules,
    VecEnv,
    __version__,
    presets,
    search,
    solve,
)
from ._registration import register_all as _register_all
from .research import evaluate, judge

__all__ = [
    "Bot",
    "HeldoutSet",
    "JudgeReport",
    "JudgeSet",
    "Network",
    "Position",
    "Rules",
    "VecEnv",
    "__version__",
    "presets",
    "evaluate",
    "judge",
    "search",
    "solve",
]
# Not in __all__: the names below resolve on first use and need an optional package (gymnasium,
# pettingzoo, torch), which ``from kalaha import *`` must not require.

_LAZY = {
    "KalahEnv": ("kalaha.gym", "KalahEnv"),
    "KalahVectorEnv": ("kalaha.gym", "KalahVectorEnv"),
    "KalahSelfPlayEnv": ("kalaha.gym", "KalahSelfPlayEnv"),
    "kalah_v0": ("kalaha.kalah_v0", None),
    "gym": ("kalaha.gym", None),
    "multiagent": ("kalaha.multiagent", None),
    "torch": ("kalaha.torch", None),
}


def __getattr__(name: str):
    if name in _LAZY:
        module, attr = _LAZY[name]
        mod = importlib.import_module(module)
        return mod if attr is None else getattr(mod, attr)
    raise AttributeError(f"module 'kalaha' has no attribute {name!r}")


# Gymnasium's and PettingZoo's registries, by name (nothing of ours is imported until made).
_register_all()
